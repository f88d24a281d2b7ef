/**
 * The connector test kit's checks (serverless-connect/testkit) against the real PostgreSQL
 * server, with the strictest guarantee: insert.mode=insert without a key, so a record written
 * twice would be two rows.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { SinkRecord } from '../../../shared/connect/index.js';
import { PostgresPools } from '../../../shared/plugins/connectors/postgres/pg-client.js';
import { pgPoolOf } from '../../../shared/plugins/connectors/postgres/pg-pool.js';
import { PostgresSinkConnector } from '../../../shared/plugins/connectors/postgres-sink/postgres-sink-connector.js';
import { type SinkConnectorSubject, sinkConnectorChecks } from '../../../shared/testkit/index.js';
import { uniqueName } from '../../support/services.js';

const TABLE = uniqueName('kit').replaceAll('-', '_');
const NAME = uniqueName('pg-sink-kit');
let db: pg.Client;

beforeAll(async () => {
  db = new pg.Client({ connectionString: inject('postgresUrl') });
  await db.connect();
});

afterAll(async () => {
  await db.end();
});

/** A fresh world: the table empty and created (auto.create is off), no stored offsets. */
async function world() {
  await db.query(`DROP TABLE IF EXISTS "${TABLE}"`);
  await db.query(`CREATE TABLE "${TABLE}" (topic TEXT, part INTEGER, seq BIGINT)`);
  await db.query(
    'CREATE TABLE IF NOT EXISTS __connect_offsets (connector TEXT NOT NULL, topic TEXT NOT NULL, kafka_partition INTEGER NOT NULL, next_offset BIGINT NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (connector, topic, kafka_partition))',
  );
  await db.query('DELETE FROM __connect_offsets WHERE connector = $1', [NAME]);
  // Real pools, whose connections can be made to fail from a point on (injectFailure).
  const state = { unreachable: false };
  const pools = new PostgresPools((settings, max) => {
    const pool = pgPoolOf(settings, max);
    return {
      connect: () =>
        state.unreachable
          ? Promise.reject(new Error('connect ECONNREFUSED (injected): the server is gone'))
          : pool.connect(),
      end: () => pool.end(),
    };
  });
  return {
    state,
    connector: () => new PostgresSinkConnector({ pools }),
    read: async () =>
      (await db.query(`SELECT topic, part, seq::int AS seq FROM "${TABLE}"`)).rows.map((r) => ({
        ...r,
      })),
  };
}

const url = () => {
  const u = new URL(inject('postgresUrl'));
  return `jdbc:postgresql://${u.host}${u.pathname}?user=${u.username}&password=${u.password}`;
};

const subject = (): SinkConnectorSubject<Awaited<ReturnType<typeof world>>> => ({
  validConfig: {
    name: NAME,
    topics: 'orders,refunds',
    'connection.url': url(),
    'table.name.format': TABLE,
    'batch.size': '3',
  },
  invalidConfigs: [
    {
      config: { name: NAME, topics: 'orders', 'connection.url': url(), 'pk.mode': 'nope' },
      field: 'pk.mode',
    },
    {
      config: { name: NAME, topics: 'orders', 'connection.url': 'jdbc:mysql://h/db' },
      field: 'connection.url',
    },
    {
      config: { name: NAME, topics: 'orders', 'connection.url': url(), 'insert.mode': 'upsert' },
      field: 'insert.mode',
    },
  ],
  setUp: world,
  guarantee: 'exactly-once',
  topicPartitions: [
    { topic: 'orders', partition: 0 },
    { topic: 'orders', partition: 1 },
    { topic: 'refunds', partition: 0 },
  ],
  record: (tp, offset) =>
    new SinkRecord({
      topic: tp.topic,
      kafkaPartition: tp.partition,
      kafkaOffset: offset,
      key: null,
      value: { topic: tp.topic, part: tp.partition, seq: offset },
    }),
  injectFailure: (fixture) => {
    fixture.state.unreachable = true;
    return { cause: 'the server is gone' };
  },
});

describe('PostgreSQL sink connector (connector test kit, real server)', () => {
  for (const check of sinkConnectorChecks(subject())) it(check.name, () => check.run());
});
