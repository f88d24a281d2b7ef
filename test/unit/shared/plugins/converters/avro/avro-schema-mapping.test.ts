/**
 * The Connect ↔ Avro schema mapping where the vectors do not reach: how Confluent's AvroData
 * names, reuses and annotates types, and how Avro schemas written by others (not by Connect)
 * read.
 */
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import { LogicalDecimal } from '../../../../../../shared/connect/logical-types.js';
import { type Schema, SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import { AvroData } from '../../../../../../shared/plugins/converters/avro/avro-codec.js';
import { writeAvroJson } from '../../../../../../shared/plugins/converters/avro/avro-json.js';
import { fromConnectSchema } from '../../../../../../shared/plugins/converters/avro/from-connect-schema.js';
import { toConnectSchema } from '../../../../../../shared/plugins/converters/avro/to-connect-schema.js';

function avro(schema: Schema, options = {}): unknown {
  return JSON.parse(
    writeAvroJson(
      fromConnectSchema(schema, {
        connectMetaData: true,
        enhancedSchemaSupport: false,
        scrubInvalidNames: false,
        ...options,
      }),
    ),
  );
}

describe('Connect → Avro', () => {
  it('numbers unnamed structs ConnectDefault, ConnectDefault2, … in io.confluent.connect.avro', () => {
    const schema = SchemaBuilder.struct()
      .field('a', SchemaBuilder.struct().field('x', Schemas.INT32))
      .field('b', SchemaBuilder.struct().field('y', Schemas.INT32))
      .build();
    expect(avro(schema)).toMatchObject({
      name: 'ConnectDefault',
      namespace: 'io.confluent.connect.avro',
      fields: [{ type: { name: 'ConnectDefault2' } }, { type: { name: 'ConnectDefault3' } }],
    });
  });

  it('puts an optional type with a default first in its union, with the default on the field', () => {
    const schema = SchemaBuilder.struct()
      .name('R')
      .field('n', SchemaBuilder.int32().optional().defaultValue(42))
      .field('m', Schemas.OPTIONAL_INT32)
      .build();
    expect(avro(schema)).toMatchObject({
      fields: [
        { name: 'n', type: [{ type: 'int', 'connect.default': 42 }, 'null'], default: 42 },
        { name: 'm', type: ['null', 'int'], default: null },
      ],
    });
  });

  it('takes the precision of a Decimal from connect.decimal.precision, 64 otherwise', () => {
    const precise = LogicalDecimal.builder(2).parameter('connect.decimal.precision', '9').build();
    expect(avro(precise)).toMatchObject({
      type: 'bytes',
      precision: 9,
      scale: 2,
      logicalType: 'decimal',
    });
    expect(avro(LogicalDecimal.schema(5))).toMatchObject({ precision: 64, scale: 5 });
  });

  it('leaves Connect metadata out with connect.meta.data=false', () => {
    const schema = SchemaBuilder.struct()
      .name('a.B')
      .version(2)
      .doc('d')
      .field('i', Schemas.INT8)
      .build();
    expect(avro(schema, { connectMetaData: false })).toEqual({
      type: 'record',
      name: 'B',
      namespace: 'a',
      fields: [{ name: 'i', type: 'int' }],
    });
  });

  it('scrubs names that Avro refuses with scrub.invalid.names', () => {
    const schema = SchemaBuilder.struct()
      .name('my-app.Order 1')
      .field('order-id', Schemas.STRING)
      .build();
    expect(avro(schema, { scrubInvalidNames: true })).toMatchObject({
      name: 'Order_1',
      namespace: 'my_app',
      fields: [{ name: 'order_id' }],
    });
  });

  it('refuses two different schemas under one Avro name', () => {
    const schema = SchemaBuilder.struct()
      .name('R')
      .field('a', SchemaBuilder.struct().name('x.Same').field('i', Schemas.INT32))
      .field('b', SchemaBuilder.struct().name('x.Same').field('s', Schemas.STRING))
      .build();
    expect(() => fromConnectSchema(schema)).toThrow(DataError);
  });
});

describe('Avro → Connect, for schemas Connect did not write', () => {
  const record = (fields: unknown[]) => ({ type: 'record', name: 'R', namespace: 'ns', fields });

  it('reads [null, T] and [T, null] as optional T, and a union of one type as that type', () => {
    const schema = toConnectSchema(
      record([
        { name: 'a', type: ['null', 'string'], default: null },
        { name: 'b', type: ['long', 'null'] },
        { name: 'c', type: ['int'] },
      ]),
    );
    expect(schema.fields.map((f) => [f.schema.type, f.schema.optional])).toEqual([
      ['string', true],
      ['int64', true],
      ['int32', false],
    ]);
  });

  it('reads other unions as an io.confluent.connect.avro.Union struct, fields named by type', () => {
    const schema = toConnectSchema([
      'null',
      'int',
      'string',
      { type: 'record', name: 'x.Point', fields: [{ name: 'x', type: 'int' }] },
    ]);
    expect(schema.name).toBe('io.confluent.connect.avro.Union');
    expect(schema.optional).toBe(true);
    expect(schema.fields.map((f) => [f.name, f.schema.optional])).toEqual([
      ['int', true],
      ['string', true],
      ['Point', true],
    ]);
  });

  it('reads an enum as a string with its name and symbols as parameters', () => {
    const schema = toConnectSchema({
      type: 'enum',
      name: 'ns.Suit',
      symbols: ['HEART', 'SPADE'],
      default: 'SPADE',
      doc: 'suits',
    });
    expect(schema.type).toBe('string');
    expect(schema.name).toBe('ns.Suit');
    expect(schema.parameters).toEqual({
      'io.confluent.connect.avro.enum.doc.Suit': 'suits',
      'io.confluent.connect.avro.enum.default.Suit': 'SPADE',
      'io.confluent.connect.avro.Enum': 'ns.Suit',
      'io.confluent.connect.avro.Enum.HEART': 'HEART',
      'io.confluent.connect.avro.Enum.SPADE': 'SPADE',
    });
  });

  it('reads fixed as bytes with connect.fixed.size, and a field default with its flag', () => {
    const schema = toConnectSchema(
      record([
        { name: 'h', type: { type: 'fixed', name: 'Hash', size: 4 } },
        { name: 'n', type: 'int', default: 3, doc: 'count' },
      ]),
    );
    const [h, n] = schema.fields;
    expect(h?.schema).toMatchObject({
      type: 'bytes',
      name: 'ns.Hash',
      parameters: { 'connect.fixed.size': '4' },
    });
    expect(n?.schema).toMatchObject({
      type: 'int32',
      defaultValue: 3,
      parameters: { 'io.confluent.connect.avro.field.default': 'true' },
    });
    expect(schema.parameters).toEqual({ 'io.confluent.connect.avro.field.doc.n': 'count' });
  });

  it('takes the registry version when the schema carries no connect.version', () => {
    expect(toConnectSchema(record([{ name: 'i', type: 'int' }]), undefined, 4).version).toBe(4);
  });

  it('refuses a record that holds itself, and a standalone null', () => {
    const list = record([{ name: 'next', type: ['null', 'R'] }]);
    expect(() => toConnectSchema(list)).toThrow(/Recursive Avro schemas are not supported/);
    expect(() => toConnectSchema('null')).toThrow(DataError);
  });

  it('reads values of a foreign union and enum', () => {
    const avroData = new AvroData({ cacheSize: 10 });
    const writer = JSON.stringify(
      record([
        { name: 'u', type: ['null', 'int', 'string'] },
        { name: 'e', type: { type: 'enum', name: 'E', symbols: ['A', 'B'] } },
      ]),
    );
    const codec = avroData.forAvroSchema(writer);
    // u = branch 2 ("string") "hi", e = symbol 1 ("B")
    const value = codec.decode(Uint8Array.of(0x04, 0x04, 0x68, 0x69, 0x02)) as Struct;
    expect((value.get('u') as Struct).get('string')).toBe('hi');
    expect(value.get('e')).toBe('B');
  });
});

describe('AvroCodec', () => {
  const schema = SchemaBuilder.struct().name('R').field('n', Schemas.INT32).build();
  const codec = new AvroData({ cacheSize: 10 }).forConnectSchema(schema);

  it('refuses a value that does not fit the schema, and a null for a required one', () => {
    expect(() => codec.encode(new Struct(schema).put('n', 1).put('n', 1) && 'text')).toThrow(
      DataError,
    );
    expect(() => codec.encode(null)).toThrow(DataError);
  });

  it('refuses bytes that do not parse as the schema', () => {
    expect(() => codec.decode(Uint8Array.of(0x80))).toThrow(DataError);
    expect(() => codec.decode(Uint8Array.of(0x02, 0x02))).toThrow(DataError);
  });

  it('caches codecs by schema, up to schemas.cache.size', () => {
    const avroData = new AvroData({ cacheSize: 1 });
    const other = SchemaBuilder.struct().name('S').field('s', Schemas.STRING).build();
    const first = avroData.forConnectSchema(schema);
    expect(avroData.forConnectSchema(schema)).toBe(first);
    avroData.forConnectSchema(other);
    expect(avroData.forConnectSchema(schema)).not.toBe(first);
  });
});
