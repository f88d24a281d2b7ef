/**
 * Captures real pgoutput bytes for the decoder's unit tests: runs a few statements against the
 * project's PostgreSQL server (POSTGRES_URL, else scripts/postgres/start.sh's URL) and writes each
 * XLogData payload the server streams (hex) to test/fixtures/pgoutput-capture.json.
 *
 *   npx tsx scripts/postgres-cdc/capture-pgoutput.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const url = process.env.POSTGRES_URL ?? readFileSync(join(root, '.postgres', 'url'), 'utf8').trim();
const SLOT = 'capture_pgoutput';
const PUBLICATION = 'capture_pgoutput';

const setup = `
DROP TABLE IF EXISTS capture_items, capture_full;
DROP TYPE IF EXISTS capture_mood;
CREATE TYPE capture_mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE capture_items (id int PRIMARY KEY, name text NOT NULL, mood capture_mood,
  price numeric(10,2), payload bytea, tags text[], big text);
CREATE TABLE capture_full (k int, v text);
ALTER TABLE capture_full REPLICA IDENTITY FULL;
DROP PUBLICATION IF EXISTS ${PUBLICATION};
CREATE PUBLICATION ${PUBLICATION} FOR TABLE capture_items, capture_full;
`;

/** Each scenario runs in its own transaction(s); its messages are captured separately. */
const scenarios: Record<string, string> = {
  insert: `INSERT INTO capture_items VALUES (1, 'one', 'happy', 12.50, '\\x0102', '{a,"b c",NULL}', NULL)`,
  updateDefaultIdentity: `UPDATE capture_items SET name = 'uno' WHERE id = 1`,
  updateKeyChange: `UPDATE capture_items SET id = 2 WHERE id = 1`,
  unchangedToast: `UPDATE capture_items SET big = (SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 400)) WHERE id = 2;
    UPDATE capture_items SET name = 'dos' WHERE id = 2`,
  deleteDefaultIdentity: `DELETE FROM capture_items WHERE id = 2`,
  replicaIdentityFull: `INSERT INTO capture_full VALUES (7, 'x'); UPDATE capture_full SET v = 'y';
    DELETE FROM capture_full`,
  truncate: `TRUNCATE capture_items, capture_full`,
  message: `SELECT pg_logical_emit_message(true, 'capture', 'hello')`,
};

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(
    `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${SLOT}'`,
  );
  await admin.query(setup);
  const replication = new pg.Client({
    connectionString: url,
    replication: 'database',
  } as pg.ClientConfig);
  await replication.connect();
  const created = await replication.query(`CREATE_REPLICATION_SLOT ${SLOT} LOGICAL pgoutput`);
  const start = String(created.rows[0]?.consistent_point);
  const captured: Record<string, string[]> = {};
  let current: string[] = [];
  const connection = (replication as unknown as { connection: NodeJS.EventEmitter }).connection;
  connection.on('copyData', (message: { chunk: Buffer }) => {
    // 'w' XLogData: 1 + 8 (start) + 8 (end) + 8 (time) header bytes, then the pgoutput message.
    if (message.chunk[0] === 0x77) current.push(message.chunk.subarray(25).toString('hex'));
  });
  const streaming = replication.query(
    `START_REPLICATION SLOT ${SLOT} LOGICAL ${start} (proto_version '1', publication_names '${PUBLICATION}', messages 'true')`,
  );
  const settle = () => new Promise((resolve) => setTimeout(resolve, 500));
  for (const [name, sql] of Object.entries(scenarios)) {
    current = [];
    await admin.query(sql);
    await settle();
    captured[name] = current;
  }
  (connection as unknown as { endCopyFrom(): void }).endCopyFrom();
  await streaming;
  await replication.end();
  await admin.query(`SELECT pg_drop_replication_slot('${SLOT}')`);
  await admin.query(
    `DROP PUBLICATION ${PUBLICATION}; DROP TABLE capture_items, capture_full; DROP TYPE capture_mood`,
  );
  const version = (await admin.query('SHOW server_version')).rows[0]?.server_version;
  await admin.end();
  const out = join(root, 'test', 'fixtures', 'pgoutput-capture.json');
  writeFileSync(
    out,
    `${JSON.stringify({ serverVersion: version, protoVersion: 1, scenarios, captured }, null, 2)}\n`,
  );
  console.log(`wrote ${out}`);
}

await main();
