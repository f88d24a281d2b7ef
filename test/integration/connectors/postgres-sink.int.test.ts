import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SinkTaskContext } from '../../../shared/connect/context.js';
import { ConnectError, RetriableError } from '../../../shared/connect/errors.js';
import { Headers } from '../../../shared/connect/headers.js';
import {
  BigDecimal,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
} from '../../../shared/connect/logical-types.js';
import { SinkRecord } from '../../../shared/connect/records.js';
import { type Schema, SchemaBuilder, Schemas } from '../../../shared/connect/schema.js';
import { Struct } from '../../../shared/connect/struct.js';
import { PostgresPools } from '../../../shared/plugins/connectors/postgres/pg-client.js';
import { pgPoolOf } from '../../../shared/plugins/connectors/postgres/pg-pool.js';
import { PostgresSinkConnector } from '../../../shared/plugins/connectors/postgres-sink/postgres-sink-connector.js';
import type { PostgresSinkTask } from '../../../shared/plugins/connectors/postgres-sink/postgres-sink-task.js';
import { JsonConverter } from '../../../shared/plugins/converters/json-converter.js';
import { uniqueName } from '../../support/services.js';

const pools = new PostgresPools(pgPoolOf);
const connector = new PostgresSinkConnector({ pools });
let db: pg.Client;

function context(
  props: Readonly<Record<string, string>>,
  reported: SinkRecord[] | null = null,
): SinkTaskContext {
  return {
    configs: () => props,
    offset: () => {},
    timeout: () => {},
    assignment: () => [],
    pause: () => {},
    resume: () => {},
    requestCommit: () => {},
    errantRecordReporter:
      reported === null
        ? null
        : {
            report: async (record) => {
              reported.push(record);
            },
          },
  };
}

/** A connector config for a fresh table (and topic) of its own; the URL in JDBC form. */
function configFor(table: string, props: Record<string, string> = {}): Record<string, string> {
  const url = new URL(inject('postgresUrl'));
  return {
    name: uniqueName('pg-sink'),
    topics: table,
    'connection.url': `jdbc:postgresql://${url.host}${url.pathname}`,
    'connection.user': decodeURIComponent(url.username),
    'connection.password': decodeURIComponent(url.password),
    ...props,
  };
}

async function startTask(
  props: Record<string, string>,
  reported: SinkRecord[] | null = null,
): Promise<PostgresSinkTask> {
  const task = connector.createTask();
  await task.start(props, context(props, reported));
  return task;
}

/** One event source mapping batch: put, then preCommit with the batch's next offsets. */
async function deliver(task: PostgresSinkTask, records: readonly SinkRecord[]): Promise<void> {
  await task.put(records);
  const next = new Map<string, number>();
  for (const r of records) {
    const id = `${r.topic}-${r.kafkaPartition}`;
    next.set(id, Math.max(next.get(id) ?? 0, r.kafkaOffset + 1));
  }
  expect(await task.preCommit(next)).toEqual(next);
}

async function rows(sql: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  return (await db.query(sql, values)).rows;
}

async function columnTypes(table: string): Promise<Record<string, string>> {
  const found = await rows(
    "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
    [table],
  );
  return Object.fromEntries(
    found.map((r) => [r.column_name, `${r.data_type}${r.is_nullable === 'NO' ? ' not null' : ''}`]),
  );
}

async function storedOffsets(connectorName: string): Promise<Record<string, number>> {
  const found = await rows(
    'SELECT topic, kafka_partition, next_offset FROM __connect_offsets WHERE connector = $1',
    [connectorName],
  );
  return Object.fromEntries(
    found.map((r) => [`${r.topic}-${r.kafka_partition}`, Number(r.next_offset)]),
  );
}

const orderSchema = SchemaBuilder.struct()
  .field('id', Schemas.INT64)
  .field('name', Schemas.OPTIONAL_STRING)
  .field('qty', Schemas.INT32)
  .build();

function order(id: number, name: string | null, qty: number): Struct {
  return new Struct(orderSchema).put('id', id).put('name', name).put('qty', qty);
}

