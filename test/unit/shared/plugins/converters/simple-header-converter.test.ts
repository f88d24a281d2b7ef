import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../shared/connect/errors.js';
import {
  BigDecimal,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
} from '../../../../../shared/connect/logical-types.js';
import {
  NULL_SCHEMA_AND_VALUE,
  type Schema,
  SchemaBuilder,
  Schemas,
  valuesEqual,
} from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import { SimpleHeaderConverter } from '../../../../../shared/plugins/converters/simple-header-converter.js';

const converter = new SimpleHeaderConverter();

function read(text: string) {
  return converter.toConnectHeader('topic', 'h', new TextEncoder().encode(text));
}

function written(schema: Schema | null, value: unknown): string | null {
  const bytes = converter.fromConnectHeader('topic', 'h', schema, value);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}

const arrayOf = (schema: Schema | null) => new SchemaBuilder('array', null, schema).build();
const mapOf = (key: Schema | null, value: Schema | null) =>
  new SchemaBuilder('map', key, value).build();

describe('SimpleHeaderConverter', () => {
  describe('reading (Values.parseString)', () => {
    it.each([
      ['true', Schemas.BOOLEAN, true],
      ['false', Schemas.BOOLEAN, false],
      ['42', Schemas.INT8, 42],
      [' -7 ', Schemas.INT8, -7],
      ['300', Schemas.INT16, 300],
      ['70000', Schemas.INT32, 70000],
      ['007', Schemas.INT8, 7],
      ['-0', Schemas.INT8, 0],
      ['-129', Schemas.INT16, -129],
      ['32768', Schemas.INT32, 32768],
      ['-999999999', Schemas.INT32, -999999999],
      ['1234567890', Schemas.INT32, 1234567890],
      ['+5', Schemas.INT8, 5],
      ['3000000000', Schemas.INT64, 3000000000],
      ['9223372036854775807', Schemas.INT64, 9223372036854775807n],
      ['1.0', Schemas.INT8, 1],
      ['1.5', Schemas.FLOAT32, 1.5],
      ['3.14', Schemas.FLOAT32, Math.fround(3.14)],
      ['1e300', Schemas.FLOAT64, 1e300],
      ['9223372036854775808', LogicalDecimal.schema(0), new BigDecimal(9223372036854775808n, 0)],
      ['hello', Schemas.STRING, 'hello'],
      ['hello world', Schemas.STRING, 'hello world'],
      ['', Schemas.STRING, ''],
      ['  ', Schemas.STRING, '  '],
      ['true}', Schemas.STRING, 'true}'],
      ['[1,2', Schemas.STRING, '[1,2'],
      ['[1,2]x', Schemas.STRING, '[1,2]x'],
      ['{a:1}', Schemas.STRING, '{a:1}'],
      ['.5', Schemas.STRING, '.5'],
      ['2024-13-01', Schemas.STRING, '2024-13-01'],
      ['2024-01-31', LogicalDate.schema(), new Date(Date.UTC(2024, 0, 31))],
      ['12:34:56.789Z', LogicalTime.schema(), new Date(45296789)],
      ['2024-01-31T12:34:56.789Z', LogicalTimestamp.schema(), new Date('2024-01-31T12:34:56.789Z')],
    ])('reads %j as the right type', (text, schema, value) => {
      // Act
      const result = read(text);

      // Assess
      expect(result.schema).toEqual(schema);
      expect(valuesEqual(result.value, value)).toBe(true);
      if (typeof value === 'number') expect(Object.is(result.value, value)).toBe(true);
    });

    it.each([
      ['[1,2,3]', arrayOf(Schemas.INT8), [1, 2, 3]],
      ['[1, 300]', arrayOf(Schemas.INT16), [1, 300]],
      ['[1,2.5]', arrayOf(Schemas.FLOAT32), [1, 2.5]],
      ['["a","b,c"]', arrayOf(Schemas.STRING), ['a', 'b,c']],
      ['["say \\"hi\\"","back\\\\slash"]', arrayOf(Schemas.STRING), ['say "hi"', 'back\\slash']],
      ['[1,null]', arrayOf(Schemas.OPTIONAL_INT8), [1, null]],
      ['[1,"a"]', arrayOf(null), [1, 'a']],
      ['[]', arrayOf(null), []],
      ['[[1,2],[3]]', arrayOf(arrayOf(Schemas.INT8)), [[1, 2], [3]]],
      ['[true,false]', arrayOf(Schemas.BOOLEAN), [true, false]],
      [
        '[2024-01-31,2024-02-01]',
        arrayOf(LogicalDate.schema()),
        [new Date(Date.UTC(2024, 0, 31)), new Date(Date.UTC(2024, 1, 1))],
      ],
      [
        '[2024-01-31T12:34:56.789Z]',
        arrayOf(LogicalTimestamp.schema()),
        [new Date('2024-01-31T12:34:56.789Z')],
      ],
    ])('reads the array %j', (text, schema, value) => {
      // Act
      const result = read(text);

      // Assess
      expect(result.schema).toEqual(schema);
      expect(result.value).toEqual(value);
    });

    it.each([
      [
        '{"a":1,"b":2}',
        mapOf(Schemas.STRING, Schemas.INT8),
        new Map([
          ['a', 1],
          ['b', 2],
        ]),
      ],
      ['{ "a" : [1] }', mapOf(Schemas.STRING, arrayOf(Schemas.INT8)), new Map([['a', [1]]])],
      [
        '{1:"x",2:"y"}',
        mapOf(Schemas.INT8, Schemas.STRING),
        new Map([
          [1, 'x'],
          [2, 'y'],
        ]),
      ],
      ['{"a":null}', mapOf(Schemas.STRING, null), new Map([['a', null]])],
      ['{}', mapOf(null, null), new Map()],
    ])('reads the map %j', (text, schema, value) => {
      // Act
      const result = read(text);

      // Assess
      expect(result.schema).toEqual(schema);
      expect(result.value).toEqual(value);
    });

    it('reads null bytes and the literal null as no value', () => {
      // Act
      const fromNull = converter.toConnectHeader('topic', 'h', null);
      const fromLiteral = read('null');

      // Assess
      expect(fromNull).toEqual(NULL_SCHEMA_AND_VALUE);
      expect(fromLiteral).toEqual(NULL_SCHEMA_AND_VALUE);
    });

    it('reads bytes that are not UTF-8 as text with replacement characters', () => {
      // Act
      const result = converter.toConnectHeader('topic', 'h', new Uint8Array([0x61, 0xff]));

      // Assess
      expect(result).toEqual({ schema: Schemas.STRING, value: 'a\ufffd' });
    });
  });

  describe('writing (Values.convertToString)', () => {
    const person = SchemaBuilder.struct()
      .field('name', Schemas.STRING)
      .field('score', SchemaBuilder.float64().defaultValue(1).build())
      .build();

    it.each([
      ['a top-level string, unquoted', Schemas.STRING, 'a "b"', 'a "b"'],
      ['an int', Schemas.INT32, 5, '5'],
      ['a float64', Schemas.FLOAT64, 2, '2.0'],
      ['a float32', Schemas.FLOAT32, Math.fround(0.1), '0.1'],
      ['a boolean', null, false, 'false'],
      ['an int64 bigint', Schemas.INT64, 9223372036854775807n, '9223372036854775807'],
      ['bytes as base64', Schemas.BYTES, new Uint8Array([1, 2, 3]), 'AQID'],
      ['a list with quoted strings', null, ['a', 'say "hi"', null], '["a","say \\"hi\\"",null]'],
      [
        'a map',
        null,
        new Map<unknown, unknown>([
          ['a', 1],
          [2, 'b'],
        ]),
        '{"a":1,2:"b"}',
      ],
      [
        'a struct, defaults applied',
        person,
        new Struct(person).put('name', 'Ada'),
        '{"name":"Ada","score":1.0}',
      ],
      ['a date', LogicalDate.schema(), new Date(Date.UTC(2024, 0, 31)), '2024-01-31'],
      ['a time', LogicalTime.schema(), new Date(45296789), '12:34:56.789Z'],
      [
        'a timestamp at midnight',
        LogicalTimestamp.schema(),
        new Date(0),
        '1970-01-01T00:00:00.000Z',
      ],
      ['a schemaless date at midnight', null, new Date(Date.UTC(2024, 0, 31)), '2024-01-31'],
      ['a decimal', LogicalDecimal.schema(2), BigDecimal.parse('12.50'), '12.50'],
    ])('writes %s', (_what, schema, value, expected) => {
      // Act
      const text = written(schema, value);

      // Assess
      expect(text).toBe(expected);
    });

    it('writes null as null bytes', () => {
      // Act
      const bytes = converter.fromConnectHeader('topic', 'h', Schemas.OPTIONAL_STRING, null);

      // Assess
      expect(bytes).toBeNull();
    });

    it('rejects values that are not Connect data', () => {
      // Act
      const act = () => written(null, () => 1);

      // Assess
      expect(act).toThrow(DataError);
    });
  });

  describe('round trips (property)', () => {
    it('reads back lists of strings, integers or booleans as written', () => {
      const items = fc.oneof(
        fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.integer(), { minLength: 1, maxLength: 5 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
      );
      fc.assert(
        fc.property(items, (list) => {
          // Act
          const back = read(written(null, list) ?? '');

          // Assess
          expect(back.value).toEqual(list);
        }),
      );
    });

    it('reads back maps of strings to integers as written', () => {
      const entries = fc.uniqueArray(fc.tuple(fc.string({ unit: 'binary' }), fc.integer()), {
        selector: ([k]) => k,
        minLength: 1,
        maxLength: 5,
      });
      fc.assert(
        fc.property(entries, (pairs) => {
          // Prepare
          const map = new Map(pairs);

          // Act
          const back = read(written(null, map) ?? '');

          // Assess
          expect(back.value).toEqual(map);
        }),
      );
    });

    it('reads back dates, times and timestamps with their logical schemas', () => {
      const temporal = fc.oneof(
        fc
          .integer({ min: -700_000, max: 2_900_000 })
          .map((d) => [LogicalDate.schema(), new Date(d * 86_400_000)] as const),
        fc
          .integer({ min: 0, max: 86_399_999 })
          .map((ms) => [LogicalTime.schema(), new Date(ms)] as const),
        fc
          .integer({ min: -62_000_000_000_000, max: 253_000_000_000_000 })
          .map((ms) => [LogicalTimestamp.schema(), new Date(ms)] as const),
      );
      fc.assert(
        fc.property(temporal, ([schema, date]) => {
          // Act
          const back = read(written(schema, date) ?? '');

          // Assess
          expect(back.schema?.name).toBe(schema.name);
          expect(back.value).toEqual(date);
        }),
      );
    });
  });
});
