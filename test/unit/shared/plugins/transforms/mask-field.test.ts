import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../shared/connect/errors.js';
import { BigDecimal, LogicalDecimal } from '../../../../../shared/connect/logical-types.js';
import { SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import {
  MaskFieldKey,
  MaskFieldValue,
} from '../../../../../shared/plugins/transforms/mask-field.js';
import { configured, sinkRecord, thrown } from './fixtures.js';

const schema = SchemaBuilder.struct()
  .field('magic', Schemas.INT32)
  .field('bool', Schemas.BOOLEAN)
  .field('byte', Schemas.INT8)
  .field('long', Schemas.INT64)
  .field('float', Schemas.FLOAT32)
  .field('string', Schemas.STRING)
  .field('decimal', LogicalDecimal.schema(2))
  .field('array', SchemaBuilder.array(Schemas.INT32))
  .field('map', SchemaBuilder.map(Schemas.STRING, Schemas.STRING))
  .field('opt', Schemas.OPTIONAL_STRING)
  .build();

const struct = () =>
  new Struct(schema)
    .put('magic', 42)
    .put('bool', true)
    .put('byte', 42)
    .put('long', 42n)
    .put('float', 42.5)
    .put('string', 'hmm')
    .put('decimal', new BigDecimal(4200n, 2))
    .put('array', [1, 2, 3])
    .put('map', new Map([['what', 'what']]));

const ALL_FIELDS = 'magic,bool,byte,long,float,string,decimal,array,map,opt';

describe('MaskField', () => {
  it('masks Struct fields with the null value of their type', () => {
    // Prepare
    const transform = configured(new MaskFieldValue(), { fields: ALL_FIELDS });

    // Act
    const out = transform.apply(sinkRecord({ valueSchema: schema, value: struct() }));

    // Assess
    const value = out?.value as Struct;
    expect(out?.valueSchema).toBe(schema);
    expect(value.get('magic')).toBe(0);
    expect(value.get('bool')).toBe(false);
    expect(value.get('byte')).toBe(0);
    expect(value.get('long')).toBe(0n);
    expect(value.get('float')).toBe(0);
    expect(value.get('string')).toBe('');
    expect(String(value.get('decimal'))).toBe('0.00');
    expect(value.get('array')).toEqual([]);
    expect(value.get('map')).toEqual(new Map());
    expect(value.get('opt')).toBeNull();
  });

  it('masks schemaless fields by their JavaScript type', () => {
    // Prepare
    const transform = configured(new MaskFieldKey(), { fields: 'n,s,b,d,a,m,missing' });
    const key = { n: 3.5, s: 'x', b: true, d: new Date(5), a: [1], m: { k: 1 }, keep: 'me' };

    // Act
    const out = transform.apply(sinkRecord({ key }));

    // Assess
    expect(out?.key).toEqual({
      n: 0,
      s: '',
      b: false,
      d: new Date(0),
      a: [],
      m: {},
      keep: 'me',
      missing: null,
    });
    expect(key.s).toBe('x');
  });

  it('masks numbers and strings with a custom replacement converted to the field type', () => {
    // Prepare
    const transform = configured(new MaskFieldValue(), {
      fields: 'magic,byte,long,float,string,decimal',
      replacement: '12',
    });

    // Act
    const out = transform.apply(sinkRecord({ valueSchema: schema, value: struct() }));

    // Assess
    const value = out?.value as Struct;
    expect(value.get('magic')).toBe(12);
    expect(value.get('byte')).toBe(12);
    expect(value.get('long')).toBe(12n);
    expect(value.get('float')).toBe(12);
    expect(value.get('string')).toBe('12');
    expect(String(value.get('decimal'))).toBe('12.00');
  });

  it('rejects a custom replacement for booleans and a non-numeric one for numbers', () => {
    // Prepare
    const forBool = configured(new MaskFieldValue(), { fields: 'bool', replacement: 'x' });
    const forInt = configured(new MaskFieldValue(), { fields: 'magic', replacement: 'abc' });
    const record = sinkRecord({ valueSchema: schema, value: struct() });

    // Act / Assess
    expect(() => forBool.apply(record)).toThrow(
      new DataError('Cannot mask value of type Boolean with custom replacement.'),
    );
    expect(() => forInt.apply(record)).toThrow(
      new DataError('Unable to convert abc (String) to number'),
    );
  });

  it('rejects schemaless values it cannot mask', () => {
    // Prepare
    const transform = configured(new MaskFieldValue(), { fields: 'b' });

    // Act / Assess
    expect(() => transform.apply(sinkRecord({ value: { b: new Uint8Array(1) } }))).toThrow(
      new DataError('Cannot mask value of type: Uint8Array'),
    );
  });

  it('passes tombstones through', () => {
    // Prepare
    const transform = configured(new MaskFieldValue(), { fields: 'a' });
    const record = sinkRecord({ value: null });

    // Act / Assess
    expect(transform.apply(record)).toBe(record);
  });

  it('requires a non-empty field list and a non-empty replacement', () => {
    // Act / Assess
    expect(thrown(() => new MaskFieldValue().configure({}))).toMatchObject({
      name: ConfigError.name,
      message: 'Missing required configuration "fields" which has no default value.',
      key: 'fields',
    });
    expect(() => new MaskFieldValue().configure({ fields: '' })).toThrow(
      'Invalid value [] for configuration fields: Empty list',
    );
    expect(() => new MaskFieldValue().configure({ fields: 'a', replacement: '' })).toThrow(
      'Invalid value  for configuration replacement: String must be non-empty',
    );
  });
});