function rec(
  topic: string,
  offset: number,
  key: unknown,
  value: unknown,
  options: { partition?: number; keySchema?: Schema | null; valueSchema?: Schema | null } = {},
): SinkRecord {
  return new SinkRecord({
    topic,
    kafkaPartition: options.partition ?? 0,
    kafkaOffset: offset,
    keySchema: options.keySchema ?? (key === null ? null : Schemas.STRING),
    key,
    valueSchema: options.valueSchema ?? (value instanceof Struct ? value.schema : null),
    value,
  });
}

beforeAll(async () => {
  db = new pg.Client({ connectionString: inject('postgresUrl') });
  await db.connect();
});

afterAll(async () => {
  await db.end();
});

describe('postgres-sink against a real PostgreSQL server', () => {
  it('auto.create maps Connect types, logical types included, to columns and writes the values', async () => {
    const table = uniqueName('types').replaceAll('-', '_');
    const schema = SchemaBuilder.struct()
      .field('i8', Schemas.INT8)
      .field('i16', Schemas.INT16)
      .field('i32', Schemas.INT32)
      .field('i64', Schemas.INT64)
      .field('f32', Schemas.FLOAT32)
      .field('f64', Schemas.FLOAT64)
      .field('flag', Schemas.BOOLEAN)
      .field('text', Schemas.OPTIONAL_STRING)
      .field('raw', Schemas.BYTES)
      .field('price', LogicalDecimal.schema(2))
      .field('day', LogicalDate.schema())
      .field('at', LogicalTime.schema())
      .field('ts', LogicalTimestamp.schema())
      .field('tags', SchemaBuilder.array(Schemas.STRING).build())
      .build();
    const value = new Struct(schema)
      .put('i8', -8)
      .put('i16', 1600)
      .put('i32', -32_000_000)
      .put('i64', 9_007_199_254_740_993n)
      .put('f32', 1.5)
      .put('f64', -2.25)
      .put('flag', true)
      .put('text', null)
      .put('raw', new Uint8Array([0, 255, 7]))
      .put('price', new BigDecimal(1234567n, 2))
      .put('day', new Date(Date.UTC(2024, 1, 29)))
      .put('at', new Date(Date.UTC(1970, 0, 1, 23, 59, 58, 125)))
      .put('ts', new Date(Date.UTC(2024, 5, 1, 12, 30, 0, 250)))
      .put('tags', ['a', 'b']);
    const task = await startTask(configFor(table, { 'auto.create': 'true' }));
    await deliver(task, [rec(table, 0, null, value)]);
    await task.stop();

    expect(await columnTypes(table)).toEqual({
      i8: 'smallint not null',
      i16: 'smallint not null',
      i32: 'integer not null',
      i64: 'bigint not null',
      f32: 'real not null',
      f64: 'double precision not null',
      flag: 'boolean not null',
      text: 'text',
      raw: 'bytea not null',
      price: 'numeric not null',
      day: 'date not null',
      at: 'time without time zone not null',
      ts: 'timestamp without time zone not null',
      tags: 'jsonb not null',
    });
    const [row] = await rows(
      `SELECT i8, i16, i32, i64::text, f32, f64, flag, text, encode(raw, 'hex') AS raw, price::text,
              day::text, at::text, ts::text, tags FROM "${table}"`,
    );
    expect(row).toEqual({
      i8: -8,
      i16: 1600,
      i32: -32_000_000,
      i64: '9007199254740993',
      f32: 1.5,
      f64: -2.25,
      flag: true,
      text: null,
      raw: '00ff07',
      price: '12345.67',
      day: '2024-02-29',
      at: '23:59:58.125',
      ts: '2024-06-01 12:30:00.25',
      tags: ['a', 'b'],
    });
  });

  it('writes structs that JsonConverter (schemas.enable=true) reads from JSON', async () => {
    const table = uniqueName('json_conv').replaceAll('-', '_');
    const converter = new JsonConverter();
    converter.configure({ 'schemas.enable': 'true' }, false);
    const json = {
      schema: {
        type: 'struct',
        fields: [
          { field: 'id', type: 'int32' },
          {
            field: 'amount',
            type: 'bytes',
            name: 'org.apache.kafka.connect.data.Decimal',
            parameters: { scale: '2' },
          },
        ],
      },
      payload: { id: 7, amount: 'MDk=' },
    };
    const data = converter.toConnectData(
      table,
      new Headers(),
      new TextEncoder().encode(JSON.stringify(json)),
    );
    const task = await startTask(configFor(table, { 'auto.create': 'true' }));
    await deliver(task, [rec(table, 0, null, data.value, { valueSchema: data.schema })]);
    await task.stop();
    expect(await rows(`SELECT id, amount::text FROM "${table}"`)).toEqual([
      { id: 7, amount: '123.45' },
    ]);
  });

  it('insert.mode=upsert with pk.mode=record_key and a composite struct key keeps the last value per key', async () => {
    const table = uniqueName('upsert').replaceAll('-', '_');
    const keySchema = SchemaBuilder.struct()
      .field('order_id', Schemas.INT64)
      .field('line', Schemas.INT32)
      .build();
    const key = (o: number, l: number) => new Struct(keySchema).put('order_id', o).put('line', l);
    const task = await startTask(
      configFor(table, { 'auto.create': 'true', 'insert.mode': 'upsert', 'pk.mode': 'record_key' }),
    );
    await deliver(task, [
      rec(table, 0, key(1, 1), order(10, 'a', 1), { keySchema }),
      rec(table, 1, key(1, 2), order(11, 'b', 1), { keySchema }),
      rec(table, 2, key(1, 1), order(10, 'a2', 5), { keySchema }),
    ]);
    await deliver(task, [rec(table, 3, key(1, 2), order(11, 'b2', 9), { keySchema })]);
    await task.stop();
    const pk = await rows(
      `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
       WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY a.attname`,
      [`"${table}"`],
    );
    expect(pk.map((r) => r.attname)).toEqual(['line', 'order_id']);
    expect(
      await rows(`SELECT order_id::int, line, name, qty FROM "${table}" ORDER BY line`),
    ).toEqual([
      { order_id: 1, line: 1, name: 'a2', qty: 5 },
      { order_id: 1, line: 2, name: 'b2', qty: 9 },
    ]);
  });

  it('insert.mode=update changes existing rows only; pk.mode=record_value takes the key from the value', async () => {
    const table = uniqueName('update').replaceAll('-', '_');
    await db.query(`CREATE TABLE "${table}" (id BIGINT PRIMARY KEY, name TEXT, qty INTEGER)`);
    await db.query(`INSERT INTO "${table}" VALUES (1, 'one', 1), (2, 'two', 2)`);
    const task = await startTask(
      configFor(table, { 'insert.mode': 'update', 'pk.mode': 'record_value', 'pk.fields': 'id' }),
    );
    await deliver(task, [
      rec(table, 0, null, order(2, 'TWO', 20)),
      rec(table, 1, null, order(3, 'three', 3)),
    ]);
    await task.stop();
    expect(await rows(`SELECT id::int, name, qty FROM "${table}" ORDER BY id`)).toEqual([
      { id: 1, name: 'one', qty: 1 },
      { id: 2, name: 'TWO', qty: 20 },
    ]);
  });

  it('pk.mode=kafka keys rows by topic, partition and offset; fields.whitelist limits the value columns', async () => {
    const table = uniqueName('kafka_pk').replaceAll('-', '_');
    const task = await startTask(
      configFor(table, { 'auto.create': 'true', 'pk.mode': 'kafka', 'fields.whitelist': 'qty' }),
    );
    await deliver(task, [
      rec(table, 0, null, order(1, 'a', 4), { partition: 3 }),
      rec(table, 1, null, order(2, 'b', 5), { partition: 3 }),
    ]);
    await task.stop();
    expect(await columnTypes(table)).toEqual({
      __connect_topic: 'text not null',
      __connect_partition: 'integer not null',
      __connect_offset: 'bigint not null',
      qty: 'integer not null',
    });
    expect(
      await rows(
        `SELECT __connect_topic AS t, __connect_partition AS p, __connect_offset::int AS o, qty FROM "${table}" ORDER BY o`,
      ),
    ).toEqual([
      { t: table, p: 3, o: 0, qty: 4 },
      { t: table, p: 3, o: 1, qty: 5 },
    ]);
  });

  it('tombstones delete by key with delete.enabled, in record order, and are skipped without it', async () => {
    const table = uniqueName('deletes').replaceAll('-', '_');
    const props = {
      'auto.create': 'true',
      'insert.mode': 'upsert',
      'pk.mode': 'record_key',
      'pk.fields': 'code',
    };
    const task = await startTask(configFor(table, { ...props, 'delete.enabled': 'true' }));
    await deliver(task, [
      rec(table, 0, 'a', order(1, 'a', 1)),
      rec(table, 1, 'b', order(2, 'b', 1)),
      rec(table, 2, 'a', null),
      rec(table, 3, 'c', order(3, 'c', 1)),
      rec(table, 4, 'c', null),
      rec(table, 5, 'c', order(3, 'c again', 2)),
    ]);
    await task.stop();
    expect(await rows(`SELECT code, name FROM "${table}" ORDER BY code`)).toEqual([
      { code: 'b', name: 'b' },
      { code: 'c', name: 'c again' },
    ]);
    const keep = await startTask(configFor(table, props));
    await deliver(keep, [rec(table, 0, 'b', null)]);
    await keep.stop();
    expect(await rows(`SELECT count(*)::int AS n FROM "${table}"`)).toEqual([{ n: 2 }]);
  });

  it('auto.evolve adds new fields as nullable columns; without it the batch fails and nothing commits', async () => {
    const table = uniqueName('evolve').replaceAll('-', '_');
    const v2 = SchemaBuilder.struct()
      .field('id', Schemas.INT64)
      .field('name', Schemas.OPTIONAL_STRING)
      .field('qty', Schemas.INT32)
      .field('sku', Schemas.STRING)
      .build();
    const rigid = configFor(table, { 'auto.create': 'true' });
    const first = await startTask(rigid);
    await deliver(first, [rec(table, 0, null, order(1, 'a', 1))]);
    const newer = new Struct(v2).put('id', 2).put('name', 'b').put('qty', 2).put('sku', 'X-2');
    await first.put([rec(table, 1, null, newer)]);
    await expect(first.preCommit(new Map([[`${table}-0`, 2]]))).rejects.toThrow(
      `Table "${table}" is missing fields (sku) and auto-evolution is disabled`,
    );
    await first.stop();
    expect(await storedOffsets(rigid.name as string)).toEqual({ [`${table}-0`]: 1 });

    const evolving = await startTask({ ...rigid, 'auto.evolve': 'true' });
    await deliver(evolving, [rec(table, 1, null, newer)]);
    await evolving.stop();
    expect((await columnTypes(table)).sku).toBe('text');
    expect(await rows(`SELECT id::int, sku FROM "${table}" ORDER BY id`)).toEqual([
      { id: 1, sku: null },
      { id: 2, sku: 'X-2' },
    ]);
  });

  it('reports a record that cannot be a row to the errant record reporter and writes the rest', async () => {
    const table = uniqueName('errant').replaceAll('-', '_');
    const reported: SinkRecord[] = [];
    const props = configFor(table, {
      'auto.create': 'true',
      'pk.mode': 'record_key',
      'pk.fields': 'code',
    });
    const task = await startTask(props, reported);
    await deliver(task, [
      rec(table, 0, 'a', order(1, 'a', 1)),
      rec(table, 1, null, order(2, 'no key', 1)),
      rec(table, 2, 'c', order(3, 'c', 1)),
    ]);
    await task.stop();
    expect(reported.map((r) => r.kafkaOffset)).toEqual([1]);
    expect(await rows(`SELECT code FROM "${table}" ORDER BY code`)).toEqual([
      { code: 'a' },
      { code: 'c' },
    ]);
    expect(await storedOffsets(props.name as string)).toEqual({ [`${table}-0`]: 3 });
  });

  it('a missing table without auto.create fails the batch with the JDBC sink message', async () => {
    const table = uniqueName('missing').replaceAll('-', '_');
    const task = await startTask(configFor(table));
    await task.put([rec(table, 0, null, order(1, 'a', 1))]);
    const failure = task.preCommit(new Map([[`${table}-0`, 1]]));
    await expect(failure).rejects.toThrow(
      `Table "${table}" is missing and auto-creation is disabled`,
    );
    await expect(failure).rejects.not.toBeInstanceOf(RetriableError);
    await task.stop();
  });

  it('schemaless JSON goes into a jsonb column with value.jsonb.column, or into existing typed columns', async () => {
    const docs = uniqueName('docs').replaceAll('-', '_');
    await db.query(`CREATE TABLE "${docs}" (code TEXT PRIMARY KEY, doc JSONB)`);
    const task = await startTask(
      configFor(docs, {
        'insert.mode': 'upsert',
        'pk.mode': 'record_key',
        'pk.fields': 'code',
        'value.jsonb.column': 'doc',
      }),
    );
    await deliver(task, [
      rec(docs, 0, 'a', { total: 12.5, items: [{ sku: 'x', n: 2 }], note: null }),
      rec(docs, 1, 'b', { total: 1 }),
    ]);
    await task.stop();
    expect(
      await rows(
        `SELECT code, doc->'items'->0->>'sku' AS sku, (doc->>'total')::numeric::text AS total FROM "${docs}" ORDER BY code`,
      ),
    ).toEqual([
      { code: 'a', sku: 'x', total: '12.5' },
      { code: 'b', sku: null, total: '1' },
    ]);

    const typed = uniqueName('typed').replaceAll('-', '_');
    await db.query(
      `CREATE TABLE "${typed}" (id BIGINT, at TIMESTAMPTZ, price NUMERIC, meta JSONB)`,
    );
    const plain = await startTask(configFor(typed));
    await deliver(plain, [
      rec(typed, 0, null, { id: 5, at: '2024-01-02T03:04:05Z', price: '9.99', meta: { a: [1] } }),
    ]);
    await plain.stop();
    expect(
      await rows(
        `SELECT id::int, extract(epoch FROM at)::int AS at, price::text, meta FROM "${typed}"`,
      ),
    ).toEqual([{ id: 5, at: 1704164645, price: '9.99', meta: { a: [1] } }]);
  });

  it('writes each record exactly once when overlapping batches are replayed (insert.mode=insert, no key)', async () => {
    const table = uniqueName('replay').replaceAll('-', '_');
    const props = configFor(table, { 'auto.create': 'true', 'batch.size': '4' });
    const records = [0, 1].flatMap((partition) =>
      Array.from({ length: 30 }, (_, i) =>
        rec(table, i, null, order(partition * 100 + i, `p${partition}`, i), { partition }),
      ),
    );
    const slice = (partition: number, from: number, to: number) =>
      records.filter(
        (r) => r.kafkaPartition === partition && r.kafkaOffset >= from && r.kafkaOffset < to,
      );
    const first = await startTask(props);
    await deliver(first, [...slice(0, 0, 10), ...slice(1, 0, 7)]);
    await deliver(first, [...slice(0, 10, 20)]);
    await first.stop();
    // The runtime's offsets were lost: a new invocation gets it all again, cut differently.
    const second = await startTask(props);
    await deliver(second, [...slice(0, 5, 25), ...slice(1, 0, 30)]);
    await deliver(second, [...slice(0, 0, 30)]);
    await second.stop();

    expect(
      await rows(`SELECT count(*)::int AS n, count(DISTINCT id)::int AS ids FROM "${table}"`),
    ).toEqual([{ n: 60, ids: 60 }]);
    expect(await storedOffsets(props.name as string)).toEqual({
      [`${table}-0`]: 30,
      [`${table}-1`]: 30,
    });
    expect(second.counts().get(`${table}-0`)).toEqual({
      written: 10,
      skipped: 40,
      transactions: 2,
    });
    expect(second.counts().get(`${table}-1`)).toEqual({ written: 23, skipped: 7, transactions: 1 });
  });

  it('fences a zombie: two invocations of one partition never both commit the same records', async () => {
    const table = uniqueName('zombie').replaceAll('-', '_');
    const props = configFor(table, { 'auto.create': 'true' });
    const batch = Array.from({ length: 10 }, (_, i) => rec(table, i, null, order(i, 'z', i)));
    const setup = await startTask(props);
    await deliver(setup, batch.slice(0, 2));
    await setup.stop();

    // Hold the partition's offsets row, so that both invocations queue behind it, then let go.
    const holder = new pg.Client({ connectionString: inject('postgresUrl') });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM __connect_offsets WHERE connector = $1 FOR UPDATE', [
      props.name,
    ]);
    const live = await startTask(props);
    const zombie = await startTask(props);
    const both = Promise.all([deliver(live, batch), deliver(zombie, batch)]);
    // Both wait on the held row (at most 10 s: without the row lock they would not wait here).
    for (let waited = 0, waiting = 0; waiting < 2 && waited < 10_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const [row] = await rows(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%__connect_offsets%'",
      );
      waiting = Number(row?.n);
    }
    await holder.query('COMMIT');
    await holder.end();
    await both;
    // A stale batch after the fact moves nothing back.
    await deliver(zombie, batch.slice(0, 5));
    await live.stop();
    await zombie.stop();

    expect(
      await rows(`SELECT count(*)::int AS n, count(DISTINCT id)::int AS ids FROM "${table}"`),
    ).toEqual([{ n: 10, ids: 10 }]);
    expect(await storedOffsets(props.name as string)).toEqual({ [`${table}-0`]: 10 });
    const written = [live, zombie].map((t) => t.counts().get(`${table}-0`)?.written ?? 0).sort();
    expect(written).toEqual([0, 8]);
  });

  it('alterOffsets moves the offsets table with the runtime offsets, so a rewind writes again', async () => {
    const table = uniqueName('alter').replaceAll('-', '_');
    const props = configFor(table, { 'auto.create': 'true' });
    const batch = Array.from({ length: 6 }, (_, i) => rec(table, i, null, order(i, 'a', i)));
    const task = await startTask(props);
    await deliver(task, batch);
    await connector.alterOffsets(props, new Map([[`${table}-0`, 4]]));
    expect(await storedOffsets(props.name as string)).toEqual({ [`${table}-0`]: 4 });
    await deliver(task, batch);
    await connector.alterOffsets(props, new Map([[`${table}-0`, null]]));
    expect(await storedOffsets(props.name as string)).toEqual({});
    await task.stop();
    expect(await rows(`SELECT count(*)::int AS n FROM "${table}"`)).toEqual([{ n: 8 }]);
  });

  it('shares one small pool per container and ends it when the last task stops; errors hide the password', async () => {
    const table = uniqueName('pool').replaceAll('-', '_');
    const before = pools.size;
    const a = await startTask(configFor(table));
    const b = await startTask(configFor(table));
    expect(pools.size).toBe(before + 1);
    await a.stop();
    expect(pools.size).toBe(before + 1);
    await b.stop();
    expect(pools.size).toBe(before);

    const wrong = await startTask(
      configFor(table, { 'connection.password': 'not-the-hunter2-password' }),
    );
    await wrong.put([rec(table, 0, null, order(1, 'a', 1))]);
    const failure = await wrong.preCommit(new Map([[`${table}-0`, 1]])).catch((e: unknown) => e);
    await wrong.stop();
    expect(failure).toBeInstanceOf(ConnectError);
    expect((failure as Error).message).toContain('password authentication failed');
    expect((failure as Error).message).not.toContain('hunter2');
  });
});
