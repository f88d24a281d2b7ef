/**
 * The PostgreSQL source through the whole local runtime (REST API, enumerator, source task
 * invocations under the exactly-once protocol, the real broker) from the real PostgreSQL
 * server, seen as a user sees it: a Confluent JDBC source config, every row exactly once in
 * the read_committed topics, then more rows after a restart.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { readTopicRecords } from '../../support/topic-reader.js';
import {
  connectorPath,
  type E2eRuntime,
  eventually,
  lastLogs,
  startE2eRuntime,
  uniqueName,
} from './support.js';

const PASSWORD_VARIABLE = 'E2E_POSTGRES_SOURCE_PASSWORD';
const decoder = new TextDecoder();

/** The `payload.id` of a JsonConverter envelope. */
const idOf = (bytes: Uint8Array | null): number =>
  (JSON.parse(decoder.decode(bytes ?? new Uint8Array())) as { payload: { id: number } }).payload.id;

describe('postgres-source under the local runtime (real broker, real PostgreSQL)', {
  timeout: 150_000,
}, () => {
  let e2e: E2eRuntime;
  let db: pg.Client;

  beforeAll(async () => {
    e2e = await startE2eRuntime();
    db = new pg.Client({ connectionString: inject('postgresUrl') });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await e2e?.close();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(lastLogs(e2e));
  });

  it('writes every row of two tables exactly once, split over two tasks, and resumes after a restart', async () => {
    // Prepare: two tables of 40 rows, read 7 rows at a time
    const schema = uniqueName('e2e').replaceAll('-', '_');
    const tables = ['orders', 'payments'];
    await db.query(`CREATE SCHEMA ${schema}`);
    for (const table of tables) {
      await db.query(`CREATE TABLE ${schema}.${table} (id serial PRIMARY KEY, v text NOT NULL)`);
      await db.query(
        `INSERT INTO ${schema}.${table} (v) SELECT 'r' || g FROM generate_series(1, 40) g`,
      );
    }
    const url = new URL(inject('postgresUrl'));
    process.env[PASSWORD_VARIABLE] = decodeURIComponent(url.password);
    const prefix = `${schema}-`;
    const name = uniqueName('pg-source');
    const config = {
      'connector.class': 'io.confluent.connect.jdbc.JdbcSourceConnector',
      'connection.url': `jdbc:postgresql://${url.host}${url.pathname}`,
      'connection.user': decodeURIComponent(url.username),
      'connection.password': `\${env:${PASSWORD_VARIABLE}}`,
      mode: 'incrementing',
      'incrementing.column.name': 'id',
      'schema.pattern': schema,
      'table.whitelist': tables.join(','),
      'topic.prefix': prefix,
      'batch.max.rows': '7',
      'poll.interval.ms': '200',
      'tasks.max': '2',
      'exactly.once.support': 'required',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'topic.creation.default.partitions': '1',
      'topic.creation.default.replication.factor': '1',
    };
    const { http } = e2e;
    const offsets = async () => {
      const { body } = await http('GET', connectorPath(name, '/offsets'));
      return (body?.offsets ?? []) as {
        partition: { protocol: string; table: string };
        offset: { incrementing: number };
      }[];
    };
    const reached = (n: number) => (o: Awaited<ReturnType<typeof offsets>>) =>
      o.length === 2 && o.every((e) => e.offset.incrementing === n);

    // Act: all rows, then a restart of both tasks, then 25 more rows in each table
    const created = await http('PUT', connectorPath(name, '/config'), config);
    const first = await eventually(offsets, reached(40), 60_000, 'offsets at 40');
    const tasks = await http('GET', connectorPath(name, '/tasks'));
    const restarted = await http(
      'POST',
      connectorPath(name, '/restart?includeTasks=true&onlyFailed=false'),
    );
    for (const table of tables) {
      await db.query(
        `INSERT INTO ${schema}.${table} (v) SELECT 's' || g FROM generate_series(1, 25) g`,
      );
    }
    await eventually(offsets, reached(65), 60_000, 'offsets at 65');
    const read = await Promise.all(
      tables.map((table) => readTopicRecords(`${prefix}${table}`, 65, 1_500)),
    );

    // Assess
    expect(created.status).toBe(201);
    expect(restarted.status).toBe(202);
    expect(tasks.body.map((t: { config: { tables: string } }) => t.config.tables)).toEqual([
      `"${schema}"."orders"`,
      `"${schema}"."payments"`,
    ]);
    expect(first.map((o) => o.partition).sort((a, b) => a.table.localeCompare(b.table))).toEqual(
      tables.map((table) => ({ protocol: '1', table: `${schema}.${table}` })),
    );
    const expected = Array.from({ length: 65 }, (_, i) => i + 1);
    for (const records of read) {
      expect(records.map((r) => idOf(r.value))).toEqual(expected);
      expect(records.every((r) => r.key === null)).toBe(true);
    }
    expect((await http('DELETE', connectorPath(name))).status).toBe(204);
  });
});
