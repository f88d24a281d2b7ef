import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../../shared/connect/errors.js';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import { SingleFieldPath } from '../../../../../../shared/plugins/transforms/util/field-path.js';

const steps = (path: string) => new SingleFieldPath(path, 'V2').steps;

describe('SingleFieldPath', () => {
  it('splits V2 paths on dots, with backticks around names holding dots', () => {
    // Act / Assess
    expect(steps('a.b.c')).toEqual(['a', 'b', 'c']);
    expect(steps('`a.b`.c')).toEqual(['a.b', 'c']);
    expect(steps('a.`b.c`')).toEqual(['a', 'b.c']);
    expect(steps('a.`b`c`.d')).toEqual(['a', 'b`c', 'd']);
    expect(steps('a.`b\\`.c`.d')).toEqual(['a', 'b`.c', 'd']);
    expect(steps('a.')).toEqual(['a', '']);
    expect(new SingleFieldPath('a.b', 'V1').steps).toEqual(['a.b']);
  });

  it('rejects an unclosed backtick', () => {
    // Act / Assess
    expect(() => steps('`a.b')).toThrow(ConfigError);
    expect(() => steps('a.`b\\`')).toThrow(ConfigError);
  });

  it('finds nested fields and values, or null when a step is missing', () => {
    // Prepare
    const inner = SchemaBuilder.struct().field('c', Schemas.INT32).build();
    const outer = SchemaBuilder.struct()
      .field('b', inner)
      .field('n', SchemaBuilder.struct().field('c', Schemas.INT32).optional().build())
      .field('s', Schemas.STRING)
      .build();
    const struct = new Struct(outer).put('b', new Struct(inner).put('c', 3)).put('s', 'x');
    const path = new SingleFieldPath('b.c', 'V2');

    // Act / Assess
    expect(path.fieldFrom(outer)?.schema).toEqual(Schemas.INT32);
    expect(path.valueFromStruct(struct)).toBe(3);
    expect(new SingleFieldPath('n.c', 'V2').valueFromStruct(struct)).toBeNull();
    expect(new SingleFieldPath('x.c', 'V2').fieldFrom(outer)).toBeNull();
    expect(path.valueFromMap({ b: { c: 4 } })).toBe(4);
    expect(path.valueFromMap({ b: null })).toBeNull();
    expect(() => path.valueFromMap({ b: 'str' })).toThrow(DataError);
  });
});
