import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import {
  BigDecimal,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
} from '../../../../../../shared/connect/logical-types.js';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import {
  scalarIdentity,
  scalarTypeOf,
  toAttributes,
  toAttributeValue,
} from '../../../../../../shared/plugins/connectors/dynamodb-sink/attribute-value.js';

describe('toAttributeValue', () => {
  it.each([
    ['int8', Schemas.INT8, -8, { N: '-8' }],
    ['int16', Schemas.INT16, 300, { N: '300' }],
    ['int32', Schemas.INT32, 2_000_000_000, { N: '2000000000' }],
    ['int64 as a number', Schemas.INT64, 9_007_199_254_740_991, { N: '9007199254740991' }],
    ['int64 as a bigint', Schemas.INT64, 9_223_372_036_854_775_807n, { N: '9223372036854775807' }],
    ['float32', Schemas.FLOAT32, 1.5, { N: '1.5' }],
    ['float64', Schemas.FLOAT64, -0.000123, { N: '-0.000123' }],
    ['boolean', Schemas.BOOLEAN, false, { BOOL: false }],
    ['string', Schemas.STRING, 'héllo', { S: 'héllo' }],
    ['empty string', Schemas.STRING, '', { S: '' }],
    ['bytes', Schemas.BYTES, new Uint8Array([0, 255]), { B: new Uint8Array([0, 255]) }],
  ])('maps %s', (_name, schema, value, expected) => {
    // Act
    const attribute = toAttributeValue(schema, value, 'value');

    // Assess
    expect(attribute).toEqual(expected);
  });

  it('maps null and undefined to NULL, with or without a schema', () => {
    // Act
    const values = [
      toAttributeValue(Schemas.OPTIONAL_STRING, null, 'v'),
      toAttributeValue(null, null, 'v'),
      toAttributeValue(null, undefined, 'v'),
    ];

    // Assess
    expect(values).toEqual([{ NULL: true }, { NULL: true }, { NULL: true }]);
  });

  it('maps a Decimal to a number in plain notation with full precision', () => {
    // Prepare
    const schema = LogicalDecimal.schema(4);
    const value = BigDecimal.parse('12345678901234567890.1234');

    // Act
    const attribute = toAttributeValue(schema, value, 'value.price');

    // Assess
    expect(attribute).toEqual({ N: '12345678901234567890.1234' });
  });

  it('maps Date, Time and Timestamp to ISO-8601 strings', () => {
    // Prepare
    const instant = new Date(Date.UTC(2024, 0, 31, 12, 34, 56, 789));

    // Act
    const date = toAttributeValue(LogicalDate.schema(), new Date(Date.UTC(2024, 0, 31)), 'd');
    const time = toAttributeValue(LogicalTime.schema(), new Date(45_296_789), 't');
    const timestamp = toAttributeValue(LogicalTimestamp.schema(), instant, 'ts');

    // Assess
    expect([date, time, timestamp]).toEqual([
      { S: '2024-01-31' },
      { S: '12:34:56.789' },
      { S: '2024-01-31T12:34:56.789Z' },
    ]);
  });

  it('maps nested structs to maps, arrays to lists and applies field defaults', () => {
    // Prepare
    const address = SchemaBuilder.struct()
      .field('city', Schemas.STRING)
      .field('zip', SchemaBuilder.string().optional().defaultValue('00000').build())
      .build();
    const schema = SchemaBuilder.struct()
      .field('address', address)
      .field('tags', SchemaBuilder.array(Schemas.STRING).build())
      .field('scores', SchemaBuilder.map(Schemas.STRING, Schemas.INT64).build())
      .build();
    const value = new Struct(schema)
      .put('address', new Struct(address).put('city', 'Lyon'))
      .put('tags', ['a', 'b'])
      .put('scores', new Map([['x', 1n]]));

    // Act
    const attribute = toAttributeValue(schema, value, 'value');

    // Assess
    expect(attribute).toEqual({
      M: {
        address: { M: { city: { S: 'Lyon' }, zip: { S: '00000' } } },
        tags: { L: [{ S: 'a' }, { S: 'b' }] },
        scores: { M: { x: { N: '1' } } },
      },
    });
  });

  it('writes map keys that are numbers or booleans as text', () => {
    // Prepare
    const schema = SchemaBuilder.map(Schemas.INT32, Schemas.BOOLEAN).build();

    // Act
    const attribute = toAttributeValue(schema, new Map([[7, true]]), 'value');

    // Assess
    expect(attribute).toEqual({ M: { '7': { BOOL: true } } });
  });

  it('maps schemaless values by their JavaScript type', () => {
    // Prepare
    const value = {
      s: 'x',
      n: 3.25,
      big: 12345678901234567890n,
      b: true,
      bytes: new Uint8Array([1]),
      when: new Date(0),
      price: BigDecimal.parse('1.50'),
      list: [1, 'two', null],
      nested: new Map([['k', { deep: 1 }]]),
    };

    // Act
    const attribute = toAttributeValue(null, value, 'value');

    // Assess
    expect(attribute).toEqual({
      M: {
        s: { S: 'x' },
        n: { N: '3.25' },
        big: { N: '12345678901234567890' },
        b: { BOOL: true },
        bytes: { B: new Uint8Array([1]) },
        when: { S: '1970-01-01T00:00:00.000Z' },
        price: { N: '1.50' },
        list: { L: [{ N: '1' }, { S: 'two' }, { NULL: true }] },
        nested: { M: { k: { M: { deep: { N: '1' } } } } },
      },
    });
  });

  it.each([
    ['NaN', Schemas.FLOAT64, Number.NaN, 'is not a finite number'],
    ['Infinity', null, Number.POSITIVE_INFINITY, 'is not a finite number'],
    ['a string for an int32 schema', Schemas.INT32, '12', 'expected a number value, got string'],
    ['a number for a string schema', Schemas.STRING, 12, 'expected a string value, got number'],
    ['a symbol', null, Symbol('x'), 'unsupported value symbol'],
    ['an invalid Date', LogicalTimestamp.schema(), new Date(Number.NaN), 'expected a Date value'],
  ])('throws DataError naming the path for %s', (_name, schema, value, message) => {
    // Act
    const act = () => toAttributeValue(schema, value, 'value.field');

    // Assess
    expect(act).toThrow(DataError);
    expect(act).toThrow(`Cannot write value.field to DynamoDB: `);
    expect(act).toThrow(message);
  });
});

