/**
 * The PostgreSQL source's type mapping against the real server: each PostgreSQL type's Connect
 * schema and value, nulls, numeric.mapping and db.timezone.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BigDecimal,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  type Schema,
  type SourceRecord,
} from '../../../shared/connect/index.js';
import {
  connectDb,
  drain,
  field,
  MemoryOffsetStore,
  sourceConfig,
  sqlName,
  taskConfigsOf,
} from './postgres-source-harness.js';

let db: pg.Client;

beforeAll(async () => {
  db = await connectDb();
});

afterAll(async () => {
  await db.end();
});

async function readTable(
  table: string,
  props: Record<string, string> = {},
): Promise<SourceRecord[]> {
  const [config] = await taskConfigsOf(
    sourceConfig({
      'table.whitelist': table,
      mode: 'incrementing',
      'incrementing.column.name': 'id',
      ...props,
    }),
  );
  return drain(config as Record<string, string>, new MemoryOffsetStore());
}

/** `type` (and `name` for logical types) of each field, `?` marking optional ones. */
function shape(schema: Schema | null): Record<string, string> {
  return Object.fromEntries(
    (schema?.fields ?? []).map((f) => {
      const s = f.schema;
      const element =
        s.valueSchema === null
          ? ''
          : `<${s.valueSchema.type}${s.valueSchema.name ? `:${s.valueSchema.name.split('.').pop()}` : ''}>`;
      return [
        f.name,
        `${s.type}${element}${s.name ? `:${s.name.split('.').pop()}` : ''}${s.optional ? '?' : ''}`,
      ];
    }),
  );
}

