import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../shared/connect/errors.js';
import { SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import { DropHeaders } from '../../../../../shared/plugins/transforms/drop-headers.js';
import { Filter } from '../../../../../shared/plugins/transforms/filter.js';
import {
  HeaderFromKey,
  HeaderFromValue,
} from '../../../../../shared/plugins/transforms/header-from.js';
import { InsertHeader } from '../../../../../shared/plugins/transforms/insert-header.js';
import { configured, headers, sinkRecord, thrown } from './fixtures.js';

describe('Filter', () => {
  it('drops every record', () => {
    // Prepare
    const filter = configured(new Filter(), {});

    // Act / Assess
    expect(filter.apply(sinkRecord({ value: 1 }))).toBeNull();
    expect(filter.config().names()).toEqual([]);
  });
});

describe('InsertHeader', () => {
  it('adds the literal as a header with the schema inferred from the text', () => {
    // Prepare
    const record = sinkRecord({ headers: headers(['existing', 'x']) });
    const insert = (literal: string) =>
      configured(new InsertHeader(), { header: 'h', 'value.literal': literal })
        .apply(record)
        ?.headers.lastWithName('h');

    // Act / Assess
    expect(insert('hello')).toEqual({ key: 'h', schema: Schemas.STRING, value: 'hello' });
    expect(insert('42')).toEqual({ key: 'h', schema: Schemas.INT8, value: 42 });
    expect(insert('70000')).toEqual({ key: 'h', schema: Schemas.INT32, value: 70000 });
    expect(insert('true')).toEqual({ key: 'h', schema: Schemas.BOOLEAN, value: true });
    expect(insert('1.5')).toEqual({ key: 'h', schema: Schemas.FLOAT32, value: 1.5 });
    expect(insert('1.1')).toEqual({ key: 'h', schema: Schemas.FLOAT64, value: 1.1 });
    expect(record.headers.size).toBe(1);
  });

  it('keeps existing headers, including ones with the same key', () => {
    // Prepare
    const transform = configured(new InsertHeader(), { header: 'h', 'value.literal': 'new' });

    // Act
    const out = transform.apply(sinkRecord({ headers: headers(['h', 'old']) }));

    // Assess
    expect(out?.headers.allWithName('h').map((h) => h.value)).toEqual(['old', 'new']);
  });

  it('requires both keys', () => {
    // Act / Assess
    expect(thrown(() => new InsertHeader().configure({ header: 'h' }))).toMatchObject({
      name: ConfigError.name,
      key: 'value.literal',
    });
  });
});

describe('DropHeaders', () => {
  it('removes every header with a listed key', () => {
    // Prepare
    const transform = configured(new DropHeaders(), { headers: 'a,b' });
    const record = sinkRecord({ headers: headers(['a', 1], ['c', 2], ['b', 3], ['a', 4]) });

    // Act
    const out = transform.apply(record);

    // Assess
    expect(out?.headers.toArray().map((h) => h.key)).toEqual(['c']);
    expect(record.headers.size).toBe(4);
  });

  it('requires a non-empty list', () => {
    // Act / Assess
    expect(thrown(() => new DropHeaders().configure({ headers: '' }))).toMatchObject({
      name: ConfigError.name,
      key: 'headers',
    });
  });
});

describe('HeaderFrom', () => {
  const schema = SchemaBuilder.struct()
    .name('S')
    .field('a', Schemas.STRING)
    .field('b', Schemas.OPTIONAL_INT32)
    .field('c', Schemas.BOOLEAN)
    .build();
  const value = () => new Struct(schema).put('a', 'x').put('b', 1).put('c', true);

  it('copies Struct fields into headers with their schemas', () => {
    // Prepare
    const transform = configured(new HeaderFromValue(), {
      fields: 'a,b',
      headers: 'ha,hb',
      operation: 'copy',
    });
    const record = sinkRecord({ valueSchema: schema, value: value() });

    // Act
    const out = transform.apply(record);

    // Assess
    expect(out?.value).toBe(record.value);
    expect(out?.headers.toArray()).toEqual([
      { key: 'ha', schema: Schemas.STRING, value: 'x' },
      { key: 'hb', schema: Schemas.OPTIONAL_INT32, value: 1 },
    ]);
  });

  it('moves Struct fields, dropping them from the schema', () => {
    // Prepare
    const transform = configured(new HeaderFromValue(), {
      fields: 'a',
      headers: 'ha',
      operation: 'move',
    });

    // Act
    const out = transform.apply(sinkRecord({ valueSchema: schema, value: value() }));

    // Assess
    expect(out?.valueSchema?.name).toBe('S');
    expect(out?.valueSchema?.fields.map((f) => f.name)).toEqual(['b', 'c']);
    expect((out?.value as Struct | undefined)?.get('c')).toBe(true);
    expect(out?.headers.lastWithName('ha')?.value).toBe('x');
  });

  it('moves schemaless key fields into schemaless headers', () => {
    // Prepare
    const transform = configured(new HeaderFromKey(), {
      fields: 'a,missing',
      headers: 'ha,hm',
      operation: 'move',
    });

    // Act
    const out = transform.apply(sinkRecord({ key: { a: 1, b: 2 } }));

    // Assess
    expect(out?.key).toEqual({ b: 2 });
    expect(out?.headers.toArray()).toEqual([
      { key: 'ha', schema: null, value: 1 },
      { key: 'hm', schema: null, value: null },
    ]);
  });

  it('rejects unknown Struct fields and non-Struct values', () => {
    // Prepare
    const transform = configured(new HeaderFromValue(), {
      fields: 'zzz',
      headers: 'h',
      operation: 'copy',
    });

    // Act / Assess
    expect(() => transform.apply(sinkRecord({ valueSchema: schema, value: value() }))).toThrow(
      new DataError('Field does not exist: zzz'),
    );
    expect(() => transform.apply(sinkRecord({ valueSchema: schema, value: null }))).toThrow(
      new DataError('Only Struct objects supported for [header copy], found: null'),
    );
  });

  it('rejects lists of different lengths and unknown operations', () => {
    // Act / Assess
    expect(() =>
      new HeaderFromValue().configure({ fields: 'a,b', headers: 'h', operation: 'copy' }),
    ).toThrow("'fields' config must have the same number of elements as 'headers' config.");
    expect(
      thrown(() => new HeaderFromValue().configure({ fields: 'a', headers: 'h', operation: 'x' })),
    ).toMatchObject({ name: ConfigError.name, key: 'operation' });
  });
});