describe('toAttributes', () => {
  it('turns a struct or a map into item attributes', () => {
    // Prepare
    const schema = SchemaBuilder.struct().field('id', Schemas.STRING).build();

    // Act
    const fromStruct = toAttributes(schema, new Struct(schema).put('id', 'a'), 'value');
    const fromMap = toAttributes(null, new Map([['id', 'b']]), 'value');

    // Assess
    expect([fromStruct, fromMap]).toEqual([{ id: { S: 'a' } }, { id: { S: 'b' } }]);
  });

  it('refuses a primitive value as an item', () => {
    // Act
    const act = () => toAttributes(Schemas.STRING, 'just text', 'value');

    // Assess
    expect(act).toThrow('expected a struct or a map, got string');
  });
});

describe('scalarIdentity', () => {
  it('is equal for numbers DynamoDB considers equal', () => {
    // Act
    const ids = ['1', '1.0', '1e0', '10E-1'].map((n) => scalarIdentity({ N: n }));

    // Assess
    expect(new Set(ids).size).toBe(1);
    expect(scalarIdentity({ N: '0.00' })).toBe(scalarIdentity({ N: '0' }));
  });

  it('tells types and bytes apart', () => {
    // Act
    const ids = [
      scalarIdentity({ S: '1' }),
      scalarIdentity({ N: '1' }),
      scalarIdentity({ B: new Uint8Array([1]) }),
      scalarIdentity({ B: new Uint8Array([1, 0]) }),
    ];

    // Assess
    expect(new Set(ids).size).toBe(4);
    expect(scalarTypeOf({ BOOL: true })).toBeNull();
  });
});
