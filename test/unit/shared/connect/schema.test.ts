import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../shared/connect/errors.js';
import {
  copySchemaBasics,
  mapEntries,
  SCHEMA_TYPES,
  type Schema,
  SchemaBuilder,
  Schemas,
  schemaEquals,
  validateValue,
  valuesEqual,
} from '../../../../shared/connect/schema.js';
import { Struct } from '../../../../shared/connect/struct.js';

describe('SchemaBuilder', () => {
  it('builds an immutable schema with every basic property', () => {
    // Prepare
    const builder = SchemaBuilder.int32()
      .name('com.example.Count')
      .version(2)
      .doc('a count')
      .parameter('unit', 'items')
      .optional()
      .defaultValue(7);

    // Act
    const schema = builder.build();

    // Assess
    expect(schema).toMatchObject({
      type: 'int32',
      optional: true,
      defaultValue: 7,
      name: 'com.example.Count',
      version: 2,
      doc: 'a count',
      parameters: { unit: 'items' },
      keySchema: null,
      valueSchema: null,
      fields: [],
    });
    expect(Object.isFrozen(schema)).toBe(true);
    expect(String(schema)).toBe('Schema{com.example.Count:INT32}');
  });

  it('builds a schema for every type', () => {
    // Act
    const built = SCHEMA_TYPES.map((type) =>
      type === 'array'
        ? SchemaBuilder.array(Schemas.STRING).build()
        : type === 'map'
          ? SchemaBuilder.map(Schemas.STRING, Schemas.INT32).build()
          : SchemaBuilder.type(type).build(),
    );

    // Assess
    expect(built.map((s) => s.type)).toEqual(SCHEMA_TYPES);
  });

  it('keeps array and map element schemas', () => {
    // Act
    const array = SchemaBuilder.array(SchemaBuilder.int64().optional()).build();
    const map = SchemaBuilder.map(Schemas.STRING, Schemas.BYTES).build();

    // Assess
    expect(array.valueSchema).toEqual(Schemas.OPTIONAL_INT64);
    expect(map.keySchema).toBe(Schemas.STRING);
    expect(map.valueSchema).toBe(Schemas.BYTES);
  });

  it('orders struct fields and looks them up by name', () => {
    // Act
    const schema = SchemaBuilder.struct()
      .field('id', Schemas.INT64)
      .field('name', SchemaBuilder.string().optional())
      .build();

    // Assess
    expect(schema.fields.map((f) => [f.name, f.index])).toEqual([
      ['id', 0],
      ['name', 1],
    ]);
    expect(schema.field('name')?.schema.optional).toBe(true);
    expect(schema.field('missing')).toBeNull();
  });

  it('rejects a duplicate struct field name', () => {
    // Prepare
    const builder = SchemaBuilder.struct().field('id', Schemas.INT32);

    // Act + Assess
    expect(() => builder.field('id', Schemas.STRING)).toThrow(
      new DataError('Cannot create field because of field name duplication id'),
    );
  });

  it('rejects fields on a non-struct schema and field lookups on a built one', () => {
    // Act + Assess
    expect(() => SchemaBuilder.string().field('a', Schemas.INT32)).toThrow(DataError);
    expect(() => Schemas.STRING.field('a')).toThrow(/non-struct type STRING/);
  });

  it('rejects setting a property twice to different values', () => {
    // Prepare
    const builder = SchemaBuilder.string().name('a');

    // Act + Assess
    expect(() => builder.name('b')).toThrow(/name has already been set/);
    expect(() => builder.optional().required()).toThrow(/optional has already been set/);
  });

  it('rejects a default value that does not match the schema', () => {
    // Act + Assess
    expect(() => SchemaBuilder.int8().defaultValue(300)).toThrow(/Invalid default value/);
    expect(() => SchemaBuilder.string().defaultValue(5)).toThrow(DataError);
  });

  it('copies name, version, doc and parameters with copySchemaBasics', () => {
    // Prepare
    const source = SchemaBuilder.struct().name('n').version(3).doc('d').parameter('p', 'v').build();

    // Act
    const copy = copySchemaBasics(source, SchemaBuilder.struct()).build();

    // Assess
    expect(schemaEquals(copy, source)).toBe(true);
  });
});

describe('Schemas', () => {
  it('provides required and optional primitive schemas', () => {
    // Assess
    expect(Schemas.INT32).toMatchObject({ type: 'int32', optional: false });
    expect(Schemas.OPTIONAL_STRING).toMatchObject({ type: 'string', optional: true });
    expect(Schemas.BOOLEAN.type).toBe('boolean');
  });
});

