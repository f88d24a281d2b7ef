/**
 * The PostgreSQL source against the real PostgreSQL server: every mode, resumes from committed
 * offsets (Confluent's formats included), custom queries, the delay, errors.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, RetriableError, type SourceRecord } from '../../../shared/connect/index.js';
import { PostgresPools } from '../../../shared/plugins/connectors/postgres/pg-client.js';
import { pgPoolOf } from '../../../shared/plugins/connectors/postgres/pg-pool.js';
import { PostgresSourceConnector } from '../../../shared/plugins/connectors/postgres-source/postgres-source-connector.js';
import { sourceTaskContext } from '../../../shared/testkit/contexts.js';
import {
  connectDb,
  drain,
  field,
  MemoryOffsetStore,
  sourceConfig,
  sqlName,
  taskConfigsOf,
  testDeps,
} from './postgres-source-harness.js';

let db: pg.Client;

beforeAll(async () => {
  db = await connectDb();
});

afterAll(async () => {
  await db.end();
});

const ids = (records: readonly SourceRecord[]) => records.map((r) => Number(field(r, 'id')));

/** The single task config of a whitelisted table. */
async function tableTask(table: string, props: Record<string, string>) {
  const [config] = await taskConfigsOf(sourceConfig({ 'table.whitelist': table, ...props }));
  if (config === undefined) throw new Error('no task config');
  return config;
}

describe('postgres-source: incrementing mode', () => {
  it('reads every row once, in id order, detecting the serial column, and resumes after the committed offset', async () => {
    // Prepare
    const table = sqlName('inc');
    await db.query(`CREATE TABLE ${table} (id serial PRIMARY KEY, name text NOT NULL)`);
    await db.query(`INSERT INTO ${table} (name) SELECT 'n' || g FROM generate_series(1, 5) g`);
    const config = await tableTask(table, {
      mode: 'incrementing',
      'topic.prefix': 'pg-',
      'batch.max.rows': '2',
    });
    const store = new MemoryOffsetStore();

    // Act
    const first = await drain(config, store, { restartEvery: 1 });
    await db.query(`INSERT INTO ${table} (name) SELECT 'm' || g FROM generate_series(1, 3) g`);
    const second = await drain(config, store);

    // Assess
    expect(ids(first)).toEqual([1, 2, 3, 4, 5]);
    expect(ids(second)).toEqual([6, 7, 8]);
    const last = second.at(-1);
    expect(last?.topic).toBe(`pg-${table}`);
    expect(last?.key).toBeNull();
    expect(last?.valueSchema?.name).toBe(table);
    expect(last?.sourcePartition).toEqual({ protocol: '1', table: `public.${table}` });
    expect(last?.sourceOffset).toEqual({ incrementing: 8 });
    expect(field(first[0] as SourceRecord, 'name')).toBe('n1');
  });

  it('fails a task on incrementing.column.name when the table has no serial column to detect', async () => {
    const table = sqlName('noserial');
    await db.query(`CREATE TABLE ${table} (id int NOT NULL, name text)`);
    const config = await tableTask(table, { mode: 'incrementing' });
    const task = new PostgresSourceConnector(testDeps()).createTask();
    const started = task.start(config, sourceTaskContext(config, new MemoryOffsetStore()));
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toMatchObject({ key: 'incrementing.column.name' });
    await expect(started).rejects.toThrow(/has no serial or identity column/);
    await task.stop();
  });
});

