import pg from 'pg';
import type { PluginDescriptor } from '../shared/connect/plugin.js';
import { PostgresPools } from '../shared/plugins/connectors/postgres/pg-client.js';
import { pgPoolOf } from '../shared/plugins/connectors/postgres/pg-pool.js';
import { PostgresSinkConnector } from '../shared/plugins/connectors/postgres-sink/postgres-sink-connector.js';
import { insertStatement } from '../shared/plugins/connectors/postgres-sink/sql.js';
import type { BenchServices } from './services.js';
import { prepareSinkBench, timedSinkDescriptor } from './sink-runner.js';

/**
 * `postgres-sink`: the PostgreSQL sink (insert.mode=insert, pk.mode=none, schemaless JSON values
 * into an existing table: per partition and ESM batch one transaction that locks the offsets
 * row, inserts the rows in multi-row statements and moves the offset) through the sink runtime,
 * vs a bare `pg` client inserting the same rows with the same multi-row INSERT, one statement
 * per partition and batch (autocommit). 2 partitions, 2,000 records of ~200 bytes per round in
 * ESM batches of 500, the project's PostgreSQL server.
 */
const PARTITIONS = 2;
const PER_ROUND = 2_000;
const BATCH = 500;
const COLUMNS = ['id', 'partition', 'seq', 'text'];

const decoder = new TextDecoder();

export async function run(services: BenchServices): Promise<void> {
  const [bench, postgres] = await Promise.all([
    prepareSinkBench(services, {
      name: 'postgres-sink',
      partitions: PARTITIONS,
      perRound: PER_ROUND,
      batch: BATCH,
    }),
    services.postgres(),
  ]);
  const oursTable = `${bench.prefix}-ours`.replaceAll('-', '_');
  const baselineTable = `${bench.prefix}-baseline`.replaceAll('-', '_');
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  for (const table of [oursTable, baselineTable]) {
    await client.query(
      `CREATE TABLE "${table}" (id TEXT, partition INTEGER, seq BIGINT, text TEXT)`,
    );
  }

  const pools = new PostgresPools(pgPoolOf);
  const postgresSink: PluginDescriptor<'sink'> = {
    className: 'bench.PostgresSink',
    aliases: [],
    type: 'sink',
    version: new PostgresSinkConnector({ pools }).version(),
    create: () => new PostgresSinkConnector({ pools }),
  };
  const engine = bench.container({
    plugins: [timedSinkDescriptor(postgresSink, 'bench.TimedPostgresSinkConnector', bench.timings)],
  });
  const connector = `${bench.prefix}-ours`;
  const url = new URL(postgres.url);
  await bench.createConnector(connector, {
    name: connector,
    'connector.class': 'bench.TimedPostgresSinkConnector',
    topics: bench.topic,
    'connection.url': `jdbc:postgresql://${url.host}${url.pathname}`,
    'connection.user': decodeURIComponent(url.username),
    'connection.password': decodeURIComponent(url.password),
    'table.name.format': oursTable,
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
    'value.converter.schemas.enable': 'false',
  });
  // The baseline's statements, built before timing: per batch, one per partition.
  const statements = bench.slices.map((slice) =>
    slice.batches.map((batch) => {
      const byPartition = new Map<number, unknown[][]>();
      for (const record of batch) {
        const value = JSON.parse(decoder.decode(record.value ?? new Uint8Array())) as Record<
          string,
          unknown
        >;
        const rows = byPartition.get(record.partition) ?? [];
        rows.push(COLUMNS.map((c) => value[c]));
        byPartition.set(record.partition, rows);
      }
      return [...byPartition.values()].map((rows) =>
        insertStatement({ schema: null, table: baselineTable }, COLUMNS, rows),
      );
    }),
  );

  try {
    await bench.compare(
      async () => bench.runOurs(engine, connector, bench.nextSlice('ours')),
      async (slice, batch) => {
        for (const statement of statements[slice.index]?.[batch] ?? []) {
          await client.query(statement.text, [...statement.values]);
        }
      },
    );
  } finally {
    await bench.close();
    await client.end();
  }
}
