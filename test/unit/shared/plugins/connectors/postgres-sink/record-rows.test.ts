import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import {
  BigDecimal,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
} from '../../../../../../shared/connect/logical-types.js';
import { SinkRecord } from '../../../../../../shared/connect/records.js';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import {
  columnTypeOf,
  parameterOf,
} from '../../../../../../shared/plugins/connectors/postgres-sink/column-types.js';
import { parsePostgresSinkConfig } from '../../../../../../shared/plugins/connectors/postgres-sink/postgres-sink-config.js';
import { rowOf } from '../../../../../../shared/plugins/connectors/postgres-sink/record-rows.js';
import { statementsFor } from '../../../../../../shared/plugins/connectors/postgres-sink/row-statements.js';

const URL = 'jdbc:postgresql://localhost/db';
const config = (props: Record<string, string> = {}) =>
  parsePostgresSinkConfig({ 'connection.url': URL, ...props });

const valueSchema = SchemaBuilder.struct()
  .field('id', Schemas.INT64)
  .field('name', Schemas.OPTIONAL_STRING)
  .field('qty', Schemas.INT32)
  .build();

function record(key: unknown, value: unknown, offset = 7, keySchema = Schemas.OPTIONAL_STRING) {
  return new SinkRecord({
    topic: 'orders',
    kafkaPartition: 2,
    kafkaOffset: offset,
    keySchema: key === null ? null : keySchema,
    key,
    valueSchema: value instanceof Struct ? valueSchema : null,
    value,
  });
}

function order(id: number, name: string | null, qty: number): Struct {
  return new Struct(valueSchema).put('id', id).put('name', name).put('qty', qty);
}

describe('columnTypeOf and parameterOf', () => {
  it("maps Connect types to the JDBC sink's PostgreSQL types, logical types included", () => {
    const types = [
      [Schemas.INT8, 'SMALLINT'],
      [Schemas.INT16, 'SMALLINT'],
      [Schemas.INT32, 'INTEGER'],
      [Schemas.INT64, 'BIGINT'],
      [Schemas.FLOAT32, 'REAL'],
      [Schemas.FLOAT64, 'DOUBLE PRECISION'],
      [Schemas.BOOLEAN, 'BOOLEAN'],
      [Schemas.STRING, 'TEXT'],
      [Schemas.BYTES, 'BYTEA'],
      [LogicalDecimal.schema(2), 'NUMERIC'],
      [LogicalDate.schema(), 'DATE'],
      [LogicalTime.schema(), 'TIME'],
      [LogicalTimestamp.schema(), 'TIMESTAMP'],
      [SchemaBuilder.array(Schemas.INT32).build(), 'JSONB'],
      [SchemaBuilder.map(Schemas.STRING, Schemas.INT32).build(), 'JSONB'],
      [valueSchema, 'JSONB'],
    ] as const;
    for (const [schema, type] of types) expect(columnTypeOf(schema)).toBe(type);
  });

  it("gives logical values PostgreSQL's text forms, independent of the time zone", () => {
    expect(parameterOf(LogicalDecimal.schema(2), new BigDecimal(-12345n, 2))).toBe('-123.45');
    expect(parameterOf(LogicalDate.schema(), new Date(Date.UTC(2024, 1, 29)))).toBe('2024-02-29');
    expect(parameterOf(LogicalTime.schema(), new Date(Date.UTC(1970, 0, 1, 13, 5, 9, 42)))).toBe(
      '13:05:09.042',
    );
    expect(parameterOf(LogicalTimestamp.schema(), new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)))).toBe(
      '2024-01-02T03:04:05.006Z',
    );
    expect(parameterOf(Schemas.INT64, 9007199254740993n)).toBe('9007199254740993');
    expect(parameterOf(Schemas.BYTES, new Uint8Array([1, 2]))).toEqual(Buffer.from([1, 2]));
    expect(parameterOf(valueSchema, order(1, null, 2))).toBe('{"id":1,"name":null,"qty":2}');
    expect(parameterOf(null, { a: [1, { b: true }] })).toBe('{"a":[1,{"b":true}]}');
  });
});

