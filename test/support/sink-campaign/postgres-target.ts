/**
 * The PostgreSQL sink under test, on the project's PostgreSQL server: `insert.mode=insert` into a
 * table without a key, so a record written twice is two rows. Each partition's rows and offset
 * commit in one transaction; the crash points sit just before and just after that COMMIT.
 */
import pg from 'pg';
import type { PluginDescriptor } from '../../../shared/connect/plugin.js';
import {
  type PgClient,
  type PgPool,
  PostgresPools,
} from '../../../shared/plugins/connectors/postgres/pg-client.js';
import { pgPoolOf } from '../../../shared/plugins/connectors/postgres/pg-pool.js';
import { PostgresSinkConnector } from '../../../shared/plugins/connectors/postgres-sink/postgres-sink-connector.js';
import type { KafkaClientFactory } from '../../../shared/ports/kafka.js';
import type { Faults } from './faults.js';
import { type CampaignServices, countIds, type SinkContainer, type SinkTarget } from './target.js';

/** The PostgreSQL sink over the campaign's pools, beside the built-in one. */
const POSTGRES_SINK_CLASS = 'test.campaign.PostgresSinkConnector';

/** `inner`, its connections crashing before or after a COMMIT where `faults` says. */
function faultyPool(inner: PgPool, faults: Faults): PgPool {
  return {
    async connect() {
      const client = await inner.connect();
      const send = client.query.bind(client) as (query: unknown, values?: unknown[]) => unknown;
      const query = async (text: unknown, values?: unknown[]) => {
        const commit = text === 'COMMIT';
        if (commit) faults.hit('client', 'before PostgreSQL COMMIT');
        const result = await send(text, values);
        if (commit) faults.hit('client', 'after PostgreSQL COMMIT');
        return result;
      };
      return {
        query: query as PgClient['query'],
        release: (error) => client.release(error),
      };
    },
    end: () => inner.end(),
  };
}

/** The crash steps of the sink's connections: just before and just after each COMMIT. */
export const POSTGRES_CLIENT_STEPS: readonly string[] = [
  'before PostgreSQL COMMIT',
  'after PostgreSQL COMMIT',
];

/**
 * What one container's engine gets for a PostgreSQL sink target: the sink over pools of its own
 * (a container's), whose connections crash around COMMIT where `faults` says.
 */
export function postgresSinkContainer(faults: Faults, kafka: KafkaClientFactory): SinkContainer {
  const containerPools = new PostgresPools((settings, max) =>
    faultyPool(pgPoolOf(settings, max), faults),
  );
  const deps = { pools: containerPools };
  const postgresSink: PluginDescriptor<'sink'> = {
    className: POSTGRES_SINK_CLASS,
    aliases: [],
    type: 'sink',
    version: new PostgresSinkConnector(deps).version(),
    create: () => new PostgresSinkConnector(deps),
  };
  return { kafka, plugins: [postgresSink], sinkClass: POSTGRES_SINK_CLASS };
}

/** Creates the table `name` (and the sink's offsets table) and the target writing to it. */
export async function createPostgresTarget(
  services: CampaignServices,
  name: string,
): Promise<SinkTarget & { readonly table: string }> {
  const url = services.postgresUrl;
  if (url === undefined) throw new Error('the PostgreSQL sink campaign needs a PostgreSQL URL');
  const table = name.replaceAll('-', '_');
  const offsetsTable = `${table}_offsets`;
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  await db.query(
    `CREATE TABLE "${table}" (id TEXT NOT NULL, partition INTEGER NOT NULL, seq INTEGER NOT NULL, text TEXT)`,
  );
  return {
    name: 'postgres',
    table,
    clientSteps: POSTGRES_CLIENT_STEPS,
    config: {
      'connection.url': url,
      'table.name.format': table,
      'insert.mode': 'insert',
      'pk.mode': 'none',
      'offsets.table.name': offsetsTable,
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
    },
    container: postgresSinkContainer,
    async readOutput(input) {
      const { rows } = await db.query(`SELECT id, partition, seq FROM "${table}"`);
      const seen = rows.map((row) => String(row.id));
      const counted = countIds(input, seen);
      const expected = new Map(input.flat().map((r) => [r.id, r]));
      const misplaced = rows.filter((row) => {
        const record = expected.get(String(row.id));
        return (
          record !== undefined &&
          (Number(row.seq) !== record.seq || Number(row.partition) !== record.partition)
        );
      }).length;
      return {
        duplicates: counted.duplicates,
        losses: counted.losses,
        anomalies: counted.unknown + misplaced,
        records: rows.length,
        examples: counted.examples,
      };
    },
    async close() {
      await db.end();
    },
  };
}
