import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../shared/connect/errors.js';
import { SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import { FlattenKey, FlattenValue } from '../../../../../shared/plugins/transforms/flatten.js';
import { configured, sinkRecord } from './fixtures.js';

describe('Flatten', () => {
  it('flattens nested Structs, joining names with the delimiter', () => {
    // Prepare
    const leaf = SchemaBuilder.struct()
      .field('int8', Schemas.INT8)
      .field('string', Schemas.STRING)
      .field('array', SchemaBuilder.array(Schemas.INT32))
      .build();
    const middle = SchemaBuilder.struct().field('B', leaf).build();
    const top = SchemaBuilder.struct()
      .name('Top')
      .field('A', middle)
      .field('x', Schemas.BOOLEAN)
      .build();
    const value = new Struct(top)
      .put(
        'A',
        new Struct(middle).put(
          'B',
          new Struct(leaf).put('int8', 8).put('string', 's').put('array', [1]),
        ),
      )
      .put('x', true);
    const transform = configured(new FlattenValue(), { delimiter: '#' });

    // Act
    const out = transform.apply(sinkRecord({ valueSchema: top, value }));

    // Assess
    expect(out?.valueSchema?.name).toBe('Top');
    expect(out?.valueSchema?.fields.map((f) => [f.name, f.schema.type])).toEqual([
      ['A#B#int8', 'int8'],
      ['A#B#string', 'string'],
      ['A#B#array', 'array'],
      ['x', 'boolean'],
    ]);
    const flat = out?.value as Struct;
    expect(flat.get('A#B#int8')).toBe(8);
    expect(flat.get('A#B#string')).toBe('s');
    expect(flat.get('A#B#array')).toEqual([1]);
    expect(flat.get('x')).toBe(true);
  });

  it('makes fields optional under an optional parent and inherits parent defaults', () => {
    // Prepare
    const inner = SchemaBuilder.struct().field('req', Schemas.INT32).build();
    const parentDefault = new Struct(inner).put('req', 9);
    const withDefault = SchemaBuilder.struct()
      .field('req', Schemas.INT32)
      .defaultValue(parentDefault)
      .build();
    const optionalParent = SchemaBuilder.struct().field('req', Schemas.INT32).optional().build();
    const top = SchemaBuilder.struct().field('a', withDefault).field('b', optionalParent).build();
    const value = new Struct(top).put('a', new Struct(withDefault).put('req', 1));

    // Act
    const out = new FlattenValue().apply(sinkRecord({ valueSchema: top, value }));

    // Assess
    expect(out?.valueSchema?.field('a.req')?.schema.defaultValue).toBe(9);
    expect(out?.valueSchema?.field('b.req')?.schema.optional).toBe(true);
    expect((out?.value as Struct | undefined)?.get('b.req')).toBeNull();
  });

  it('flattens nested schemaless maps, keeping arrays and nulls', () => {
    // Prepare
    const transform = configured(new FlattenKey(), {});
    const key = { A: { B: { n: 1, s: 'x', a: [1, 2] }, nil: null }, top: true };

    // Act
    const out = transform.apply(sinkRecord({ key }));

    // Assess
    expect(out?.key).toEqual({
      'A.B.n': 1,
      'A.B.s': 'x',
      'A.B.a': [1, 2],
      'A.nil': null,
      top: true,
    });
  });

  it("rejects schemaless values Connect's data API does not have", () => {
    // Prepare
    const transform = configured(new FlattenValue(), {});

    // Act / Assess
    expect(() => transform.apply(sinkRecord({ value: { d: new Date(0) } }))).toThrow(
      new DataError(
        "Flatten transformation was passed a value of type Date which is not supported by Connect's data API",
      ),
    );
    expect(() => transform.apply(sinkRecord({ value: 'text' }))).toThrow(
      new DataError(
        'Only Map objects supported in absence of schema for [flattening], found: String',
      ),
    );
  });

  it("passes schemaless tombstones and keeps schema'd tombstones null under the new schema", () => {
    // Prepare
    const inner = SchemaBuilder.struct().field('x', Schemas.INT32).build();
    const top = SchemaBuilder.struct().field('a', inner).optional().build();
    const transform = configured(new FlattenValue(), {});
    const schemaless = sinkRecord({ value: null });

    // Act
    const schemaed = transform.apply(sinkRecord({ valueSchema: top, value: null }));

    // Assess
    expect(transform.apply(schemaless)).toBe(schemaless);
    expect(schemaed?.value).toBeNull();
    expect(schemaed?.valueSchema?.fields.map((f) => f.name)).toEqual(['a.x']);
  });
});
