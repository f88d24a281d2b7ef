import pg from 'pg';
import { ChangeStream } from '../shared/plugins/connectors/postgres-cdc/change-stream.js';
import { postgresCdcDescriptor } from '../shared/plugins/connectors/postgres-cdc/descriptor.js';
import { standbyStatusUpdate } from '../shared/plugins/connectors/postgres-cdc/replication-protocol.js';
import { ReplicationStream } from '../shared/plugins/connectors/postgres-cdc/replication-stream.js';
import { benchRounds } from './harness.js';
import { preparePostgresSourceBench } from './postgres-source-runner.js';
import type { BenchServices } from './services.js';
import type { Timings } from './timings.js';

/**
 * `postgres-cdc`: the time to deliver committed changes to Kafka. Before timing, rows are
 * inserted into one table in transactions of {@link TX_ROWS} rows (an order and its lines),
 * enough for every round; both sides read the same WAL from slots of their own, created first.
 *
 * Ours: `postgres-cdc` (pgoutput, `snapshot.mode=no_data`, the default `max.batch.size`,
 * JsonConverter with schemas as Debezium's consumers read it) through the exactly-once source
 * runtime (bench/postgres-source-runner.ts): each round one invocation that starts the task (its
 * connections, catalog reads, START_REPLICATION), streams until {@link ROWS} change records were
 * committed to Kafka in the runtime's transactions (read back read_committed at the end), then
 * confirms the slot and stops.
 *
 * Baseline, the protocol's floor: a bare `pg` logical replication client (`replication:
 * 'database'`) doing what any reader of these changes must: connect, `START_REPLICATION SLOT …
 * LOGICAL 0/0 (proto_version '1', publication_names …)` on its own slot, count the XLogData
 * messages (the inserts) until the commits of {@link ROWS} rows arrived, sending a standby status
 * update every {@link STATUS_EVERY} messages (and whenever a keepalive asks), confirm the last
 * commit, CopyDone, close. No decoding into values, no Kafka: what remains of ours over it is the
 * connector's and the runtime's cost.
 *
 * Where ours' time goes: the steps' totals (the task's start, polls, commit and stop; inside the
 * polls the wait for WAL and the decoding of pgoutput into change records; the conversion; the
 * Kafka transaction steps; the state writes). The next batch is polled and converted while the
 * current one is sent, so the steps overlap and their totals add up to more than the invocation.
 */
const ROWS = 10_000;
const TX_ROWS = 10;
/** Messages between the floor's status updates (ours confirms once per poll of up to 2048). */
const STATUS_EVERY = 2048;

