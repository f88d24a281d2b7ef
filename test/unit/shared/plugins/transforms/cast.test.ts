import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../shared/connect/errors.js';
import {
  BigDecimal,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
} from '../../../../../shared/connect/logical-types.js';
import { SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import { CastKey, CastValue } from '../../../../../shared/plugins/transforms/cast.js';
import { configured, sinkRecord, thrown } from './fixtures.js';

const cast = (spec: string) => configured(new CastValue(), { spec });

describe('Cast', () => {
  describe('config', () => {
    it('rejects an empty spec, unknown types, unsupported targets and mixed whole-value specs', () => {
      // Act / Assess
      expect(thrown(() => new CastValue().configure({ spec: '' }))).toMatchObject({
        name: ConfigError.name,
        message: 'Must specify at least one field to cast.',
      });
      expect(() => cast('foo:faketype')).toThrow('Invalid type found in casting spec: faketype');
      expect(() => cast('foo:array')).toThrow(
        'Cast transformation does not support casting to ARRAY; supported types are [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]',
      );
      expect(() => cast('int8,int32')).toThrow(
        'Cast transformations that specify a type to cast the entire value to may ony specify a single cast in their spec',
      );
      expect(() => cast('a:int8:x')).toThrow(ConfigError);
    });
  });

  describe('whole value', () => {
    it("casts a schema'd value and builds the target schema", () => {
      // Act
      const out = cast('int8').apply(sinkRecord({ valueSchema: Schemas.INT32, value: 42 }));

      // Assess
      expect(out?.valueSchema?.type).toBe('int8');
      expect(out?.value).toBe(42);
    });

    it('casts keys with the $Key variant', () => {
      // Prepare
      const transform = configured(new CastKey(), { spec: 'string' });

      // Act
      const out = transform.apply(sinkRecord({ keySchema: Schemas.INT64, key: 7n }));

      // Assess
      expect(out?.keySchema?.type).toBe('string');
      expect(out?.key).toBe('7');
    });

    it('converts like Java: narrowing wraps, doubles truncate, strings parse, booleans are 0/1', () => {
      // Act / Assess
      expect(cast('int8').apply(sinkRecord({ value: 300 }))?.value).toBe(44);
      expect(cast('int16').apply(sinkRecord({ value: 42.9 }))?.value).toBe(42);
      expect(cast('int32').apply(sinkRecord({ value: '-42' }))?.value).toBe(-42);
      expect(cast('int64').apply(sinkRecord({ value: true }))?.value).toBe(1);
      expect(cast('int64').apply(sinkRecord({ value: '9223372036854775807' }))?.value).toBe(
        9223372036854775807n,
      );
      expect(cast('float32').apply(sinkRecord({ value: '42.5' }))?.value).toBe(42.5);
      expect(cast('float64').apply(sinkRecord({ value: 42n }))?.value).toBe(42);
      expect(cast('boolean').apply(sinkRecord({ value: 0 }))?.value).toBe(false);
      expect(cast('boolean').apply(sinkRecord({ value: 'TRUE' }))?.value).toBe(true);
      expect(cast('boolean').apply(sinkRecord({ value: 'yes' }))?.value).toBe(false);
    });

    it('prints numbers as Java does when casting to string', () => {
      // Act / Assess
      expect(
        cast('string').apply(sinkRecord({ valueSchema: Schemas.FLOAT64, value: 42 }))?.value,
      ).toBe('42.0');
      expect(
        cast('string').apply(sinkRecord({ valueSchema: Schemas.FLOAT32, value: Math.fround(0.1) }))
          ?.value,
      ).toBe('0.1');
      expect(cast('string').apply(sinkRecord({ value: 1e21 }))?.value).toBe('1.0E21');
      expect(cast('string').apply(sinkRecord({ value: false }))?.value).toBe('false');
    });

    it('casts bytes to base64 strings only', () => {
      // Prepare
      const bytes = new Uint8Array([104, 105, 33]);

      // Act / Assess
      expect(
        cast('string').apply(sinkRecord({ valueSchema: Schemas.BYTES, value: bytes }))?.value,
      ).toBe('aGkh');
      expect(() =>
        cast('int32').apply(sinkRecord({ valueSchema: Schemas.BYTES, value: bytes })),
      ).toThrow(new DataError('Unexpected type in Cast transformation: Uint8Array'));
    });

    it('casts logical types to their raw numbers or to ISO-8601 text', () => {
      // Prepare
      const day = new Date(86_400_000);
      const time = new Date(1_000);
      const timestamp = new Date(1_483_425_001_864);

      // Act / Assess
      expect(
        cast('int32').apply(sinkRecord({ valueSchema: LogicalDate.schema(), value: day }))?.value,
      ).toBe(1);
      expect(
        cast('int32').apply(sinkRecord({ valueSchema: LogicalTime.schema(), value: time }))?.value,
      ).toBe(1000);
      const asLong = cast('int64').apply(
        sinkRecord({ valueSchema: LogicalTimestamp.schema(), value: timestamp }),
      );
      expect(asLong?.value).toBe(1_483_425_001_864);
      expect(asLong?.valueSchema?.name).toBeNull();
      expect(
        cast('string').apply(sinkRecord({ valueSchema: LogicalDate.schema(), value: day }))?.value,
      ).toBe('1970-01-02');
      expect(
        cast('string').apply(sinkRecord({ valueSchema: LogicalTime.schema(), value: time }))?.value,
      ).toBe('00:00:01.000Z');
      expect(
        cast('string').apply(
          sinkRecord({ valueSchema: LogicalTimestamp.schema(), value: timestamp }),
        )?.value,
      ).toBe('2017-01-03T06:30:01.864Z');
      expect(
        cast('float64').apply(
          sinkRecord({ valueSchema: LogicalDecimal.schema(2), value: new BigDecimal(1234n, 2) }),
        )?.value,
      ).toBe(12.34);
    });

    it('casts the schema default and keeps optionality', () => {
      // Prepare
      const schema = SchemaBuilder.int32().optional().defaultValue(12).build();

      // Act
      const out = cast('string').apply(sinkRecord({ valueSchema: schema, value: 5 }));

      // Assess
      expect(out?.valueSchema?.optional).toBe(true);
      expect(out?.valueSchema?.defaultValue).toBe('12');
    });

    it('rejects unparsable strings and unsupported values', () => {
      // Act / Assess
      expect(() => cast('int8').apply(sinkRecord({ value: '128' }))).toThrow(
        new DataError('Value (128) was out of range for requested data type'),
      );
      expect(() => cast('int32').apply(sinkRecord({ value: 'abc' }))).toThrow(DataError);
      expect(() => cast('int32').apply(sinkRecord({ value: new Date(0) }))).toThrow(
        new DataError(
          "Cast transformation was passed a value of type Date which is not supported by Connect's data API",
        ),
      );
      expect(() => cast('int32').apply(sinkRecord({ value: [1] }))).toThrow(
        'Cast transformation does not support casting from ARRAY',
      );
    });

    it('passes tombstones through', () => {
      // Prepare
      const record = sinkRecord({ valueSchema: Schemas.OPTIONAL_INT32, value: null });

      // Act / Assess
      expect(cast('int8').apply(record)).toBe(record);
    });
  });

  describe('fields', () => {
    const schema = SchemaBuilder.struct()
      .name('S')
      .field('int8', Schemas.INT8)
      .field('int32', SchemaBuilder.int32().optional().defaultValue(2))
      .field('bigint', Schemas.INT64)
      .field('string', Schemas.STRING)
      .field('optional', Schemas.OPTIONAL_FLOAT32)
      .field('timestamp', LogicalTimestamp.schema())
      .field('kept', Schemas.STRING)
      .build();

    it('casts the listed Struct fields, keeping the others and their schemas', () => {
      // Prepare
      const transform = cast(
        'int8:int16,int32:string,bigint:boolean,string:int32,optional:int32,timestamp:int64',
      );
      const value = new Struct(schema)
        .put('int8', 8)
        .put('bigint', 0)
        .put('string', '42')
        .put('timestamp', new Date(0))
        .put('kept', 'k');

      // Act
      const out = transform.apply(sinkRecord({ valueSchema: schema, value }));

      // Assess
      const updated = out?.valueSchema;
      expect(updated?.name).toBe('S');
      expect(updated?.fields.map((f) => [f.name, f.schema.type, f.schema.optional])).toEqual([
        ['int8', 'int16', false],
        ['int32', 'string', true],
        ['bigint', 'boolean', false],
        ['string', 'int32', false],
        ['optional', 'int32', true],
        ['timestamp', 'int64', false],
        ['kept', 'string', false],
      ]);
      expect(updated?.field('int32')?.schema.defaultValue).toBe('2');
      const struct = out?.value as Struct;
      expect(struct.get('int8')).toBe(8);
      expect(struct.get('int32')).toBe('2');
      expect(struct.get('bigint')).toBe(false);
      expect(struct.get('string')).toBe(42);
      expect(struct.get('optional')).toBeNull();
      expect(struct.get('timestamp')).toBe(0);
      expect(struct.get('kept')).toBe('k');
    });

    it('casts fields of a schemaless map, adding null for missing ones', () => {
      // Prepare
      const transform = cast('a:string,b:int64,missing:int8');

      // Act
      const out = transform.apply(sinkRecord({ value: { a: 1.5, b: '12', other: 'x' } }));

      // Assess
      expect(out?.value).toEqual({ a: '1.5', b: 12, other: 'x', missing: null });
    });

    it('requires a Struct or a map', () => {
      // Act / Assess
      expect(() => cast('a:int8').apply(sinkRecord({ value: 1 }))).toThrow(
        new DataError(
          'Only Map objects supported in absence of schema for [cast types], found: Number',
        ),
      );
      expect(() =>
        cast('a:int8').apply(sinkRecord({ valueSchema: Schemas.INT32, value: 1 })),
      ).toThrow(new DataError('Only Struct objects supported for [cast types], found: Number'));
    });
  });
});
