import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../shared/connect/errors.js';
import { SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import {
  ExtractFieldKey,
  ExtractFieldValue,
} from '../../../../../shared/plugins/transforms/extract-field.js';
import { configured, sinkRecord, thrown } from './fixtures.js';

const inner = SchemaBuilder.struct().field('magic', Schemas.INT32).build();
const outer = SchemaBuilder.struct()
  .field('magic', Schemas.INT32)
  .field('nested', inner)
  .field('opt', SchemaBuilder.int32().optional().defaultValue(5))
  .build();
const value = () =>
  new Struct(outer).put('magic', 42).put('nested', new Struct(inner).put('magic', 7));

describe('ExtractField', () => {
  it('replaces a schemaless key with one of its fields', () => {
    // Prepare
    const transform = configured(new ExtractFieldKey(), { field: 'magic' });

    // Act
    const out = transform.apply(sinkRecord({ key: { magic: 42 } }));

    // Assess
    expect(out?.keySchema).toBeNull();
    expect(out?.key).toBe(42);
  });

  it('gives null for a field missing from a schemaless value', () => {
    // Prepare
    const transform = configured(new ExtractFieldValue(), { field: 'nope' });

    // Act / Assess
    expect(transform.apply(sinkRecord({ value: new Map([['magic', 1]]) }))?.value).toBeNull();
  });

  it('replaces a Struct with a field and its schema', () => {
    // Prepare
    const transform = configured(new ExtractFieldValue(), { field: 'magic' });

    // Act
    const out = transform.apply(sinkRecord({ valueSchema: outer, value: value() }));

    // Assess
    expect(out?.valueSchema).toEqual(Schemas.INT32);
    expect(out?.value).toBe(42);
  });

  it('extracts nested fields with field.syntax.version V2, backticks quoting dots', () => {
    // Prepare
    const transform = configured(new ExtractFieldValue(), {
      field: 'nested.magic',
      'field.syntax.version': 'v2',
    });
    const dotted = configured(new ExtractFieldValue(), {
      field: '`a.b`.c',
      'field.syntax.version': 'V2',
    });

    // Act
    const out = transform.apply(sinkRecord({ valueSchema: outer, value: value() }));
    const fromMap = dotted.apply(sinkRecord({ value: { 'a.b': { c: 'x' } } }));

    // Assess
    expect(out?.valueSchema).toEqual(Schemas.INT32);
    expect(out?.value).toBe(7);
    expect(fromMap?.value).toBe('x');
  });

  it('treats a dotted name as one field with V1', () => {
    // Prepare
    const transform = configured(new ExtractFieldValue(), { field: 'a.b' });

    // Act / Assess
    expect(transform.apply(sinkRecord({ value: { 'a.b': 1, a: { b: 2 } } }))?.value).toBe(1);
  });

  it('applies the field default unless replace.null.with.default is false', () => {
    // Prepare
    const withDefault = configured(new ExtractFieldValue(), { field: 'opt' });
    const withoutDefault = configured(new ExtractFieldValue(), {
      field: 'opt',
      'replace.null.with.default': 'false',
    });
    const record = sinkRecord({ valueSchema: outer, value: value() });

    // Act / Assess
    expect(withDefault.apply(record)?.value).toBe(5);
    expect(withoutDefault.apply(record)?.value).toBeNull();
  });

  it('keeps tombstones null, with the field schema', () => {
    // Prepare
    const transform = configured(new ExtractFieldValue(), { field: 'magic' });

    // Act
    const schemaless = transform.apply(sinkRecord({ value: null }));
    const withSchema = transform.apply(sinkRecord({ valueSchema: outer, value: null }));

    // Assess
    expect(schemaless?.value).toBeNull();
    expect(withSchema?.value).toBeNull();
    expect(withSchema?.valueSchema).toEqual(Schemas.INT32);
  });

  it('rejects a field missing from the schema and values of the wrong kind', () => {
    // Prepare
    const transform = configured(new ExtractFieldValue(), { field: 'nope' });

    // Act / Assess
    expect(() => transform.apply(sinkRecord({ valueSchema: outer, value: value() }))).toThrow(
      new DataError('Unknown field: nope'),
    );
    expect(() => transform.apply(sinkRecord({ value: 'str' }))).toThrow(
      new DataError(
        'Only Map objects supported in absence of schema for [field extraction], found: String',
      ),
    );
  });

  it('rejects a missing field config, an unknown syntax version and an open backtick', () => {
    // Act / Assess
    expect(thrown(() => new ExtractFieldValue().configure({}))).toMatchObject({
      name: ConfigError.name,
      key: 'field',
    });
    expect(
      thrown(() => new ExtractFieldValue().configure({ field: 'a', 'field.syntax.version': 'V3' })),
    ).toMatchObject({ name: ConfigError.name, key: 'field.syntax.version' });
    expect(() =>
      new ExtractFieldValue().configure({ field: '`a.b', 'field.syntax.version': 'V2' }),
    ).toThrow(
      'Incomplete backtick pair in path: [`a.b], consider adding a backslash before backtick at position 0 to escape it',
    );
  });
});