describe('postgres-source: timestamp mode', () => {
  it('never skips rows of equal timestamps when a batch (and a restart) falls inside their run', async () => {
    // Prepare: runs of 2, 4 and 1 equal timestamps, batches of 3, a restart after every poll
    const table = sqlName('ts');
    await db.query(`CREATE TABLE ${table} (id int NOT NULL, updated timestamptz NOT NULL)`);
    await db.query(
      `INSERT INTO ${table} VALUES
        (1, '2024-01-01 00:00:01.000001+00'), (2, '2024-01-01 00:00:01.000001+00'),
        (3, '2024-01-01 00:00:02+00'), (4, '2024-01-01 00:00:02+00'), (5, '2024-01-01 00:00:02+00'),
        (6, '2024-01-01 00:00:02+00'), (7, '2024-01-01 00:00:03+00')`,
    );
    const config = await tableTask(table, {
      mode: 'timestamp',
      'timestamp.column.name': 'updated',
      'batch.max.rows': '3',
    });
    const store = new MemoryOffsetStore();

    // Act
    const first = await drain(config, store, { restartEvery: 1 });
    await db.query(`UPDATE ${table} SET updated = '2024-01-02 00:00:00+00' WHERE id = 2`);
    const second = await drain(config, store);

    // Assess: each row once (in timestamp order), then the updated row again
    expect(ids(first).sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(ids(first).slice(0, 2).sort()).toEqual([1, 2]);
    expect(ids(first).at(-1)).toBe(7);
    expect(ids(second)).toEqual([2]);
    expect(second[0]?.sourceOffset).toEqual({
      timestamp: Date.parse('2024-01-02T00:00:00Z'),
      timestamp_nanos: 0,
    });
    expect(first[0]?.sourceOffset).toEqual(
      // the first row's run (ids 1 and 2) is not complete at row 1: no offset moves past it yet
      null,
    );
    expect(first[1]?.sourceOffset).toEqual({
      timestamp: Date.parse('2024-01-01T00:00:01.000Z'),
      timestamp_nanos: 1_000,
    });
  });

  it('leaves rows younger than timestamp.delay.interval.ms for later', async () => {
    const table = sqlName('delay');
    await db.query(`CREATE TABLE ${table} (id int NOT NULL, at timestamp NOT NULL)`);
    await db.query(
      `INSERT INTO ${table} VALUES (1, (now() AT TIME ZONE 'UTC') - interval '1 hour'), (2, now() AT TIME ZONE 'UTC')`,
    );
    const config = await tableTask(table, {
      mode: 'timestamp',
      'timestamp.column.name': 'at',
      'timestamp.delay.interval.ms': String(10 * 60_000),
    });
    const delayed = await drain(config, new MemoryOffsetStore());
    const undelayed = await drain(
      { ...config, 'timestamp.delay.interval.ms': '0' },
      new MemoryOffsetStore(),
    );
    expect(ids(delayed)).toEqual([1]);
    expect(ids(undelayed)).toEqual([1, 2]);
  });

  it('starts at timestamp.initial when no offset is stored', async () => {
    const table = sqlName('initial');
    await db.query(`CREATE TABLE ${table} (id int NOT NULL, at timestamptz NOT NULL)`);
    await db.query(
      `INSERT INTO ${table} VALUES (1, '2020-01-01Z'), (2, '2021-01-01Z'), (3, now() + interval '1 hour')`,
    );
    const config = await tableTask(table, {
      mode: 'timestamp',
      'timestamp.column.name': 'at',
      'timestamp.initial': String(Date.parse('2020-06-01T00:00:00Z')),
    });
    const fromInitial = await drain(config, new MemoryOffsetStore());
    const fromNow = await drain(
      { ...config, 'timestamp.initial': '-1', 'timestamp.delay.interval.ms': '0' },
      new MemoryOffsetStore(),
    );
    expect(ids(fromInitial)).toEqual([2]);
    expect(ids(fromNow)).toEqual([]);
  });
});

describe('postgres-source: timestamp+incrementing mode', () => {
  it('reads rows of equal timestamps by id across restarts, re-reads updated rows, and keeps microseconds in the offset', async () => {
    const table = sqlName('tsinc');
    await db.query(
      `CREATE TABLE ${table} (id bigint GENERATED ALWAYS AS IDENTITY, modified timestamp, created timestamp NOT NULL, v text)`,
    );
    await db.query(
      `INSERT INTO ${table} (modified, created, v) VALUES
        (NULL, '2024-03-01 10:00:00.123456', 'a'), (NULL, '2024-03-01 10:00:00.123456', 'b'),
        ('2024-03-01 10:00:00.123456', '2024-01-01', 'c'), (NULL, '2024-03-01 11:00:00', 'd')`,
    );
    const config = await tableTask(table, {
      mode: 'timestamp+incrementing',
      'timestamp.column.name': 'modified,created',
      'batch.max.rows': '1',
      'db.timezone': 'Europe/Paris',
    });
    const store = new MemoryOffsetStore();
    const first = await drain(config, store, { restartEvery: 1 });
    await db.query(`UPDATE ${table} SET modified = '2024-03-02 00:00:00', v = 'a2' WHERE id = 1`);
    const second = await drain(config, store);

    expect(first.map((r) => field(r, 'v'))).toEqual(['a', 'b', 'c', 'd']);
    expect(second.map((r) => field(r, 'v'))).toEqual(['a2']);
    // 10:00:00.123456 in Paris (UTC+1 in March) is 09:00:00.123456Z
    expect(first[2]?.sourceOffset).toEqual({
      incrementing: 3,
      timestamp: Date.parse('2024-03-01T09:00:00.123Z'),
      timestamp_nanos: 123_456_000,
    });
    expect(field(first[0] as SourceRecord, 'created')).toEqual(
      new Date('2024-03-01T09:00:00.123Z'),
    );
    expect(first[0]?.valueSchema?.field('modified')?.schema.optional).toBe(true);
    expect(first[0]?.valueSchema?.field('created')?.schema.optional).toBe(false);
  });
});

describe('postgres-source: bulk mode', () => {
  it('copies the whole table each interval, with an offset only on the last record of a snapshot', async () => {
    const table = sqlName('bulk');
    await db.query(`CREATE TABLE ${table} (id int, name text)`);
    await db.query(`INSERT INTO ${table} VALUES (1, 'a'), (2, 'b'), (3, 'c')`);
    const config = await tableTask(table, {
      mode: 'bulk',
      'batch.max.rows': '2',
      'poll.interval.ms': '5000',
    });
    const store = new MemoryOffsetStore();

    const first = await drain(config, store);
    const paced = await drain(config, store);
    const again = await drain({ ...config, 'poll.interval.ms': '1' }, store, { limit: 3 });

    expect(ids(first).sort()).toEqual([1, 2, 3]);
    expect(first.map((r) => r.sourcePartition)).toEqual(Array(3).fill({ table }));
    expect(first.slice(0, 2).map((r) => r.sourceOffset)).toEqual([null, null]);
    expect(first[2]?.sourceOffset).toEqual({ bulk_snapshot_started: expect.any(Number) });
    // the stored snapshot time paces the next snapshot across task restarts
    expect(paced).toEqual([]);
    expect(ids(again).sort()).toEqual([1, 2, 3]);
  });
});

describe('postgres-source: custom query', () => {
  it('appends the incrementing criteria to the query and writes to topic.prefix', async () => {
    const orders = sqlName('orders');
    const customers = sqlName('customers');
    await db.query(`CREATE TABLE ${customers} (cid int PRIMARY KEY, cname text NOT NULL)`);
    await db.query(`CREATE TABLE ${orders} (id serial PRIMARY KEY, cid int NOT NULL, qty int)`);
    await db.query(`INSERT INTO ${customers} VALUES (1, 'ann'), (2, 'bob')`);
    await db.query(`INSERT INTO ${orders} (cid, qty) VALUES (1, 5), (2, 7), (1, 9)`);
    const props = sourceConfig({
      mode: 'incrementing',
      query: `SELECT o.id, c.cname, o.qty * 2 AS double_qty FROM ${orders} o JOIN ${customers} c USING (cid);`,
      'incrementing.column.name': 'id',
      'topic.prefix': `${orders}-joined`,
    });
    const configs = await taskConfigsOf(props, 3);
    const store = new MemoryOffsetStore();
    const records = await drain(configs[0] as Record<string, string>, store, { restartEvery: 1 });

    expect(configs).toHaveLength(1);
    expect(records.map((r) => [field(r, 'id'), field(r, 'cname'), field(r, 'double_qty')])).toEqual(
      [
        [1, 'ann', 10],
        [2, 'bob', 14],
        [3, 'ann', 18],
      ],
    );
    expect(records[0]?.topic).toBe(`${orders}-joined`);
    expect(records[0]?.sourcePartition).toEqual({ query: 'query' });
    expect(records[0]?.valueSchema?.name).toBeNull();
    expect(records[0]?.valueSchema?.field('cname')?.schema.optional).toBe(false);
    expect(records[0]?.valueSchema?.field('double_qty')?.schema.optional).toBe(true);
    expect(store.get({ query: 'query' })).toEqual({ incrementing: 3 });
  });

  it('runs a bulk query whole', async () => {
    const table = sqlName('bulkq');
    await db.query(`CREATE TABLE ${table} (id int, name text)`);
    await db.query(`INSERT INTO ${table} VALUES (1, 'a'), (2, 'b')`);
    const [config] = await taskConfigsOf(
      sourceConfig({
        mode: 'bulk',
        query: `SELECT * FROM ${table} WHERE id > 1`,
        'topic.prefix': table,
        'poll.interval.ms': '5000',
      }),
    );
    const records = await drain(config as Record<string, string>, new MemoryOffsetStore());
    expect(ids(records)).toEqual([2]);
    expect(records[0]?.sourcePartition).toEqual({ query: 'query' });
  });
});

describe('postgres-source: resuming from offsets Confluent stored', () => {
  it('reads protocol 0 ({"table": name}) and three-part protocol 1 offsets, and writes protocol 1', async () => {
    const legacy = sqlName('legacy');
    const threePart = sqlName('threepart');
    for (const table of [legacy, threePart]) {
      await db.query(
        `CREATE TABLE ${table} (id serial PRIMARY KEY, at timestamp NOT NULL DEFAULT '2024-01-01')`,
      );
      await db.query(
        `INSERT INTO ${table} (at) SELECT '2024-01-01'::timestamp + g * interval '1 second' FROM generate_series(1, 5) g`,
      );
    }
    const database = (await db.query('SELECT current_database() AS d')).rows[0].d as string;
    const store = new MemoryOffsetStore();
    store.put({ table: legacy }, { incrementing: 3 });
    // Java's Timestamp of 2024-01-01 00:00:02: getTime() ms and getNanos() of the second
    store.put(
      { protocol: '1', table: `${database}.public.${threePart}` },
      { incrementing: 2, timestamp: Date.parse('2024-01-01T00:00:02Z'), timestamp_nanos: 0 },
    );
    const [incConfig] = await taskConfigsOf(
      sourceConfig({ 'table.whitelist': legacy, mode: 'incrementing' }),
    );
    const [tsConfig] = await taskConfigsOf(
      sourceConfig({
        'table.whitelist': threePart,
        mode: 'timestamp+incrementing',
        'timestamp.column.name': 'at',
        'incrementing.column.name': 'id',
      }),
    );

    const fromLegacy = await drain(incConfig as Record<string, string>, store);
    const fromThreePart = await drain(tsConfig as Record<string, string>, store);

    expect(ids(fromLegacy)).toEqual([4, 5]);
    expect(ids(fromThreePart)).toEqual([3, 4, 5]);
    expect(store.get({ protocol: '1', table: `public.${legacy}` })).toEqual({ incrementing: 5 });
  });

  it('fails the task start with a DataError naming a corrupt stored offset', async () => {
    const table = sqlName('corrupt');
    await db.query(`CREATE TABLE ${table} (id serial PRIMARY KEY)`);
    const config = await tableTask(table, { mode: 'incrementing' });
    const store = new MemoryOffsetStore();
    store.put({ protocol: '1', table: `public.${table}` }, { incrementing: 'many' });
    const task = new PostgresSourceConnector(testDeps()).createTask();
    await expect(task.start(config, sourceTaskContext(config, store))).rejects.toThrow(
      /incrementing must be an integer/,
    );
    await task.stop();
  });
});

describe('postgres-source: failures', () => {
  it('skips a table dropped after it was listed (at task start and between polls)', async () => {
    const kept = sqlName('kept');
    const goneEarly = sqlName('gone_early');
    const goneLate = sqlName('gone_late');
    for (const table of [kept, goneEarly, goneLate]) {
      await db.query(`CREATE TABLE ${table} (id serial PRIMARY KEY)`);
      await db.query(`INSERT INTO ${table} DEFAULT VALUES`);
    }
    const [config] = (await taskConfigsOf(
      sourceConfig({ 'table.whitelist': `${kept},${goneEarly},${goneLate}`, mode: 'incrementing' }),
    )) as [Record<string, string>];
    await db.query(`DROP TABLE ${goneEarly}`);
    const task = new PostgresSourceConnector(testDeps()).createTask();
    await task.start(config, sourceTaskContext(config, new MemoryOffsetStore()));
    await db.query(`DROP TABLE ${goneLate}`);
    const topics: string[] = [];
    for (let i = 0; i < 4; i++) topics.push(...((await task.poll()) ?? []).map((r) => r.topic));
    await task.stop();
    expect(topics).toEqual([kept]);
  });

  it('answers a lost connection with a RetriableError', async () => {
    const table = sqlName('lost');
    await db.query(`CREATE TABLE ${table} (id serial PRIMARY KEY)`);
    const config = await tableTask(table, { mode: 'incrementing' });
    const state = { down: false };
    const pools = new PostgresPools((settings, max) => {
      const pool = pgPoolOf(settings, max);
      return {
        connect: () =>
          state.down
            ? Promise.reject(
                Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
              )
            : pool.connect(),
        end: () => pool.end(),
      };
    });
    const task = new PostgresSourceConnector({
      pools,
      clock: { now: () => Date.now() },
    }).createTask();
    await task.start(config, sourceTaskContext(config, new MemoryOffsetStore()));
    state.down = true;
    const failed = task.poll();
    await expect(failed).rejects.toBeInstanceOf(RetriableError);
    await expect(failed).rejects.toThrow(/ECONNREFUSED/);
    await task.stop();
  });

  it('resolves a pending poll with null as soon as the task is stopped', async () => {
    const table = sqlName('stop');
    await db.query(`CREATE TABLE ${table} (id serial PRIMARY KEY)`);
    const config = await tableTask(table, { mode: 'incrementing', 'poll.interval.ms': '60000' });
    const task = new PostgresSourceConnector(testDeps()).createTask();
    await task.start(config, sourceTaskContext(config, new MemoryOffsetStore()));
    expect(await task.poll()).toBeNull(); // caught up: the table is next due in a minute
    const pending = task.poll();
    const outcome = await Promise.race([
      task.stop().then(() => pending),
      new Promise((resolve) => setTimeout(() => resolve('still pending'), 500)),
    ]);
    expect(outcome).toBeNull();
  });
});
