import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../shared/connect/errors.js';
import { SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import { ValueToKey } from '../../../../../shared/plugins/transforms/value-to-key.js';
import { configured, sinkRecord, thrown } from './fixtures.js';

const valueSchema = SchemaBuilder.struct()
  .field('a', Schemas.INT32)
  .field('b', Schemas.INT32)
  .field('c', Schemas.OPTIONAL_INT32)
  .build();

describe('ValueToKey', () => {
  it('builds a schemaless key from value fields', () => {
    // Prepare
    const transform = configured(new ValueToKey(), { fields: 'a,b' });
    const record = sinkRecord({ key: 'old', value: { a: 1, b: 2, c: 3 } });

    // Act
    const out = transform.apply(record);

    // Assess
    expect(out?.keySchema).toBeNull();
    expect(out?.key).toEqual({ a: 1, b: 2 });
    expect(out?.value).toBe(record.value);
  });

  it("builds a Struct key whose schema holds the fields' schemas", () => {
    // Prepare
    const transform = configured(new ValueToKey(), { fields: 'a,b' });
    const value = new Struct(valueSchema).put('a', 1).put('b', 2).put('c', 3);

    // Act
    const out = transform.apply(sinkRecord({ valueSchema, value }));

    // Assess
    expect(out?.keySchema?.fields.map((f) => [f.name, f.schema])).toEqual([
      ['a', Schemas.INT32],
      ['b', Schemas.INT32],
    ]);
    const key = out?.key as Struct;
    expect([key.get('a'), key.get('b')]).toEqual([1, 2]);
  });

  it('rejects a field the value schema does not have', () => {
    // Prepare
    const transform = configured(new ValueToKey(), { fields: 'not_exist' });
    const value = new Struct(valueSchema).put('a', 1).put('b', 2);

    // Act / Assess
    expect(() => transform.apply(sinkRecord({ valueSchema, value }))).toThrow(
      new DataError('Field does not exist: not_exist'),
    );
  });

  it('rejects a schemaless value that is not a map', () => {
    // Prepare
    const transform = configured(new ValueToKey(), { fields: 'a' });

    // Act / Assess
    expect(() => transform.apply(sinkRecord({ value: null }))).toThrow(
      new DataError(
        'Only Map objects supported in absence of schema for [copying fields from value to key], found: null',
      ),
    );
  });

  it('requires at least one field', () => {
    // Act / Assess
    expect(thrown(() => new ValueToKey().configure({ fields: '' }))).toMatchObject({
      name: ConfigError.name,
      key: 'fields',
    });
  });
});