describe('validateValue', () => {
  const cases: [Schema, unknown][] = [
    [Schemas.INT8, -128],
    [Schemas.INT16, 32767],
    [Schemas.INT32, -2147483648],
    [Schemas.INT64, Number.MAX_SAFE_INTEGER],
    [Schemas.INT64, -(2n ** 63n)],
    [Schemas.FLOAT32, 1.5],
    [Schemas.FLOAT64, Number.NaN],
    [Schemas.BOOLEAN, false],
    [Schemas.STRING, ''],
    [Schemas.BYTES, new Uint8Array([1])],
    [SchemaBuilder.array(Schemas.INT32).build(), [1, 2]],
    [SchemaBuilder.map(Schemas.INT32, Schemas.STRING).build(), new Map([[1, 'a']])],
    [SchemaBuilder.map(Schemas.STRING, Schemas.STRING).build(), { a: 'b' }],
    [Schemas.OPTIONAL_INT32, null],
  ];

  it.each(cases)('accepts a valid value for %s', (schema, value) => {
    // Act + Assess
    expect(() => validateValue(schema, value)).not.toThrow();
  });

  const invalid: [Schema, unknown, RegExp][] = [
    [Schemas.INT8, 128, /INT8: expected an integer in \[-128, 127\], got number 128/],
    [Schemas.INT32, 1.5, /INT32/],
    [Schemas.INT32, '1', /got string "1"/],
    [Schemas.INT64, 2n ** 63n, /int64 range/],
    [Schemas.INT64, 2 ** 60, /safe integer/],
    [Schemas.FLOAT64, 1n, /FLOAT64/],
    [Schemas.BOOLEAN, 'true', /BOOLEAN/],
    [Schemas.STRING, 1, /STRING/],
    [Schemas.BYTES, [1], /Uint8Array/],
    [SchemaBuilder.array(Schemas.INT32).build(), [1, 'x'], /for field: "\[1\]"/],
    [SchemaBuilder.map(Schemas.INT32, Schemas.STRING).build(), { a: 'b' }, /INT32/],
    [Schemas.STRING, null, /null used for required value, schema type: STRING/],
  ];

  it.each(invalid)('rejects %s value %s', (schema, value, message) => {
    // Act + Assess
    expect(() => validateValue(schema, value)).toThrow(message);
    expect(() => validateValue(schema, value)).toThrow(DataError);
  });

  it('names the nested field path in its message', () => {
    // Prepare
    const inner = SchemaBuilder.struct().field('zip', Schemas.INT32).build();
    const outer = SchemaBuilder.struct().field('addresses', SchemaBuilder.array(inner)).build();
    const bad = new Struct(inner);
    const value = new Struct(outer).put('addresses', [new Struct(inner).put('zip', 1)]);

    // Act + Assess
    expect(() => validateValue(outer, value)).not.toThrow();
    expect(() => new Struct(outer).put('addresses', [bad])).toThrow(
      'Invalid value: null used for required field: "addresses[0].zip", schema type: INT32',
    );
  });

  it('rejects a struct whose schema differs', () => {
    // Prepare
    const a = SchemaBuilder.struct().field('x', Schemas.INT32).build();
    const b = SchemaBuilder.struct().field('y', Schemas.INT32).build();

    // Act + Assess
    expect(() => validateValue(a, new Struct(b).put('y', 1))).toThrow(
      'Struct schemas do not match.',
    );
  });
});

describe('schemaEquals', () => {
  it('is deep and covers every property', () => {
    // Prepare
    const make = (doc: string): Schema =>
      SchemaBuilder.struct()
        .field('m', SchemaBuilder.map(Schemas.STRING, SchemaBuilder.array(Schemas.INT32)))
        .doc(doc)
        .build();

    // Act + Assess
    expect(schemaEquals(make('a'), make('a'))).toBe(true);
    expect(schemaEquals(make('a'), make('b'))).toBe(false);
    expect(schemaEquals(Schemas.INT32, Schemas.OPTIONAL_INT32)).toBe(false);
    expect(schemaEquals(null, null)).toBe(true);
    expect(schemaEquals(Schemas.INT32, null)).toBe(false);
  });

  it('compares default values deeply', () => {
    // Prepare
    const a = SchemaBuilder.bytes()
      .defaultValue(new Uint8Array([1, 2]))
      .build();
    const b = SchemaBuilder.bytes()
      .defaultValue(new Uint8Array([1, 2]))
      .build();
    const c = SchemaBuilder.bytes()
      .defaultValue(new Uint8Array([1, 3]))
      .build();

    // Act + Assess
    expect(schemaEquals(a, b)).toBe(true);
    expect(schemaEquals(a, c)).toBe(false);
  });
});

describe('valuesEqual', () => {
  it('treats an int64 number and bigint of the same value as equal', () => {
    // Act + Assess
    expect(valuesEqual(5, 5n)).toBe(true);
    expect(valuesEqual(5.5, 5n)).toBe(false);
  });

  it('compares bytes, dates, arrays and maps by content', () => {
    // Act + Assess
    expect(valuesEqual(new Uint8Array([1]), new Uint8Array([1]))).toBe(true);
    expect(valuesEqual(new Date(5), new Date(5))).toBe(true);
    expect(valuesEqual([1, [2]], [1, [2]])).toBe(true);
    expect(valuesEqual(new Map([['a', 1]]), { a: 1 })).toBe(true);
    expect(valuesEqual(new Map([['a', 1]]), new Map([['a', 2]]))).toBe(false);
    expect(valuesEqual([1], { 0: 1 })).toBe(false);
  });
});

describe('mapEntries', () => {
  it('iterates a Map and a plain object alike and rejects anything else', () => {
    // Act + Assess
    expect(mapEntries(new Map([[1, 'a']]))).toEqual([[1, 'a']]);
    expect(mapEntries({ a: 1 })).toEqual([['a', 1]]);
    expect(() => mapEntries([1])).toThrow(DataError);
  });
});
