/**
 * The Connect ↔ JSON Schema mapping against the rules of Confluent's `JsonSchemaData` (read, not
 * run: Confluent's converter is not on Maven Central): the schema text the converter registers,
 * the JSON it writes, and the Connect schemas and values it reads back, for schemas Connect wrote
 * and for schemas a user registered. Java's `HashMap` key order (the order of `properties` and
 * `connect.*` keywords in Confluent's text) is checked against vectors printed by Java 21.
 */
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import {
  BigDecimal,
  LogicalDate,
  LogicalDecimal,
  LogicalTimestamp,
} from '../../../../../../shared/connect/logical-types.js';
import { type Schema, SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import {
  type FromConnectOptions,
  jsonSchemaOf,
} from '../../../../../../shared/plugins/converters/json-schema/from-connect-schema.js';
import { writeJsonValue } from '../../../../../../shared/plugins/converters/json-schema/json-schema-values.js';
import {
  javaHashMapOrder,
  jsonNodeText,
} from '../../../../../../shared/plugins/converters/json-schema/json-tree.js';
import { readJsonValue } from '../../../../../../shared/plugins/converters/json-schema/read-json-value.js';
import { connectSchemaOf } from '../../../../../../shared/plugins/converters/json-schema/to-connect-schema.js';
import { parseJsonText } from '../../../../../../shared/plugins/converters/json-text.js';

const OPTIONS: FromConnectOptions = { decimalFormat: 'BASE64', allowAdditionalProperties: true };

const schemaText = (schema: Schema, options = OPTIONS) =>
  jsonNodeText(jsonSchemaOf(schema, options));
const readSchema = (
  text: string,
  version: number | null = null,
  useOptionalForNonRequired = false,
) => connectSchemaOf(parseJsonText(text) ?? null, version, { useOptionalForNonRequired });
const write = (schema: Schema, value: unknown) => writeJsonValue(schema, value, 'BASE64');
const read = (schema: Schema, json: string) => readJsonValue(schema, parseJsonText(json));

describe('javaHashMapOrder', () => {
  it('orders keys as java.util.HashMap iterates them (vectors from Java 21)', () => {
    expect(
      javaHashMapOrder([
        'id',
        'customer',
        'amount',
        'placed',
        'qty',
        'tags',
        'attributes',
        'note',
        'payload',
        'coupon',
      ]),
    ).toEqual([
      'note',
      'amount',
      'placed',
      'coupon',
      'payload',
      'qty',
      'attributes',
      'id',
      'customer',
      'tags',
    ]);
    expect(
      javaHashMapOrder(['connect.type', 'connect.version', 'connect.parameters', 'connect.index']),
    ).toEqual(['connect.version', 'connect.index', 'connect.type', 'connect.parameters']);
    const fields = Array.from({ length: 14 }, (_, i) => `field${i}`);
    // 14 keys: the table has grown to 32 buckets.
    expect(javaHashMapOrder(fields)).toEqual(
      [11, 12, 1, 0, 10, 13, 7, 6, 9, 8, 3, 2, 5, 4].map((i) => `field${i}`),
    );
  });
});

describe('Connect schema → JSON Schema (the text registered)', () => {
  it.each([
    [Schemas.INT8, '{"connect.type":"int8","type":"integer"}'],
    [Schemas.INT16, '{"connect.type":"int16","type":"integer"}'],
    [Schemas.INT32, '{"connect.type":"int32","type":"integer"}'],
    [Schemas.INT64, '{"connect.type":"int64","type":"integer"}'],
    [Schemas.FLOAT32, '{"connect.type":"float32","type":"number"}'],
    [Schemas.FLOAT64, '{"connect.type":"float64","type":"number"}'],
    [Schemas.BOOLEAN, '{"type":"boolean"}'],
    [Schemas.STRING, '{"type":"string"}'],
    [Schemas.BYTES, '{"connect.type":"bytes","type":"string"}'],
    [Schemas.OPTIONAL_STRING, '{"oneOf":[{"type":"null"},{"type":"string"}]}'],
    [
      LogicalDecimal.schema(2),
      '{"title":"org.apache.kafka.connect.data.Decimal","connect.version":1,"connect.type":"bytes","connect.parameters":{"scale":"2"},"type":"string"}',
    ],
    [
      LogicalDate.schema(),
      '{"title":"org.apache.kafka.connect.data.Date","connect.version":1,"connect.type":"int32","type":"integer"}',
    ],
    [
      LogicalTimestamp.builder().defaultValue(new Date(0)).build(),
      '{"title":"org.apache.kafka.connect.data.Timestamp","default":0,"connect.version":1,"connect.type":"int64","type":"integer"}',
    ],
    [SchemaBuilder.array(Schemas.STRING).build(), '{"type":"array","items":{"type":"string"}}'],
    [
      SchemaBuilder.map(Schemas.STRING, Schemas.INT32).build(),
      '{"connect.type":"map","type":"object","additionalProperties":{"connect.type":"int32","type":"integer"}}',
    ],
    [
      SchemaBuilder.map(Schemas.INT32, Schemas.INT32).build(),
      '{"connect.type":"map","type":"array","items":{"type":"object","properties":{"value":{"connect.index":1,"connect.type":"int32","type":"integer"},"key":{"connect.index":0,"connect.type":"int32","type":"integer"}}}}',
    ],
    [
      SchemaBuilder.map(Schemas.OPTIONAL_STRING, Schemas.INT32).build(),
      '{"connect.type":"map","type":"array","items":{"type":"object","properties":{"value":{"connect.index":1,"connect.type":"int32","type":"integer"},"key":{"connect.index":0,"oneOf":[{"type":"null"},{"type":"string"}]}}}}',
    ],
    [
      SchemaBuilder.string()
        .parameter('io.confluent.connect.json.Enum', '')
        .parameter('io.confluent.connect.json.Enum.one', 'one')
        .parameter('io.confluent.connect.json.Enum.two', 'two')
        .build(),
      '{"enum":["one","two"]}',
    ],
  ])('maps %s', (schema, expected) => {
    expect(schemaText(schema)).toBe(expected);
  });

  it('maps a struct to an object titled by its name, each field with its connect.index, optional ones as oneOf with null', () => {
    const schema = SchemaBuilder.struct()
      .name('com.example.Order')
      .doc('an order')
      .version(3)
      .parameter('owner', 'sales')
      .field('id', Schemas.INT64)
      .field('note', Schemas.OPTIONAL_STRING)
      .field('qty', SchemaBuilder.int16().defaultValue(1).build())
      .field(
        'address',
        SchemaBuilder.struct().name('Address').field('city', Schemas.STRING).optional().build(),
      )
      .build();

    const json = JSON.parse(schemaText(schema));

    expect(Object.keys(json)).toEqual([
      'title',
      'description',
      'connect.version',
      'connect.parameters',
      'type',
      'properties',
    ]);
    expect(json).toMatchObject({
      title: 'com.example.Order',
      description: 'an order',
      'connect.version': 3,
    });
    expect(json['connect.parameters']).toEqual({ owner: 'sales' });
    expect(json.properties).toEqual({
      id: { 'connect.index': 0, 'connect.type': 'int64', type: 'integer' },
      note: { 'connect.index': 1, oneOf: [{ type: 'null' }, { type: 'string' }] },
      qty: { default: 1, 'connect.index': 2, 'connect.type': 'int16', type: 'integer' },
      address: {
        'connect.index': 3,
        oneOf: [
          { type: 'null' },
          {
            title: 'Address',
            type: 'object',
            properties: { city: { 'connect.index': 0, type: 'string' } },
          },
        ],
      },
    });
    expect(json.required).toBeUndefined(); // Confluent lists no required properties
  });

  it('closes objects with object.additional.properties=false and writes Decimal as a number with decimal.format=NUMERIC', () => {
    const schema = SchemaBuilder.struct().field('amount', LogicalDecimal.schema(2)).build();

    const json = JSON.parse(
      schemaText(schema, { decimalFormat: 'NUMERIC', allowAdditionalProperties: false }),
    );

    expect(json.additionalProperties).toBe(false);
    expect(json.properties.amount.type).toBe('number');
  });

  it('maps a io.confluent.connect.json.OneOf struct to oneOf of its fields', () => {
    const union = SchemaBuilder.struct()
      .name('io.confluent.connect.json.OneOf')
      .field('io.confluent.connect.json.OneOf.field.0', Schemas.OPTIONAL_INT32)
      .field('io.confluent.connect.json.OneOf.field.1', Schemas.OPTIONAL_STRING)
      .optional()
      .build();

    expect(schemaText(union)).toBe(
      '{"oneOf":[{"type":"null"},{"connect.index":0,"connect.type":"int32","type":"integer"},{"connect.index":1,"type":"string"}]}',
    );
  });
});

describe('Connect value → JSON', () => {
  const order = SchemaBuilder.struct()
    .field('id', Schemas.INT64)
    .field('amount', LogicalDecimal.schema(2))
    .field('placed', LogicalTimestamp.schema())
    .field('ratio', Schemas.FLOAT32)
    .field('payload', Schemas.BYTES)
    .field('tags', SchemaBuilder.array(Schemas.STRING).build())
    .field('byId', SchemaBuilder.map(Schemas.INT32, Schemas.STRING).build())
    .field('attrs', SchemaBuilder.map(Schemas.STRING, Schemas.OPTIONAL_INT32).build())
    .field('note', Schemas.OPTIONAL_STRING)
    .field('qty', SchemaBuilder.int16().defaultValue(1).build())
    .field('missing', Schemas.STRING)
    .build();
  const value = new Struct(order)
    .put('id', 2n ** 60n)
    .put('amount', new BigDecimal(156n, 2))
    .put('placed', new Date(1234567890))
    .put('ratio', Math.fround(12.2))
    .put('payload', new TextEncoder().encode('foo'))
    .put('tags', ['a'])
    .put('byId', new Map([[54, 'x']]))
    .put('attrs', new Map([['k', null]]));
  const json =
    '{"id":1152921504606846976,"amount":"AJw=","placed":1234567890,"ratio":12.2,"payload":"Zm9v",' +
    '"tags":["a"],"byId":[{"key":54,"value":"x"}],"attrs":{"k":null},"note":null,"qty":1}';

  it('writes fields in order, int64 exactly, Decimal as base64, bytes as base64, maps by key type; a null required field is left out', () => {
    expect(write(order, value)).toBe(json);
  });

  it('reads the same JSON back to an equal struct', () => {
    const back = read(order, json) as Struct;

    expect(back.get('id')).toBe(2n ** 60n);
    expect(back.get('amount')).toEqual(new BigDecimal(156n, 2));
    expect(back.get('placed')).toEqual(new Date(1234567890));
    expect(back.get('byId')).toEqual(new Map([[54, 'x']]));
    expect(back.get('attrs')).toEqual(new Map([['k', null]]));
    expect(back.get('note')).toBeNull();
    expect(back.get('qty')).toBe(1);
    expect(write(order, back)).toBe(json);
  });

  it('writes a null value as null for an optional schema, as the default when there is one, and not at all otherwise', () => {
    expect(write(Schemas.OPTIONAL_BOOLEAN, null)).toBe('null');
    expect(write(SchemaBuilder.int32().defaultValue(7).build(), null)).toBe('7');
    expect(write(Schemas.BOOLEAN, null)).toBeUndefined();
  });

  it('fails with a DataError on JSON of the wrong kind and a null for a required schema', () => {
    expect(() => read(Schemas.INT32, '"12"')).toThrow(DataError);
    expect(() => read(Schemas.INT8, '300')).toThrow(DataError);
    expect(() => read(Schemas.STRING, 'null')).toThrow(
      'Invalid null value for required STRING field',
    );
    expect(() => read(SchemaBuilder.map(Schemas.INT32, Schemas.INT32).build(), '{"a":1}')).toThrow(
      'Maps with non-string fields should be encoded as JSON array of objects, but found OBJECT',
    );
  });
});

describe('JSON Schema → Connect schema', () => {
  it('reads back what the mapping wrote: types, field order by connect.index, names, versions, defaults, parameters', () => {
    const schema = SchemaBuilder.struct()
      .name('com.example.Order')
      .field('id', Schemas.INT64)
      .field('note', Schemas.OPTIONAL_STRING)
      .field('qty', SchemaBuilder.int16().defaultValue(1).build())
      .field('amount', LogicalDecimal.schema(2))
      .field('byId', SchemaBuilder.map(Schemas.INT32, Schemas.STRING).build())
      .field('attrs', SchemaBuilder.map(Schemas.STRING, Schemas.INT32).build())
      .field('payload', Schemas.BYTES)
      .build();

    const back = readSchema(schemaText(schema), 4);

    expect(back.name).toBe('com.example.Order');
    expect(back.version).toBe(4); // the registry's version, as the schema has no connect.version
    expect(back.fields.map((f) => [f.name, f.schema.type, f.schema.optional])).toEqual([
      ['id', 'int64', false],
      ['note', 'string', true],
      ['qty', 'int16', false],
      ['amount', 'bytes', false],
      ['byId', 'map', false],
      ['attrs', 'map', false],
      ['payload', 'bytes', false],
    ]);
    expect(back.field('qty')?.schema.defaultValue).toBe(1);
    expect(back.field('amount')?.schema).toMatchObject({
      name: 'org.apache.kafka.connect.data.Decimal',
      version: 1,
      parameters: { scale: '2' },
    });
    expect(back.field('byId')?.schema.keySchema?.type).toBe('int32');
  });

  it('reads a schema a user registered: JSON types, nested objects, arrays, enums as strings, oneOf and type lists with null as optional', () => {
    const text = JSON.stringify({
      $schema: 'http://json-schema.org/draft-07/schema#',
      title: 'Person',
      type: 'object',
      properties: {
        name: { type: 'string', description: 'full name' },
        age: { type: 'integer', minimum: 0 },
        score: { type: 'number' },
        active: { type: 'boolean' },
        nick: { oneOf: [{ type: 'null' }, { type: 'string' }] },
        email: { type: ['string', 'null'] },
        color: { type: 'string', enum: ['red', 'green'] },
        address: { $ref: '#/definitions/Address' },
        tags: { type: 'array', items: { type: 'string' } },
        id: { oneOf: [{ type: 'integer' }, { type: 'string' }] },
      },
      required: ['name'],
      definitions: { Address: { type: 'object', properties: { city: { type: 'string' } } } },
    });

    const schema = readSchema(text, 1);

    expect(schema).toMatchObject({ type: 'struct', name: 'Person', version: 1 });
    expect(schema.fields.map((f) => [f.name, f.schema.type, f.schema.optional])).toEqual([
      ['name', 'string', false],
      ['age', 'int64', false],
      ['score', 'float64', false],
      ['active', 'boolean', false],
      ['nick', 'string', true],
      ['email', 'string', true],
      ['color', 'string', false],
      ['address', 'struct', false],
      ['tags', 'array', false],
      ['id', 'struct', false],
    ]);
    expect(schema.field('name')?.schema.doc).toBe('full name');
    expect(schema.field('color')?.schema.parameters).toEqual({
      'io.confluent.connect.json.Enum': '',
      'io.confluent.connect.json.Enum.red': 'red',
      'io.confluent.connect.json.Enum.green': 'green',
    });
    expect(schema.field('id')?.schema.name).toBe('io.confluent.connect.json.OneOf');
    const person = read(
      schema,
      '{"name":"Ada","age":36,"id":"x7","address":{"city":"London"}}',
    ) as Struct;
    expect(person.get('age')).toBe(36);
    expect((person.get('address') as Struct).get('city')).toBe('London');
    expect((person.get('id') as Struct).get('io.confluent.connect.json.OneOf.field.1')).toBe('x7');
  });

  it('makes properties not in required optional with use.optional.for.nonrequired', () => {
    const text =
      '{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"]}';

    const schema = readSchema(text, null, true);

    expect(schema.fields.map((f) => f.schema.optional)).toEqual([false, true]);
  });

  it('refuses what Connect cannot type: an empty schema, tuple items, a recursive schema, a remote reference', () => {
    expect(() => readSchema('{}')).toThrow(DataError);
    expect(() => readSchema('{"type":"array","items":[{"type":"string"}]}')).toThrow(
      'Array schema did not specify the items type',
    );
    expect(() => readSchema('{"type":"object","properties":{"next":{"$ref":"#"}}}')).toThrow(
      /Recursive JSON schemas are not supported/,
    );
    expect(() => readSchema('{"$ref":"https://example.com/other.json"}')).toThrow(/not supported/);
  });
});