/** node-postgres's connection internals that CopyBoth needs (as replication-stream.ts uses them). */
interface Wire {
  on(event: 'copyData', listener: (message: { chunk: Buffer }) => void): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

const XLOGDATA = 0x77;
const KEEPALIVE = 0x6b;
const INSERT = 0x49;
const COMMIT = 0x43;
/** Where a pgoutput message starts in an XLogData message ('w', start, end, clock). */
const PAYLOAD = 25;

/** The floor (see the module notes): the rows of the next `commits` transactions in `slot`. */
async function bareRead(
  url: string,
  slot: string,
  publication: string,
  commits: number,
): Promise<number> {
  const client = new pg.Client({
    connectionString: url,
    replication: 'database',
  } as pg.ClientConfig);
  await client.connect();
  const wire = (client as unknown as { connection: Wire }).connection;
  let rows = 0;
  let seen = 0;
  let confirmed = 0n;
  let sinceStatus = 0;
  const status = () =>
    wire.sendCopyFromChunk(Buffer.from(standbyStatusUpdate(confirmed, BigInt(Date.now()) * 1000n)));
  try {
    const done = new Promise<void>((resolve) => {
      wire.on('copyData', ({ chunk }) => {
        if (chunk[0] === KEEPALIVE) {
          if (chunk[17] === 1) status();
          return;
        }
        // What arrives after the last commit (before CopyDone) is the next round's.
        if (chunk[0] !== XLOGDATA || seen === commits) return;
        const tag = chunk[PAYLOAD];
        if (tag === INSERT) rows += 1;
        else if (tag === COMMIT) {
          // Commit: tag, flags, the commit's LSN, then its end LSN (what the slot confirms).
          confirmed = chunk.readBigUInt64BE(PAYLOAD + 1 + 1 + 8);
          seen += 1;
          if (seen === commits) resolve();
        }
        sinceStatus += 1;
        if (sinceStatus >= STATUS_EVERY) {
          sinceStatus = 0;
          status();
        }
      });
    });
    const streaming = client.query(
      `START_REPLICATION SLOT ${slot} LOGICAL 0/0 (proto_version '1', publication_names '${publication}')`,
    );
    const failed = streaming.then(() => {
      throw new Error('the replication stream ended early');
    });
    await Promise.race([done, failed]);
    status();
    wire.endCopyFrom();
    await streaming;
  } finally {
    await client.end();
  }
  if (rows !== commits * TX_ROWS)
    throw new Error(`the floor read ${rows} of ${commits * TX_ROWS} rows`);
  return rows;
}

/** Times, in every task, the wait for WAL and the decoding of pgoutput into change records. */
function timeCdcInternals(timings: Timings): () => void {
  const wait = ReplicationStream.prototype.waitForMessages;
  const process = ChangeStream.prototype.process;
  ReplicationStream.prototype.waitForMessages = function (ms) {
    return timings.time('cdc wait for WAL', () => wait.call(this, ms));
  };
  ChangeStream.prototype.process = function (messages) {
    return timings.time('cdc decode', () => process.call(this, messages));
  };
  return () => {
    ReplicationStream.prototype.waitForMessages = wait;
    ChangeStream.prototype.process = process;
  };
}

export async function run(services: BenchServices): Promise<void> {
  const rounds = benchRounds();
  const className = 'bench.TimedPostgresCdcSourceConnector';
  const bench = await preparePostgresSourceBench(services, {
    name: 'postgres-cdc',
    plugin: postgresCdcDescriptor,
    className,
    perRound: ROWS,
  });
  const id = bench.prefix.replaceAll('-', '_');
  const table = `${id}_orders`;
  const publication = `${id}_pub`;
  const slots = { ours: `${id}_ours`, floor: `${id}_floor` };
  const { db } = bench;
  await db.query(
    `CREATE TABLE ${table} (id bigint PRIMARY KEY, order_id bigint NOT NULL, customer text NOT NULL,
      sku text NOT NULL, qty integer NOT NULL, price numeric(10,2) NOT NULL, note text,
      created_at timestamptz NOT NULL DEFAULT now())`,
  );
  await db.query(`CREATE PUBLICATION ${publication} FOR TABLE ${table}`);
  for (const slot of Object.values(slots)) {
    await db.query(`SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, [slot]);
  }
  // The warm-up round of each side, the timed rounds, and two more for ours, whose invocations
  // end at the first poll that reaches ROWS records (a little past it).
  const total = (rounds + 3) * ROWS;
  await db.query(
    `DO $$ BEGIN FOR t IN 0..${total / TX_ROWS - 1} LOOP
       INSERT INTO ${table} (id, order_id, customer, sku, qty, price, note)
       SELECT t * ${TX_ROWS} + i, t, 'customer-' || (t % 997), 'SKU-' || lpad((i * 7919 % 10000)::text, 5, '0'),
              1 + i % 5, (i * 3.17)::numeric(10,2), repeat('n', 60)
       FROM generate_series(1, ${TX_ROWS}) AS i;
       COMMIT;
     END LOOP; END $$`,
  );
  const topic = `${id}.public.${table}`;
  await bench.engine.admin.createTopics([{ topic, partitions: 1 }]);
  const connector = `${bench.prefix}-ours`;
  await bench.createConnector({
    name: connector,
    'connector.class': className,
    ...bench.connection,
    'topic.prefix': id,
    'slot.name': slots.ours,
    'publication.name': publication,
    'publication.autocreate.mode': 'disabled',
    'table.include.list': `public.${table}`,
    'snapshot.mode': 'no_data',
    'key.converter.schemas.enable': 'false',
    'value.converter.schemas.enable': 'false',
  });

  const restore = timeCdcInternals(bench.timings);
  try {
    await bench.compare({
      connector,
      topic,
      baseline: () => bareRead(bench.url, slots.floor, publication, ROWS / TX_ROWS),
      uniqueKeys: true,
    });
  } finally {
    restore();
    for (const slot of Object.values(slots)) {
      await db
        .query('SELECT pg_drop_replication_slot($1)', [slot])
        .catch((error) => console.error(`postgres-cdc: slot ${slot} not dropped:`, error));
    }
    await db.query(`DROP PUBLICATION IF EXISTS ${publication}`);
    await db.query(`DROP TABLE IF EXISTS ${table}`);
    await bench.close();
  }
}
