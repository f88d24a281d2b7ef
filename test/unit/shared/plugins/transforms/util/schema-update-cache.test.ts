import { describe, expect, it } from 'vitest';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { SchemaUpdateCache } from '../../../../../../shared/plugins/transforms/util/schema-update-cache.js';

const schemaNamed = (name: string) =>
  SchemaBuilder.struct().name(name).field('a', Schemas.INT32).build();

describe('SchemaUpdateCache', () => {
  it('builds once per equal input schema', () => {
    // Prepare
    const cache = new SchemaUpdateCache();
    let builds = 0;
    const build = () => {
      builds++;
      return Schemas.STRING;
    };

    // Act
    cache.getOrBuild(schemaNamed('a'), build);
    cache.getOrBuild(schemaNamed('a'), build);

    // Assess
    expect(builds).toBe(1);
  });

  it('evicts the least recently used entry beyond its capacity', () => {
    // Prepare
    const cache = new SchemaUpdateCache(2);
    const [a, b, c] = [schemaNamed('a'), schemaNamed('b'), schemaNamed('c')];
    cache.put(a, Schemas.INT8);
    cache.put(b, Schemas.INT16);
    cache.get(a);

    // Act
    cache.put(c, Schemas.INT32);

    // Assess
    expect(cache.get(a)).toBe(Schemas.INT8);
    expect(cache.get(b)).toBeUndefined();
    expect(cache.get(c)).toBe(Schemas.INT32);
  });
});
