import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../../../shared/connect/headers.js';
import {
  BigDecimal,
  LogicalDate,
  LogicalDecimal,
} from '../../../../../shared/connect/logical-types.js';
import {
  NULL_SCHEMA_AND_VALUE,
  type Schema,
  SchemaBuilder,
  Schemas,
} from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import { JsonConverter } from '../../../../../shared/plugins/converters/json-converter.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function converter(props: Record<string, string> = {}, isKey = false): JsonConverter {
  const c = new JsonConverter();
  c.configure(props, isKey);
  return c;
}

function write(c: JsonConverter, schema: Schema | null, value: unknown): string | null {
  const bytes = c.fromConnectData('topic', EMPTY_HEADERS, schema, value);
  return bytes === null ? null : decoder.decode(bytes);
}

function read(c: JsonConverter, json: string) {
  return c.toConnectData('topic', EMPTY_HEADERS, encoder.encode(json));
}

const ENVELOPE_MESSAGE =
  'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.';

describe('JsonConverter', () => {
  describe('configuration', () => {
    it('uses Connect defaults: schemas enabled, cache of 1000, BASE64 decimals, null replaced by default', () => {
      // Act
      const c = converter();

      // Assess
      expect(c.settings).toEqual({
        converterType: 'value',
        schemasEnabled: true,
        cacheSize: 1000,
        decimalFormat: 'BASE64',
        replaceNullWithDefault: true,
      });
    });

    it('sets converter.type from isKey, and to header when configured as a header converter', () => {
      // Prepare
      const key = new JsonConverter();
      const header = new JsonConverter();

      // Act
      key.configure({}, true);
      header.configure({});

      // Assess
      expect(key.settings.converterType).toBe('key');
      expect(header.settings.converterType).toBe('header');
    });

    it('accepts decimal.format in any case', () => {
      // Act
      const c = converter({ 'decimal.format': 'numeric' });

      // Assess
      expect(c.settings.decimalFormat).toBe('NUMERIC');
    });

    it.each([
      [
        { 'decimal.format': 'HEX' },
        'Invalid value HEX for configuration decimal.format: String must be one of (case insensitive): BASE64, NUMERIC',
      ],
      [
        { 'schemas.enable': 'maybe' },
        'Invalid value maybe for configuration schemas.enable: Expected value to be either true or false',
      ],
    ])('rejects %o with a ConfigError in Kafka words', (props, message) => {
      // Act
      const act = () => converter(props);

      // Assess
      expect(act).toThrow(ConfigError);
      expect(act).toThrow(message);
    });

    it('documents its keys like JsonConverterConfig', () => {
      // Act
      const keys = [...new JsonConverter().config().configKeys().values()];

      // Assess
      expect(keys.map((k) => [k.name, k.defaultValue])).toEqual([
        ['converter.type', expect.anything()],
        ['schemas.enable', true],
        ['schemas.cache.size', 1000],
        ['decimal.format', 'BASE64'],
        ['replace.null.with.default', true],
      ]);
    });
  });

  describe('with schemas.enable=true', () => {
    it('rejects plain JSON without the envelope with Connect message', () => {
      // Act
      const act = () => read(converter(), '{"a":1}');

      // Assess
      expect(act).toThrow(DataError);
      expect(act).toThrow(ENVELOPE_MESSAGE);
    });

    it.each(['{"schema":null,"payload":1,"extra":true}', '{"schema":null}', '[1,2]', '42', ''])(
      'rejects %j as not an envelope',
      (json) => {
        // Act
        const act = () => read(converter(), json);

        // Assess
        expect(act).toThrow(ENVELOPE_MESSAGE);
      },
    );

    it('reads a null schema as schemaless data inside the envelope', () => {
      // Act
      const result = read(converter(), '{"schema":null,"payload":{"a":[1,2.5]}}');

      // Assess
      expect(result.schema).toBeNull();
      expect(result.value).toEqual(new Map([['a', [1, 2.5]]]));
    });

    it('writes schema keys in Connect order: optional, name, version, doc, parameters, default', () => {
      // Prepare
      const schema = SchemaBuilder.int32()
        .optional()
        .name('n')
        .version(2)
        .doc('d')
        .parameter('p', 'v')
        .defaultValue(5)
        .build();

      // Act
      const json = write(converter(), schema, 1);

      // Assess
      expect(json).toBe(
        '{"schema":{"type":"int32","optional":true,"name":"n","version":2,"doc":"d","parameters":{"p":"v"},"default":5},"payload":1}',
      );
    });

    it('reads back the schema it writes, defaults included', () => {
      // Prepare
      const c = converter();
      const schema = SchemaBuilder.struct()
        .name('r')
        .field('when', LogicalDate.builder().optional().defaultValue(new Date(0)).build())
        .field('amount', LogicalDecimal.builder(2).defaultValue(BigDecimal.parse('1.50')).build())
        .field('tags', SchemaBuilder.map(Schemas.INT64, Schemas.OPTIONAL_STRING).optional().build())
        .build();
      const value = new Struct(schema).put('amount', BigDecimal.parse('2.25'));

      // Act
      const result = read(c, write(c, schema, value) ?? '');

      // Assess
      expect(result.schema).toEqual(schema);
      expect((result.value as Struct).get('amount')).toEqual(BigDecimal.parse('2.25'));
      expect((result.value as Struct).get('when')).toEqual(new Date(0));
    });

    it('gives the same schema object for the same schema text (cached)', () => {
      // Prepare
      const c = converter();
      const json = '{"schema":{"type":"string","optional":false},"payload":"a"}';

      // Act
      const first = read(c, json);
      const second = read(c, json);

      // Assess
      expect(second.schema).toBe(first.schema);
    });

    it('works with schema caching disabled', () => {
      // Prepare
      const c = converter({ 'schemas.cache.size': '0' });

      // Act
      const json = write(c, Schemas.STRING, 'a');

      // Assess
      expect(read(c, json ?? '').value).toBe('a');
    });

    it('writes a null value of an optional schema as a null payload, not a tombstone', () => {
      // Act
      const json = write(converter(), Schemas.OPTIONAL_STRING, null);

      // Assess
      expect(json).toBe('{"schema":{"type":"string","optional":true},"payload":null}');
    });
  });

  describe('bad input', () => {
    it.each([
      ['truncated', '{"a":'],
      ['unterminated array', '[1,2'],
      ['leading zero', '01'],
      ['trailing content', '{"a":1} x'],
      ['single quotes', "{'a':1}"],
      ['unescaped control character', '"a\u0001b"'],
      ['invalid escape', '"\\x"'],
      ['NaN literal', 'NaN'],
    ])('rejects malformed JSON (%s) with a DataError', (_what, json) => {
      // Act
      const act = () => read(converter({ 'schemas.enable': 'false' }), json);

      // Assess
      expect(act).toThrow(DataError);
      expect(act).toThrow(/Converting byte\[\] to Kafka Connect data failed/);
    });

    it('rejects bytes that are not UTF-8', () => {
      // Act
      const act = () =>
        converter({ 'schemas.enable': 'false' }).toConnectData(
          'topic',
          EMPTY_HEADERS,
          new Uint8Array([0x22, 0xff, 0x22]),
        );

      // Assess
      expect(act).toThrow(DataError);
    });

    it('rejects JSON nested deeper than Jackson allows', () => {
      // Act
      const act = () => read(converter({ 'schemas.enable': 'false' }), '['.repeat(2000));

      // Assess
      expect(act).toThrow(/nesting deeper than 1000 levels/);
    });

    it.each([
      ['{"type":"int32","optional":false}', '"x"', 'Invalid JSON STRING for schema type INT32'],
      ['{"type":"int8","optional":false}', '300', 'Invalid JSON NUMBER for schema type INT8'],
      ['{"type":"int32","optional":false}', '1.5', 'Invalid JSON NUMBER for schema type INT32'],
      ['{"type":"int64","optional":false}', '9223372036854775808', 'for schema type INT64'],
      ['{"type":"boolean","optional":false}', '1', 'Invalid JSON NUMBER for schema type BOOLEAN'],
      [
        '{"type":"string","optional":false}',
        'null',
        'Invalid null value for required STRING field',
      ],
      ['{"type":"bytes","optional":false}', '"***"', 'Invalid bytes field'],
      [
        '{"type":"array","items":{"type":"int32","optional":false},"optional":false}',
        '{}',
        'Invalid JSON OBJECT for schema type ARRAY',
      ],
      [
        '{"type":"struct","fields":[],"optional":false}',
        '[]',
        'Structs should be encoded as JSON objects, but found ARRAY',
      ],
      [
        '{"type":"map","keys":{"type":"int32","optional":false},"values":{"type":"int32","optional":false},"optional":false}',
        '{"1":2}',
        'Maps with non-string fields should be encoded as JSON array of tuples, but found OBJECT',
      ],
      [
        '{"type":"map","keys":{"type":"int32","optional":false},"values":{"type":"int32","optional":false},"optional":false}',
        '[[1,2,3]]',
        'Found invalid map entry, expected length 2 but found :3',
      ],
      [
        '{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},"optional":false}',
        '[]',
        'Maps with string fields should be encoded as JSON objects, but found ARRAY',
      ],
      [
        '{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1}',
        '"2024-01-01"',
        'Invalid type for Date, underlying representation should be integer but was STRING',
      ],
      [
        '{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}}',
        'true',
        'Invalid type for Decimal, underlying representation should be numeric or bytes but was BOOLEAN',
      ],
    ])('rejects a payload that does not match schema %s: %s', (schema, payload, message) => {
      // Act
      const act = () => read(converter(), `{"schema":${schema},"payload":${payload}}`);

      // Assess
      expect(act).toThrow(DataError);
      expect(act).toThrow(message);
    });

    it.each([
      ['{"optional":false}', "Schema must contain 'type' field"],
      ['"int32"', "Schema must contain 'type' field"],
      ['{"type":"uuid"}', 'Unknown schema type: uuid'],
      ['{"type":"array"}', 'Array schema did not specify the element type'],
      ['{"type":"map","values":{"type":"int8"}}', 'Map schema did not specify the key type'],
      ['{"type":"struct","fields":{}}', 'Struct schema\'s "fields" argument is not an array.'],
      [
        '{"type":"struct","fields":[{"type":"int8"}]}',
        "Struct schema's field name not specified properly",
      ],
      ['{"type":"int8","parameters":{"a":1}}', 'Schema parameters must have string values.'],
      [
        '{"type":"int8","optional":false,"default":null}',
        'Invalid null value for required INT8 field',
      ],
    ])('rejects the invalid schema %s', (schema, message) => {
      // Act
      const act = () => read(converter(), `{"schema":${schema},"payload":null}`);

      // Assess
      expect(act).toThrow(DataError);
      expect(act).toThrow(message);
    });

    it.each([
      [Schemas.INT32, 'x', 'Invalid type for INT32: string "x"'],
      [Schemas.INT8, 128, 'Invalid type for INT8: number 128'],
      [Schemas.INT64, 2 ** 60, 'Invalid type for INT64'],
      [Schemas.FLOAT64, '1.5', 'Invalid type for FLOAT64'],
      [Schemas.BYTES, 'AA==', 'Invalid type for BYTES'],
      [
        Schemas.STRING,
        null,
        'Conversion error: null value for field that is required and has no default value',
      ],
      [SchemaBuilder.array(Schemas.INT32).build(), [1, 'a'], 'Invalid type for INT32'],
      [
        LogicalDecimal.schema(2),
        1.5,
        'Invalid type for Decimal, expected BigDecimal but was number 1.5',
      ],
      [LogicalDecimal.schema(2), BigDecimal.parse('1.5'), 'Schema has scale 2, value has scale 1'],
      [LogicalDate.schema(), new Date(1), 'should not have any time fields set to non-zero values'],
      [LogicalDate.schema(), 19000, 'Invalid type for Date, expected Date but was number 19000'],
    ])('rejects writing a value that does not fit %s', (schema, value, message) => {
      // Act
      const act = () => write(converter(), schema, value);

      // Assess
      expect(act).toThrow(DataError);
      expect(act).toThrow(message);
    });

    it('rejects a struct of another schema with Connect "Mismatching schema."', () => {
      // Prepare
      const a = SchemaBuilder.struct().name('a').field('x', Schemas.INT32).build();
      const b = SchemaBuilder.struct().name('b').field('x', Schemas.INT32).build();

      // Act
      const act = () => write(converter(), a, new Struct(b).put('x', 1));

      // Assess
      expect(act).toThrow('Mismatching schema.');
    });

    it('rejects schemaless values that have no Connect type', () => {
      // Act
      const act = () => write(converter({ 'schemas.enable': 'false' }), null, new Date(0));

      // Assess
      expect(act).toThrow('Date does not have a corresponding schema type.');
    });
  });

  describe('schemaless JSON (schemas.enable=false)', () => {
    it('infers int64 for integers, float64 for other numbers and maps for objects', () => {
      // Act
      const result = read(
        converter({ 'schemas.enable': 'false' }),
        '{"i":1,"f":2.5,"e":1e3,"big":9007199254740993,"s":"x","b":true,"n":null,"a":[1,"x"]}',
      );

      // Assess
      expect(result.schema).toBeNull();
      expect(result.value).toEqual(
        new Map<string, unknown>([
          ['i', 1],
          ['f', 2.5],
          ['e', 1000],
          ['big', 9007199254740993n],
          ['s', 'x'],
          ['b', true],
          ['n', null],
          ['a', [1, 'x']],
        ]),
      );
    });

    it('rejects integers beyond the int64 range instead of wrapping them', () => {
      // Act
      const act = () => read(converter({ 'schemas.enable': 'false' }), '18446744073709551616');

      // Assess
      expect(act).toThrow('Integer 18446744073709551616 is outside the int64 range');
    });

    it('reads empty input as a null value, as Connect reads a missing node', () => {
      // Act
      const result = read(converter({ 'schemas.enable': 'false' }), ' ');

      // Assess
      expect(result).toEqual(NULL_SCHEMA_AND_VALUE);
    });

    it('writes maps with non-string keys as arrays of pairs', () => {
      // Act
      const json = write(converter({ 'schemas.enable': 'false' }), null, new Map([[1, 'a']]));

      // Assess
      expect(json).toBe('[[1,"a"]]');
    });

    it('writes plain objects as JSON objects', () => {
      // Act
      const json = write(converter({ 'schemas.enable': 'false' }), null, { a: 1, b: [true] });

      // Assess
      expect(json).toBe('{"a":1,"b":[true]}');
    });

    it('keeps the last value of a repeated key at its first position, as Jackson does', () => {
      // Act
      const result = read(converter({ 'schemas.enable': 'false' }), '{"a":1,"b":2,"a":3}');

      // Assess
      expect([...(result.value as Map<string, unknown>)]).toEqual([
        ['a', 3],
        ['b', 2],
      ]);
    });
  });

  describe('values', () => {
    it('gives tombstones for null bytes and writes none for a schemaless null', () => {
      // Prepare
      const c = converter();

      // Act
      const fromNull = c.toConnectData('topic', EMPTY_HEADERS, null);
      const toNull = c.fromConnectData('topic', EMPTY_HEADERS, null, null);

      // Assess
      expect(fromNull).toEqual(NULL_SCHEMA_AND_VALUE);
      expect(toNull).toBeNull();
    });

    it('keeps int64 precision beyond 2^53', () => {
      // Prepare
      const c = converter();

      // Act
      const result = read(
        c,
        '{"schema":{"type":"int64","optional":false},"payload":9007199254740993}',
      );

      // Assess
      expect(result.value).toBe(9007199254740993n);
      expect(write(c, Schemas.INT64, result.value)).toContain('"payload":9007199254740993}');
    });

    it('gives safe int64 values as numbers', () => {
      // Act
      const result = read(converter(), '{"schema":{"type":"int64","optional":false},"payload":42}');

      // Assess
      expect(result.value).toBe(42);
    });

    it('writes float32 values as Java prints the float: 0.1, not 0.10000000149011612', () => {
      // Prepare
      const c = converter({ 'schemas.enable': 'false' });

      // Act
      const json = write(c, Schemas.FLOAT32, Math.fround(0.1));

      // Assess
      expect(json).toBe('0.1');
    });

    it('writes NaN and infinities as Jackson does and reads them back', () => {
      // Prepare
      const c = converter();
      const schema = SchemaBuilder.array(Schemas.FLOAT64).build();

      // Act
      const json = write(c, schema, [
        Number.NaN,
        Number.POSITIVE_INFINITY,
        Number.NEGATIVE_INFINITY,
      ]);
      const back = read(c, json ?? '').value;

      // Assess
      expect(json).toContain('"payload":["NaN","Infinity","-Infinity"]');
      expect(back).toEqual([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
    });

    it('writes decimals as JSON numbers with decimal.format=NUMERIC and reads either form', () => {
      // Prepare
      const numeric = converter({ 'decimal.format': 'NUMERIC' });
      const base64 = converter();
      const schema = LogicalDecimal.schema(2);

      // Act
      const json = write(numeric, schema, BigDecimal.parse('0.05'));
      const fromNumber = read(base64, json ?? '').value;

      // Assess
      expect(json).toContain('"payload":0.05}');
      expect(fromNumber).toEqual(BigDecimal.parse('0.05'));
    });

    it('writes tiny NUMERIC decimals in BigDecimal scientific notation', () => {
      // Act
      const json = write(
        converter({ 'decimal.format': 'NUMERIC', 'schemas.enable': 'false' }),
        LogicalDecimal.schema(9),
        new BigDecimal(15n, 9),
      );

      // Assess
      expect(json).toBe('1.5E-8');
    });

    it('reads a missing struct field as its default', () => {
      // Prepare
      const schema = SchemaBuilder.struct()
        .field('a', SchemaBuilder.int32().defaultValue(9).build())
        .build();
      const json = `{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"default":9,"field":"a"}],"optional":false},"payload":{}}`;

      // Act
      const value = read(converter(), json).value as Struct;

      // Assess
      expect(value.schema).toEqual(schema);
      expect(value.get('a')).toBe(9);
    });

    it('keeps nulls of fields with defaults when replace.null.with.default=false', () => {
      // Prepare
      const c = converter({ 'replace.null.with.default': 'false', 'schemas.enable': 'false' });
      const schema = SchemaBuilder.struct()
        .field('a', SchemaBuilder.int32().optional().defaultValue(9).build())
        .build();

      // Act
      const json = write(c, schema, new Struct(schema));

      // Assess
      expect(json).toBe('{"a":null}');
    });

    it('replaces nulls of fields with defaults by default', () => {
      // Prepare
      const schema = SchemaBuilder.struct()
        .field('a', SchemaBuilder.int32().optional().defaultValue(9).build())
        .build();

      // Act
      const json = write(converter({ 'schemas.enable': 'false' }), schema, new Struct(schema));

      // Assess
      expect(json).toBe('{"a":9}');
    });

    it('escapes control characters and surrogates as Jackson does', () => {
      // Act
      const json = write(
        converter({ 'schemas.enable': 'false' }),
        Schemas.STRING,
        'a\u0000\u001f\b\f\t/\u007f\ud83d',
      );

      // Assess
      expect(json).toBe('"a\\u0000\\u001F\\b\\f\\t/\u007f\\uD83D"');
    });
  });

  describe('as a header converter', () => {
    it('converts header values like record values', () => {
      // Prepare
      const c = new JsonConverter();
      c.configure({ 'schemas.enable': 'false' });

      // Act
      const bytes = c.fromConnectHeader('topic', 'h', Schemas.INT32, 5);
      const back = c.toConnectHeader('topic', 'h', bytes);

      // Assess
      expect(decoder.decode(bytes ?? new Uint8Array())).toBe('5');
      expect(back).toEqual({ schema: null, value: 5 });
    });
  });
});
