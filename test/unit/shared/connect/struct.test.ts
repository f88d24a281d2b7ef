import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../shared/connect/errors.js';
import { SchemaBuilder, Schemas } from '../../../../shared/connect/schema.js';
import { copyValue, Struct } from '../../../../shared/connect/struct.js';

const address = SchemaBuilder.struct().field('zip', Schemas.STRING).build();
const person = SchemaBuilder.struct()
  .name('com.example.Person')
  .field('id', Schemas.INT64)
  .field('name', Schemas.OPTIONAL_STRING)
  .field('age', SchemaBuilder.int32().defaultValue(18))
  .field('tags', SchemaBuilder.array(Schemas.STRING).optional())
  .field('address', SchemaBuilder.struct().field('zip', Schemas.STRING).optional())
  .build();

describe('Struct', () => {
  it('stores validated values and reads them back', () => {
    // Act
    const value = new Struct(person).put('id', 1n).put('name', 'ann').put('tags', ['a']);

    // Assess
    expect(value.get('id')).toBe(1n);
    expect(value.getInt64('id')).toBe(1n);
    expect(value.getString('name')).toBe('ann');
    expect(value.getArray('tags')).toEqual(['a']);
  });

  it('returns the field default when the field is unset', () => {
    // Prepare
    const value = new Struct(person);

    // Act + Assess
    expect(value.get('age')).toBe(18);
    expect(value.getWithoutDefault('age')).toBeNull();
  });

  it('rejects an unknown field', () => {
    // Act + Assess
    expect(() => new Struct(person).put('nope', 1)).toThrow(
      new DataError('nope is not a valid field name'),
    );
    expect(() => new Struct(person).get('nope')).toThrow(DataError);
  });

  it('rejects a value that does not match the field schema', () => {
    // Act + Assess
    expect(() => new Struct(person).put('name', 5)).toThrow(/STRING.*for field: "name"/);
  });

  it('rejects a typed getter of the wrong type', () => {
    // Act + Assess
    expect(() => new Struct(person).getInt32('name')).toThrow("Field 'name' is not of type INT32");
  });

  it('rejects a non-struct schema', () => {
    // Act + Assess
    expect(() => new Struct(Schemas.INT32)).toThrow(DataError);
  });

  it('validates that required fields without defaults are set', () => {
    // Prepare
    const missingId = new Struct(person).put('name', 'x');
    const complete = new Struct(person).put('id', 3);

    // Act + Assess
    expect(() => missingId.validate()).toThrow(
      'Invalid value: null used for required field: "id", schema type: INT64',
    );
    expect(() => complete.validate()).not.toThrow();
  });

  it('accepts a nested struct only with an equal schema', () => {
    // Prepare
    const nestedSchema = person.field('address')?.schema ?? address;
    const other = SchemaBuilder.struct().field('zip', Schemas.INT32).build();

    // Act + Assess
    expect(() =>
      new Struct(person).put('address', new Struct(nestedSchema).put('zip', '1')),
    ).not.toThrow();
    expect(() => new Struct(person).put('address', new Struct(other).put('zip', 1))).toThrow(
      'Struct schemas do not match. for field: "address"',
    );
  });

  it('compares deeply with equals', () => {
    // Prepare
    const a = new Struct(person).put('id', 1).put('tags', ['x']);
    const b = new Struct(person).put('id', 1n).put('tags', ['x']);
    const c = new Struct(person).put('id', 2);

    // Act + Assess
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
    expect(a.equals({})).toBe(false);
  });

  it('copies deeply so the copy can change independently', () => {
    // Prepare
    const original = new Struct(person).put('id', 1).put('tags', ['x']);

    // Act
    const copy = original.copy();
    copy.put('id', 2);
    (copy.getArray('tags') ?? []).push('y');

    // Assess
    expect(original.get('id')).toBe(1);
    expect(original.getArray('tags')).toEqual(['x']);
  });

  it('prints its fields', () => {
    // Act + Assess
    expect(String(new Struct(address).put('zip', '9'))).toBe('Struct{zip=9}');
  });
});

describe('copyValue', () => {
  it('copies bytes, maps and dates instead of sharing them', () => {
    // Prepare
    const bytes = new Uint8Array([1]);
    const map = new Map([['k', bytes]]);

    // Act
    const copy = copyValue(map);
    bytes[0] = 9;

    // Assess
    expect(copy.get('k')).toEqual(new Uint8Array([1]));
    expect(copyValue(new Date(3)).getTime()).toBe(3);
  });
});