describe('rowOf', () => {
  it('pk.mode=none writes every value field; fields.whitelist keeps only the listed ones', () => {
    expect(rowOf(config(), record(null, order(1, 'a', 3)))).toMatchObject({
      table: { schema: null, table: 'orders' },
      op: 'write',
      keys: [],
      fields: [
        { name: 'id', value: 1, type: 'BIGINT', nullable: false },
        { name: 'name', value: 'a', type: 'TEXT', nullable: true },
        { name: 'qty', value: 3, type: 'INTEGER', nullable: false },
      ],
    });
    const some = rowOf(config({ 'fields.whitelist': 'qty' }), record(null, order(1, 'a', 3)));
    expect(some?.fields.map((f) => f.name)).toEqual(['qty']);
  });

  it('pk.mode=kafka keys the row by topic, partition and offset', () => {
    const row = rowOf(config({ 'pk.mode': 'kafka' }), record(null, order(1, 'a', 3), 41));
    expect(row?.keys.map((k) => [k.name, k.value, k.type])).toEqual([
      ['__connect_topic', 'orders', 'TEXT'],
      ['__connect_partition', 2, 'INTEGER'],
      ['__connect_offset', 41, 'BIGINT'],
    ]);
  });

  it('pk.mode=record_key takes a primitive key as the one pk.fields column, struct keys by field', () => {
    const primitive = rowOf(
      config({ 'pk.mode': 'record_key', 'pk.fields': 'code' }),
      record('k1', order(1, 'a', 3)),
    );
    expect(primitive?.keys).toEqual([{ name: 'code', value: 'k1', type: 'TEXT', nullable: false }]);
    expect(() =>
      rowOf(config({ 'pk.mode': 'record_key' }), record('k1', order(1, 'a', 3))),
    ).toThrow(
      'Need exactly one PK column defined since the key schema for records is a primitive type, defined columns are: []',
    );
    const keySchema = SchemaBuilder.struct()
      .field('id', Schemas.INT64)
      .field('line', Schemas.INT32)
      .build();
    const key = new Struct(keySchema).put('id', 1).put('line', 2);
    const composite = rowOf(
      config({ 'pk.mode': 'record_key' }),
      record(key, order(1, 'a', 3), 7, keySchema),
    );
    expect(composite?.keys.map((k) => [k.name, k.value])).toEqual([
      ['id', 1],
      ['line', 2],
    ]);
    // A value field named like a key column is not written twice.
    expect(composite?.fields.map((f) => f.name)).toEqual(['name', 'qty']);
  });

  it('pk.mode=record_value takes the key from the value fields named by pk.fields', () => {
    const row = rowOf(
      config({ 'pk.mode': 'record_value', 'pk.fields': 'id' }),
      record(null, order(9, 'a', 3)),
    );
    expect(row?.keys.map((k) => [k.name, k.value])).toEqual([['id', 9]]);
    expect(row?.fields.map((f) => f.name)).toEqual(['name', 'qty']);
    expect(() =>
      rowOf(
        config({ 'pk.mode': 'record_value', 'pk.fields': 'sku' }),
        record(null, order(9, 'a', 3)),
      ),
    ).toThrow("PK field 'sku' (pk.fields) is not a field of the record value");
  });

  it('a tombstone deletes by key with delete.enabled and is skipped without', () => {
    const deletes = config({
      'pk.mode': 'record_key',
      'pk.fields': 'code',
      'delete.enabled': 'true',
    });
    expect(rowOf(deletes, record('k1', null))).toMatchObject({
      op: 'delete',
      keys: [{ name: 'code', value: 'k1' }],
      fields: [],
    });
    expect(
      rowOf(config({ 'pk.mode': 'record_key', 'pk.fields': 'code' }), record('k1', null)),
    ).toBeNull();
  });

  it('value.jsonb.column writes the whole value, schemaless JSON included, as one jsonb column', () => {
    const row = rowOf(
      config({ 'pk.mode': 'record_key', 'pk.fields': 'code', 'value.jsonb.column': 'doc' }),
      record('k1', { a: 1, tags: ['x'] }),
    );
    expect(row?.fields).toEqual([
      { name: 'doc', value: '{"a":1,"tags":["x"]}', type: 'JSONB', nullable: true },
    ]);
  });

  it('refuses a primitive value without value.jsonb.column', () => {
    expect(() => rowOf(config(), record(null, 'just text'))).toThrow(DataError);
  });
});

describe('statementsFor', () => {
  const keyed = config({
    'pk.mode': 'record_key',
    'pk.fields': 'code',
    'insert.mode': 'upsert',
    'delete.enabled': 'true',
  });
  const rows = (records: SinkRecord[]) =>
    records.flatMap((r) => {
      const row = rowOf(keyed, r);
      return row === null ? [] : [row];
    });

  it('shares multi-row statements but never upserts one key twice in a statement, and keeps order', () => {
    const statements = statementsFor(
      'upsert',
      rows([
        record('a', order(1, 'x', 1)),
        record('b', order(2, 'x', 1)),
        record('a', order(1, 'y', 2)),
        record('a', null),
        record('c', order(3, 'z', 1)),
      ]),
      3000,
    );
    expect(statements.map((s) => [s.text.split(' ')[0], s.values.length])).toEqual([
      ['INSERT', 8],
      ['INSERT', 4],
      ['DELETE', 1],
      ['INSERT', 4],
    ]);
  });

  it('splits statements at batch.size rows and runs one UPDATE per record in update mode', () => {
    const many = rows(Array.from({ length: 5 }, (_, i) => record(`k${i}`, order(i, 'x', 1))));
    expect(statementsFor('insert', many, 2).map((s) => s.values.length / 4)).toEqual([2, 2, 1]);
    const updates = statementsFor('update', many, 2);
    expect(updates).toHaveLength(5);
    expect(updates[0]?.text).toBe('UPDATE "orders" SET "id"=$1,"name"=$2,"qty"=$3 WHERE "code"=$4');
    expect(updates[0]?.values).toEqual([0, 'x', 1, 'k0']);
  });
});
