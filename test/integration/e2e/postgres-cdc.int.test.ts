/**
 * The PostgreSQL CDC source through the whole local runtime (REST API, enumerator, source
 * invocations of 5 s, the exactly-once protocol, the real broker) from the real PostgreSQL server,
 * read back read_committed as a Debezium consumer reads it.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseLsn } from '../../../shared/plugins/connectors/postgres-cdc/lsn.js';
import { dropCdcObjects } from '../../support/postgres-cdc-harness.js';
import { readTopicRecords } from '../../support/topic-reader.js';
import {
  connectorPath,
  type E2eRuntime,
  eventually,
  lastLogs,
  sleep,
  startE2eRuntime,
  uniqueName,
} from './support.js';

const PASSWORD_VARIABLE = 'E2E_POSTGRES_CDC_PASSWORD';
const decoder = new TextDecoder();

interface JsonEnvelope {
  schema: { name: string };
  payload: {
    op: string;
    before: Record<string, unknown> | null;
    after: Record<string, unknown> | null;
    source: Record<string, unknown>;
  };
}

describe('postgres-cdc under the local runtime (real broker, real PostgreSQL)', {
  timeout: 180_000,
}, () => {
  let e2e: E2eRuntime;
  let db: pg.Client;
  /** What a failed test leaves behind (a slot holds WAL): dropped at the end. */
  const leftovers = { slots: [] as string[], publications: [] as string[], tables: [] as string[] };

  beforeAll(async () => {
    e2e = await startE2eRuntime();
    db = new pg.Client({ connectionString: inject('postgresUrl') });
    await db.connect();
  });

  afterAll(async () => {
    await e2e?.close();
    if (db !== undefined) await dropCdcObjects(db, leftovers);
    await db?.end();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(lastLogs(e2e));
  });

  it('streams a snapshot and changes over several invocations into Debezium topics exactly once, and DELETE offsets drops the slot', async () => {
    // Prepare: a table with two rows; a Debezium PostgreSQL connector config.
    const id = uniqueName('cdc_e2e').replaceAll('-', '_').toLowerCase();
    const table = `${id}_orders`;
    const slot = `${id}_slot`;
    leftovers.slots.push(slot);
    leftovers.publications.push(`${id}_pub`);
    leftovers.tables.push(table);
    await db.query(`CREATE TABLE ${table} (id int PRIMARY KEY, qty int NOT NULL, note text)`);
    await db.query(`INSERT INTO ${table} VALUES (1, 1, 'one'), (2, 2, 'two')`);
    const url = new URL(inject('postgresUrl'));
    process.env[PASSWORD_VARIABLE] = decodeURIComponent(url.password);
    const name = uniqueName('pg-cdc');
    const config = {
      'connector.class': 'io.debezium.connector.postgresql.PostgresConnector',
      'plugin.name': 'pgoutput',
      'database.hostname': url.hostname,
      'database.port': url.port,
      'database.user': decodeURIComponent(url.username),
      'database.password': `\${env:${PASSWORD_VARIABLE}}`,
      'database.dbname': url.pathname.slice(1),
      'topic.prefix': id,
      'slot.name': slot,
      'publication.name': `${id}_pub`,
      'publication.autocreate.mode': 'filtered',
      'table.include.list': `public.${table}`,
      'key.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'exactly.once.support': 'required',
      'topic.creation.default.partitions': '1',
      'topic.creation.default.replication.factor': '1',
    };
    const topic = `${id}.public.${table}`;
    const { http } = e2e;

    // Act: create; change rows across invocations (each ends after 5 s).
    const created = await http('PUT', connectorPath(name, '/config'), config);
    const committedLsn = async () => {
      const { body } = await http('GET', connectorPath(name, '/offsets'));
      return (body?.offsets ?? []) as { partition: unknown; offset: Record<string, unknown> }[];
    };
    await eventually(committedLsn, (o) => o.length === 1, 60_000, 'the snapshot offsets');
    await db.query(`INSERT INTO ${table} VALUES (3, 3, 'three')`);
    await db.query(`UPDATE ${table} SET qty = 20 WHERE id = 2`);
    await db.query(`UPDATE ${table} SET id = 4 WHERE id = 3`);
    await sleep(6_000);
    await db.query(`DELETE FROM ${table} WHERE id = 1`);
    await db.query(
      `BEGIN; INSERT INTO ${table} SELECT i, i, 'bulk' FROM generate_series(10, 59) i; COMMIT`,
    );
    const records = await readTopicRecords(topic, 2 + 2 + 3 + 2 + 50, 2_000);
    const offsets = await eventually(
      committedLsn,
      (o) =>
        o.length === 1 && o[0]?.offset.snapshot === undefined && Number(o[0]?.offset.event) === 49,
      30_000,
      'the offsets after the bulk insert',
    );
    const events = records.map((r) => {
      const key = JSON.parse(decoder.decode(r.key ?? new Uint8Array())).payload as { id: number };
      if (r.value === null) return `tombstone:${key.id}`;
      const value = JSON.parse(decoder.decode(r.value)) as JsonEnvelope;
      return `${value.payload.op}:${key.id}`;
    });
    const insert = JSON.parse(
      decoder.decode(records[2]?.value ?? new Uint8Array()),
    ) as JsonEnvelope;
    const slotRow = await db.query(
      'SELECT confirmed_flush_lsn::text AS lsn FROM pg_replication_slots WHERE slot_name = $1',
      [slot],
    );

    // Stop, reset: the slot goes.
    expect((await http('PUT', connectorPath(name, '/stop'))).status).toBe(204);
    await eventually(
      async () => (await http('GET', connectorPath(name, '/status'))).body.connector.state,
      (s) => s === 'STOPPED',
      20_000,
      'STOPPED',
    );
    const reset = await eventually(
      async () => await http('DELETE', connectorPath(name, '/offsets')),
      (r) => r.status === 200,
      30_000,
      'the reset',
    );
    const slotsLeft = await db.query('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1', [
      slot,
    ]);
    expect((await http('DELETE', connectorPath(name))).status).toBe(204);

    // Assess
    expect(created.status).toBe(201);
    expect(events).toEqual([
      'r:1',
      'r:2',
      'c:3',
      'u:2',
      'd:3',
      'tombstone:3',
      'c:4',
      'd:1',
      'tombstone:1',
      ...Array.from({ length: 50 }, (_, i) => `c:${10 + i}`),
    ]);
    const oldKey = records[6]?.headers.find((h) => h.key === '__debezium.oldkey');
    expect(decoder.decode(oldKey?.value ?? new Uint8Array())).toMatch(/\bid\b.*3/);
    expect(insert.schema.name).toBe(`${topic}.Envelope`);
    expect(insert.payload.after).toEqual({ id: 3, qty: 3, note: 'three' });
    expect(insert.payload.source).toMatchObject({
      connector: 'postgresql',
      name: id,
      table,
      schema: 'public',
    });
    expect(offsets[0]?.partition).toEqual({ server: id });
    // The slot is never confirmed past the committed offset (it catches up at each invocation's end).
    expect(parseLsn(String(slotRow.rows[0]?.lsn))).toBeLessThanOrEqual(
      BigInt(Number(offsets[0]?.offset.lsn_commit)),
    );
    expect(parseLsn(String(slotRow.rows[0]?.lsn))).toBeGreaterThan(0n);
    expect(reset.body.message).toContain('reset');
    expect(slotsLeft.rows).toEqual([]);
  });
});
