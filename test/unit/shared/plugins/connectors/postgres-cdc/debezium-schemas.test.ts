import { describe, expect, it } from 'vitest';
import { Struct } from '../../../../../../shared/connect/struct.js';
import {
  envelopeStruct,
  SOURCE_SCHEMA,
  sequenceOf,
  sourceStruct,
  tableShapeOf,
  topicNameOf,
} from '../../../../../../shared/plugins/connectors/postgres-cdc/debezium-schemas.js';
import { OID } from '../../../../../../shared/plugins/connectors/postgres-cdc/type-oids.js';

const types = {
  decimalHandling: 'precise',
  timePrecision: 'adaptive',
  unavailablePlaceholder: '__debezium_unavailable_value',
} as const;
const shape = tableShapeOf(
  'shop',
  {
    schema: 'public',
    table: 'orders',
    columns: [
      { name: 'qty', typeOid: OID.INT4, typmod: -1, notNull: true },
      { name: 'id', typeOid: OID.INT8, typmod: -1, notNull: true },
      { name: 'note', typeOid: OID.TEXT, typmod: -1, notNull: false },
    ],
    primaryKey: ['id'],
  },
  types,
);

describe("Debezium's PostgreSQL change event shapes", () => {
  it('names topics and schemas after the prefix, schema and table, replacing what Kafka refuses', () => {
    expect(shape.topic).toBe('shop.public.orders');
    expect(topicNameOf('shop', 'public', 'order lines$')).toBe('shop.public.order_lines_');
    expect(shape.keySchema?.name).toBe('shop.public.orders.Key');
    expect(shape.keySchema?.fields.map((f) => [f.name, f.schema.type, f.schema.optional])).toEqual([
      ['id', 'int64', false],
    ]);
    expect(shape.valueSchema.name).toBe('shop.public.orders.Value');
    expect(shape.valueSchema.optional).toBe(true);
    expect(shape.valueSchema.fields.map((f) => [f.name, f.schema.optional])).toEqual([
      ['qty', false],
      ['id', false],
      ['note', true],
    ]);
  });

  it("builds Debezium's envelope: before, after, source, transaction, op, ts_ms, ts_us, ts_ns (version 2)", () => {
    expect(shape.envelopeSchema.name).toBe('shop.public.orders.Envelope');
    expect(shape.envelopeSchema.version).toBe(2);
    expect(shape.envelopeSchema.fields.map((f) => f.name)).toEqual([
      'before',
      'after',
      'source',
      'transaction',
      'op',
      'ts_ms',
      'ts_us',
      'ts_ns',
    ]);
    expect(SOURCE_SCHEMA.name).toBe('io.debezium.connector.postgresql.Source');
    expect(SOURCE_SCHEMA.fields.map((f) => f.name)).toEqual([
      'version',
      'connector',
      'name',
      'ts_ms',
      'snapshot',
      'db',
      'sequence',
      'ts_us',
      'ts_ns',
      'schema',
      'table',
      'txId',
      'lsn',
      'xmin',
    ]);
  });

  it('fills the source block and the envelope of an event', () => {
    const source = sourceStruct({
      version: '0.1.0',
      name: 'shop',
      db: 'postgres',
      schema: 'public',
      table: 'orders',
      timeMicros: 1_700_000_000_123_456n,
      snapshot: 'false',
      txId: 770,
      lsn: 24_023_128n,
      sequence: sequenceOf(24_023_000n, 24_023_128n),
    });
    const after = new Struct(shape.valueSchema).put('qty', 1).put('id', 7).put('note', null);
    const envelope = envelopeStruct(shape, 'c', null, after, source, 1_700_000_001_000_000n);

    expect(source.get('connector')).toBe('postgresql');
    expect(source.get('ts_ms')).toBe(1_700_000_000_123);
    expect(source.get('snapshot')).toBe('false');
    expect(source.getWithoutDefault('snapshot')).toBeNull();
    expect(source.get('sequence')).toBe('["24023000","24023128"]');
    expect(source.get('lsn')).toBe(24_023_128);
    expect(envelope.get('op')).toBe('c');
    expect(envelope.get('ts_ms')).toBe(1_700_000_001_000);
    expect(envelope.get('ts_ns')).toBe(1_700_000_001_000_000_000n);
    expect(envelope.get('transaction')).toBeNull();
    envelope.validate();
  });

  it('has no key schema for a table without a primary key', () => {
    const keyless = tableShapeOf(
      'shop',
      {
        schema: 'public',
        table: 'log',
        columns: [{ name: 'msg', typeOid: OID.TEXT, typmod: -1, notNull: false }],
        primaryKey: [],
      },
      types,
    );

    expect(keyless.keySchema).toBeNull();
    expect(keyless.keyIndexes).toEqual([]);
  });
});
