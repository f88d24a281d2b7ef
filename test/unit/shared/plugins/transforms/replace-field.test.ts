import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../shared/connect/errors.js';
import { SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import {
  ReplaceFieldKey,
  ReplaceFieldValue,
} from '../../../../../shared/plugins/transforms/replace-field.js';
import { configured, sinkRecord } from './fixtures.js';

const schema = SchemaBuilder.struct()
  .name('S')
  .field('dont', Schemas.STRING)
  .field('abc', Schemas.INT32)
  .field('foo', Schemas.BOOLEAN)
  .field('etc', Schemas.STRING)
  .build();

const struct = () =>
  new Struct(schema).put('dont', 'whatever').put('abc', 42).put('foo', true).put('etc', 'etc');

describe('ReplaceField', () => {
  it('excludes, includes and renames schemaless fields', () => {
    // Prepare
    const transform = configured(new ReplaceFieldValue(), {
      exclude: 'dont',
      renames: 'abc:xyz,foo:bar',
    });
    const record = sinkRecord({ value: { dont: 'whatever', abc: 42, foo: true, etc: 'etc' } });

    // Act
    const out = transform.apply(record);

    // Assess
    expect(out?.value).toEqual({ xyz: 42, bar: true, etc: 'etc' });
  });

  it('keeps only included fields of a Struct, renamed, under a derived schema', () => {
    // Prepare
    const transform = configured(new ReplaceFieldValue(), {
      include: 'abc,foo',
      renames: 'abc:xyz,foo:bar',
    });

    // Act
    const out = transform.apply(sinkRecord({ valueSchema: schema, value: struct() }));

    // Assess
    expect(out?.valueSchema?.name).toBe('S');
    expect(out?.valueSchema?.fields.map((f) => f.name)).toEqual(['xyz', 'bar']);
    const value = out?.value as Struct;
    expect(value.get('xyz')).toBe(42);
    expect(value.get('bar')).toBe(true);
  });

  it('lets exclude win over include', () => {
    // Prepare
    const transform = configured(new ReplaceFieldValue(), { include: 'abc,foo', exclude: 'foo' });

    // Act
    const out = transform.apply(sinkRecord({ value: { abc: 1, foo: 2, etc: 3 } }));

    // Assess
    expect(out?.value).toEqual({ abc: 1 });
  });

  it('reads the deprecated whitelist and blacklist names', () => {
    // Prepare
    const transform = configured(new ReplaceFieldKey(), { whitelist: 'a,b', blacklist: 'b' });

    // Act
    const out = transform.apply(
      sinkRecord({
        key: new Map([
          ['a', 1],
          ['b', 2],
          ['c', 3],
        ]),
      }),
    );

    // Assess
    expect(out?.key).toEqual(new Map([['a', 1]]));
  });

  it('passes tombstones through', () => {
    // Prepare
    const transform = configured(new ReplaceFieldValue(), { exclude: 'a' });
    const record = sinkRecord({ valueSchema: schema, value: null });

    // Act / Assess
    expect(transform.apply(record)).toBe(record);
  });

  it('leaves the input Struct untouched', () => {
    // Prepare
    const transform = configured(new ReplaceFieldValue(), { exclude: 'dont' });
    const value = struct();

    // Act
    transform.apply(sinkRecord({ valueSchema: schema, value }));

    // Assess
    expect(value.schema).toBe(schema);
    expect(value.get('dont')).toBe('whatever');
  });

  it('rejects values that are neither maps nor Structs', () => {
    // Prepare
    const transform = configured(new ReplaceFieldValue(), { exclude: 'a' });

    // Act / Assess
    expect(() => transform.apply(sinkRecord({ value: [1] }))).toThrow(
      new DataError(
        'Only Map objects supported in absence of schema for [field replacement], found: Array',
      ),
    );
  });

  it('rejects malformed rename mappings', () => {
    // Act / Assess
    expect(() => new ReplaceFieldValue().configure({ renames: 'a:b:c' })).toThrow(
      'Invalid value [a:b:c] for configuration renames: Invalid rename mapping: a:b:c',
    );
    expect(() => new ReplaceFieldValue().configure({ renames: 'ab' })).toThrow(ConfigError);
  });
});
