/**
 * The connector test kit's source checks (serverless-connect/testkit) against the real
 * PostgreSQL server, in timestamp+incrementing and in timestamp mode, over three tables with runs
 * of equal timestamps longer than a batch, split over two tasks, so that batches and random
 * stops fall inside runs.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import type { SourceRecord, Struct } from '../../../shared/connect/index.js';
import { PostgresPools } from '../../../shared/plugins/connectors/postgres/pg-client.js';
import { pgPoolOf } from '../../../shared/plugins/connectors/postgres/pg-pool.js';
import { PostgresSourceConnector } from '../../../shared/plugins/connectors/postgres-source/postgres-source-connector.js';
import {
  type SourceConnectorSubject,
  sourceConnectorChecks,
} from '../../../shared/testkit/index.js';
import { connectionProps, sqlName } from './postgres-source-harness.js';

const SCHEMA = sqlName('kit');
const TABLES = ['orders', 'refunds', 'returns'];
const ROWS = 14;
let db: pg.Client;

beforeAll(async () => {
  db = new pg.Client({ connectionString: inject('postgresUrl') });
  await db.connect();
});

afterAll(async () => {
  await db.end();
});

/** A fresh world: the same tables and rows every time (timestamps in runs of five, batches of four). */
async function world() {
  await db.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await db.query(`CREATE SCHEMA ${SCHEMA}`);
  for (const table of TABLES) {
    await db.query(
      `CREATE TABLE ${SCHEMA}.${table} (id int PRIMARY KEY, at timestamptz NOT NULL, v text)`,
    );
    await db.query(
      `INSERT INTO ${SCHEMA}.${table} SELECT g, '2024-01-01Z'::timestamptz + (g / 5) * interval '1 minute', '${table}' FROM generate_series(1, ${ROWS}) g`,
    );
  }
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
    connector: () => new PostgresSourceConnector({ pools, clock: { now: () => Date.now() } }),
  };
}

const valid = (mode = 'timestamp+incrementing') => ({
  name: 'pg-source-kit',
  ...connectionProps(),
  mode,
  'timestamp.column.name': 'at',
  'incrementing.column.name': 'id',
  'schema.pattern': SCHEMA,
  'batch.max.rows': '4',
  'poll.interval.ms': '0',
});

const subject = (mode?: string): SourceConnectorSubject<Awaited<ReturnType<typeof world>>> => ({
  validConfig: valid(mode),
  invalidConfigs: [
    { config: { ...valid(), mode: 'sometimes' }, field: 'mode' },
    {
      config: { ...valid(), mode: 'timestamp', 'timestamp.column.name': '' },
      field: 'timestamp.column.name',
    },
    { config: { ...valid(), query: 'SELECT 1', 'table.whitelist': 'orders' }, field: 'query' },
    { config: { ...valid(), 'connection.url': 'jdbc:mysql://h/db' }, field: 'connection.url' },
  ],
  setUp: world,
  identity: (record: SourceRecord) => `${record.topic}:${(record.value as Struct).get('id')}`,
  exactlyOnceSupport: 'SUPPORTED',
  transactionBoundaries: 'UNSUPPORTED',
  injectFailure: (fixture) => {
    fixture.state.unreachable = true;
    return { cause: 'the server is gone' };
  },
});

describe('PostgreSQL source connector (connector test kit, real server)', () => {
  for (const check of sourceConnectorChecks(subject())) it(check.name, () => check.run());
});

describe('PostgreSQL source connector in timestamp mode (connector test kit, real server)', () => {
  for (const check of sourceConnectorChecks(subject('timestamp'))) {
    it(check.name, () => check.run());
  }
});
