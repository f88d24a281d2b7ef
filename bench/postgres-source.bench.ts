import pg from 'pg';
import { postgresSourceDescriptor } from '../shared/plugins/connectors/postgres-source/descriptor.js';
import { benchRounds } from './harness.js';
import { preparePostgresSourceBench } from './postgres-source-runner.js';
import type { BenchServices } from './services.js';

/**
 * `postgres-source`: reading a table's new rows into Kafka. Before timing, one table gets enough
 * rows for every round (an `id bigint` key, seven columns, ~150 bytes a row).
 *
 * Ours: `postgres-source` in `incrementing` mode on `id`, `batch.max.rows` {@link BATCH},
 * JsonConverter without schemas, through the exactly-once source runtime
 * (bench/postgres-source-runner.ts): each round one invocation that starts the task (its pool,
 * the column check, the committed offset), polls {@link ROWS} rows, one keyset-paged SELECT per
 * poll and one Kafka transaction per poll with the rows' offsets, and stops.
 *
 * Baseline: a bare `pg` client doing the same reads: connect, then `SELECT * FROM t WHERE id > $1
 * ORDER BY id ASC LIMIT $2` (the statement the connector sends) page after page from where its
 * previous round stopped until {@link ROWS} rows were read, with node-postgres's default row
 * parsing, then close. No Kafka: what remains of ours over it is the connector's conversion of
 * rows into records and the runtime's exactly-once delivery.
 */
const ROWS = 10_000;
const BATCH = 500;

export async function run(services: BenchServices): Promise<void> {
  const rounds = benchRounds();
  const className = 'bench.TimedPostgresSourceConnector';
  const bench = await preparePostgresSourceBench(services, {
    name: 'postgres-source',
    plugin: postgresSourceDescriptor,
    className,
    perRound: ROWS,
  });
  const table = `${bench.prefix.replaceAll('-', '_')}_orders`;
  const { db } = bench;
  await db.query(
    `CREATE TABLE ${table} (id bigint PRIMARY KEY, order_id bigint NOT NULL, customer text NOT NULL,
      sku text NOT NULL, qty integer NOT NULL, price numeric(10,2) NOT NULL, note text,
      created_at timestamptz NOT NULL DEFAULT now())`,
  );
  // The warm-up round of each side and the timed rounds.
  const total = (rounds + 1) * ROWS;
  await db.query(
    `INSERT INTO ${table} (id, order_id, customer, sku, qty, price, note)
     SELECT i, i / 10, 'customer-' || (i % 997), 'SKU-' || lpad((i * 7919 % 10000)::text, 5, '0'),
            1 + i % 5, (i * 3.17 % 1000)::numeric(10,2), repeat('n', 60)
     FROM generate_series(1, ${total}) AS i`,
  );
  await db.query(`VACUUM ANALYZE ${table}`);
  const topicPrefix = `${bench.prefix}-`;
  const topic = `${topicPrefix}${table}`;
  await bench.engine.admin.createTopics([{ topic, partitions: 1 }]);
  const connector = `${bench.prefix}-ours`;
  await bench.createConnector({
    name: connector,
    'connector.class': className,
    ...bench.connection,
    mode: 'incrementing',
    'incrementing.column.name': 'id',
    'table.whitelist': table,
    'topic.prefix': topicPrefix,
    'batch.max.rows': String(BATCH),
    'key.converter.schemas.enable': 'false',
    'value.converter.schemas.enable': 'false',
  });

  let after = 0;
  const bareRound = async () => {
    const client = new pg.Client({ connectionString: bench.url });
    await client.connect();
    let read = 0;
    try {
      while (read < ROWS) {
        const { rows } = await client.query<{ id: string }>(
          `SELECT * FROM "public"."${table}" WHERE "id" > $1 ORDER BY "id" ASC LIMIT $2`,
          [after, BATCH],
        );
        if (rows.length === 0) throw new Error(`the baseline ran out of rows after ${read}`);
        read += rows.length;
        after = Number(rows[rows.length - 1]?.id);
      }
    } finally {
      await client.end();
    }
    return read;
  };

  try {
    // Its records have no key.
    await bench.compare({ connector, topic, baseline: bareRound, uniqueKeys: false });
  } finally {
    await db.query(`DROP TABLE IF EXISTS ${table}`);
    await bench.close();
  }
}