describe('postgres-source: type mapping', () => {
  it('maps each PostgreSQL type to its Connect schema and value, as the JDBC source does for PostgreSQL', async () => {
    // Prepare
    const table = sqlName('types');
    await db.query(`CREATE TYPE ${table}_mood AS ENUM ('sad', 'happy')`);
    await db.query(`CREATE DOMAIN ${table}_price AS numeric(8,2)`);
    await db.query(
      `CREATE TABLE ${table} (
        id bigserial PRIMARY KEY, i2 smallint NOT NULL, i4 integer, i8 bigint, f4 real, f8 double precision,
        num numeric(12,3), num_any numeric, price ${table}_price, flag boolean, t text, vc varchar(10), ch char(3),
        raw bytea, d date, tm time, tmtz timetz, ts timestamp, tstz timestamptz, j json, jb jsonb, u uuid,
        ints integer[], texts text[], nums numeric(5,1)[], iv interval, mood ${table}_mood, bits bit(3), ip inet)`,
    );
    await db.query(
      `INSERT INTO ${table} (i2, i4, i8, f4, f8, num, num_any, price, flag, t, vc, ch, raw, d, tm, tmtz, ts, tstz,
        j, jb, u, ints, texts, nums, iv, mood, bits, ip) VALUES
        (-7, 2147483647, 9007199254740993, 1.5, -2.25, 12345.678, 0.000000000001, 19.99, true, 'hé', 'v', 'ab',
         '\\x00ff07', '2024-02-29', '23:59:58.125', '10:00:00+02', '2024-06-01 12:30:00.250001',
         '2024-06-01 12:30:00.25+02', '{"a": 1}', '{"b": [1, 2]}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
         '{1,NULL,3}', '{"x,y","q\\"uote",NULL}', '{1.5,-2.0}', '1 day 02:00:00', 'happy', B'101', '10.0.0.1')`,
    );
    await db.query(`INSERT INTO ${table} (i2) VALUES (0)`);

    // Act
    const [full, empty] = await readTable(table);

    // Assess
    expect(shape(full?.valueSchema ?? null)).toEqual({
      id: 'int64',
      i2: 'int16',
      i4: 'int32?',
      i8: 'int64?',
      f4: 'float32?',
      f8: 'float64?',
      num: 'bytes:Decimal?',
      num_any: 'string?',
      price: 'bytes:Decimal?',
      flag: 'boolean?',
      t: 'string?',
      vc: 'string?',
      ch: 'string?',
      raw: 'bytes?',
      d: 'int32:Date?',
      tm: 'int32:Time?',
      tmtz: 'int32:Time?',
      ts: 'int64:Timestamp?',
      tstz: 'int64:Timestamp?',
      j: 'string?',
      jb: 'string?',
      u: 'string?',
      ints: 'array<int32>?',
      texts: 'array<string>?',
      nums: 'array<bytes:Decimal>?',
      iv: 'string?',
      mood: 'string?',
      bits: 'int8?',
      ip: 'string?',
    });
    const num = full?.valueSchema?.field('num')?.schema;
    expect(num?.parameters).toEqual({ scale: '3', 'connect.decimal.precision': '12' });
    expect(LogicalDecimal.scale(full?.valueSchema?.field('price')?.schema as Schema)).toBe(2);
    const v = (name: string) => field(full as SourceRecord, name);
    expect([v('id'), v('i2'), v('i4'), v('i8'), v('f4'), v('f8')]).toEqual([
      1,
      -7,
      2147483647,
      9007199254740993n,
      1.5,
      -2.25,
    ]);
    expect(v('num')).toEqual(new BigDecimal(12345678n, 3));
    expect(v('num_any')).toBe('0.000000000001');
    expect(v('price')).toEqual(new BigDecimal(1999n, 2));
    expect([v('flag'), v('t'), v('vc'), v('ch')]).toEqual([true, 'hé', 'v', 'ab ']);
    expect(v('raw')).toEqual(new Uint8Array([0, 255, 7]));
    expect(v('d')).toEqual(new Date('2024-02-29T00:00:00Z'));
    expect(v('tm')).toEqual(new Date('1970-01-01T23:59:58.125Z'));
    expect(v('tmtz')).toEqual(new Date('1970-01-01T08:00:00Z'));
    expect(v('ts')).toEqual(new Date('2024-06-01T12:30:00.250Z'));
    expect(v('tstz')).toEqual(new Date('2024-06-01T10:30:00.250Z'));
    expect(JSON.parse(v('j') as string)).toEqual({ a: 1 });
    expect(JSON.parse(v('jb') as string)).toEqual({ b: [1, 2] });
    expect(v('u')).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    expect(v('ints')).toEqual([1, null, 3]);
    expect(v('texts')).toEqual(['x,y', 'q"uote', null]);
    expect(v('nums')).toEqual([new BigDecimal(15n, 1), new BigDecimal(-20n, 1)]);
    expect([v('iv'), v('mood'), v('bits'), v('ip')]).toEqual([
      '1 day 02:00:00',
      'happy',
      5,
      '10.0.0.1',
    ]);
    const nulls = (empty?.valueSchema?.fields ?? []).filter((f) => !['id', 'i2'].includes(f.name));
    expect(nulls.map((f) => field(empty as SourceRecord, f.name))).toEqual(nulls.map(() => null));
    expect(LogicalDate.LOGICAL_NAME).toBe(full?.valueSchema?.field('d')?.schema.name);
    expect(LogicalTime.LOGICAL_NAME).toBe(full?.valueSchema?.field('tm')?.schema.name);
    expect(LogicalTimestamp.LOGICAL_NAME).toBe(full?.valueSchema?.field('ts')?.schema.name);
  });

  it('maps numerics by precision with numeric.mapping=best_fit', async () => {
    const table = sqlName('bestfit');
    await db.query(
      `CREATE TABLE ${table} (id int PRIMARY KEY, n2 numeric(2,0), n4 numeric(4), n9 numeric(9,0), n18 numeric(18,0), n20 numeric(20,0), money numeric(10,2), any_num numeric)`,
    );
    await db.query(
      `INSERT INTO ${table} VALUES (1, 12, 1234, 123456789, 123456789012345678, 12345678901234567890, 12.5, 3.25)`,
    );
    const [record] = await readTable(table, { 'numeric.mapping': 'best_fit' });
    expect(shape(record?.valueSchema ?? null)).toEqual({
      id: 'int32',
      n2: 'int8?',
      n4: 'int16?',
      n9: 'int32?',
      n18: 'int64?',
      n20: 'bytes:Decimal?',
      money: 'float64?',
      any_num: 'float64?',
    });
    const v = (name: string) => field(record as SourceRecord, name);
    expect([v('n2'), v('n4'), v('n9'), v('n18'), v('money'), v('any_num')]).toEqual([
      12,
      1234,
      123456789,
      123456789012345678n,
      12.5,
      3.25,
    ]);
    expect(v('n20')).toEqual(new BigDecimal(12345678901234567890n, 0));
  });

  it('reads timestamp (without time zone) values as wall times in db.timezone', async () => {
    const table = sqlName('zone');
    await db.query(`CREATE TABLE ${table} (id int PRIMARY KEY, ts timestamp, d date)`);
    await db.query(`INSERT INTO ${table} VALUES (1, '2024-07-01 12:00:00', '2024-07-01')`);
    const [utc] = await readTable(table);
    const [newYork] = await readTable(table, { 'db.timezone': 'America/New_York' });
    expect(field(utc as SourceRecord, 'ts')).toEqual(new Date('2024-07-01T12:00:00Z'));
    expect(field(newYork as SourceRecord, 'ts')).toEqual(new Date('2024-07-01T16:00:00Z'));
    // a date is a calendar day whatever the zone (Connect's Date is midnight UTC)
    expect(field(newYork as SourceRecord, 'd')).toEqual(new Date('2024-07-01T00:00:00Z'));
  });
});
