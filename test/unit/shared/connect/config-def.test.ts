import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ConfigDef,
  type ConfigValue,
  NO_DEFAULT,
  Password,
  type Recommender,
} from '../../../../shared/connect/config-def.js';
import { Range, ValidString } from '../../../../shared/connect/config-validators.js';
import { ConfigError } from '../../../../shared/connect/errors.js';

function exampleDef(): ConfigDef {
  return new ConfigDef()
    .define({
      name: 'tasks.max',
      type: 'INT',
      defaultValue: 1,
      validator: Range.atLeast(1),
      importance: 'HIGH',
      documentation: 'Maximum number of tasks.',
      group: 'Common',
      orderInGroup: 1,
      width: 'SHORT',
      displayName: 'Tasks max',
    })
    .define({ name: 'url', type: 'STRING', importance: 'HIGH', documentation: 'Endpoint.' })
    .define({
      name: 'api.key',
      type: 'PASSWORD',
      defaultValue: null,
      importance: 'HIGH',
      documentation: 'API key.',
    })
    .define({
      name: 'topics',
      type: 'LIST',
      defaultValue: '',
      importance: 'HIGH',
      documentation: 'Topics.',
      group: 'Common',
      orderInGroup: 2,
    });
}

function byName(values: ConfigValue[], name: string): ConfigValue {
  const value = values.find((v) => v.name === name);
  if (value === undefined) throw new Error(`no value for ${name}`);
  return value;
}

describe('ConfigDef.define', () => {
  it('fills Kafka defaults for optional metadata', () => {
    // Act
    const key = new ConfigDef()
      .define({ name: 'x', type: 'STRING', importance: 'LOW', documentation: 'X.' })
      .configKey('x');

    // Assess
    expect(key).toMatchObject({
      group: null,
      orderInGroup: -1,
      width: 'NONE',
      displayName: 'x',
      dependents: [],
      hasDefault: false,
      defaultValue: NO_DEFAULT,
    });
  });

  it('parses a string default by type', () => {
    const def = new ConfigDef().define({
      name: 'n',
      type: 'LONG',
      defaultValue: '60000',
      importance: 'LOW',
      documentation: 'N.',
    });
    expect(def.configKey('n')?.defaultValue).toBe(60000);
  });

  it('throws when a key is defined twice', () => {
    const def = exampleDef();
    expect(() =>
      def.define({ name: 'url', type: 'STRING', importance: 'LOW', documentation: 'again' }),
    ).toThrow('Configuration url is defined twice.');
  });

  it('throws when the default fails its validator', () => {
    expect(() =>
      new ConfigDef().define({
        name: 'n',
        type: 'INT',
        defaultValue: 0,
        validator: Range.atLeast(1),
        importance: 'LOW',
        documentation: 'N.',
      }),
    ).toThrow('Invalid value 0 for configuration n: Value must be at least 1');
  });

  it('lists names and groups in definition order', () => {
    const def = exampleDef();
    expect(def.names()).toEqual(['tasks.max', 'url', 'api.key', 'topics']);
    expect(def.groups()).toEqual(['Common']);
  });
});

describe('ConfigDef.parse', () => {
  it('returns typed values and defaults and ignores undeclared keys', () => {
    // Act
    const parsed = exampleDef().parse({ url: ' http://x ', topics: 'a,b', unknown: 'kept' });

    // Assess
    expect(parsed).toEqual({
      'tasks.max': 1,
      url: 'http://x',
      'api.key': null,
      topics: ['a', 'b'],
    });
  });

  it('throws Kafka message for a missing required key', () => {
    const act = () => exampleDef().parse({});
    expect(act).toThrow(ConfigError);
    expect(act).toThrow('Missing required configuration "url" which has no default value.');
  });

  it('throws Kafka message for a value of the wrong type', () => {
    expect(() => exampleDef().parse({ url: 'u', 'tasks.max': 'abc' })).toThrow(
      'Invalid value abc for configuration tasks.max: Not a number of type INT',
    );
  });

  it('runs validators on parsed values', () => {
    expect(() => exampleDef().parse({ url: 'u', 'tasks.max': '0' })).toThrow(
      'Invalid value 0 for configuration tasks.max: Value must be at least 1',
    );
  });

  it('wraps passwords so they never print', () => {
    const parsed = exampleDef().parse({ url: 'u', 'api.key': 'sk-123' });
    expect(parsed['api.key']).toBeInstanceOf(Password);
    expect(JSON.stringify(parsed)).not.toContain('sk-123');
  });

  it('throws when a dependent is not defined', () => {
    const def = new ConfigDef().define({
      name: 'a',
      type: 'STRING',
      defaultValue: '',
      importance: 'LOW',
      documentation: 'A.',
      dependents: ['ghost'],
    });
    expect(() => def.parse({})).toThrow(
      'Some configurations in are referred in the dependents, but not defined: ghost',
    );
  });
});

describe('ConfigDef.validate', () => {
  it('returns one value per key in definition order with parsed values', () => {
    // Act
    const values = exampleDef().validate({ url: 'u', topics: 'a, b' });

    // Assess
    expect(values.map((v) => v.name)).toEqual(['tasks.max', 'url', 'api.key', 'topics']);
    expect(byName(values, 'topics')).toEqual({
      name: 'topics',
      value: ['a', 'b'],
      recommendedValues: [],
      errors: [],
      visible: true,
    });
  });

  it('reports parse, validator and missing-key problems as messages instead of throwing', () => {
    // Act
    const values = exampleDef().validate({ 'tasks.max': 'abc' });

    // Assess
    expect(byName(values, 'tasks.max').errors).toEqual([
      'Invalid value abc for configuration tasks.max: Not a number of type INT',
      'Invalid value null for configuration tasks.max: Value must be non-null',
    ]);
    expect(byName(values, 'url').errors).toEqual([
      'Missing required configuration "url" which has no default value.',
    ]);
  });

  it('turns a validator that throws a plain Error into a field message', () => {
    const def = new ConfigDef().define({
      name: 'x',
      type: 'STRING',
      defaultValue: 'v',
      importance: 'LOW',
      documentation: 'X.',
      validator: {
        ensureValid: (_name, value) => {
          if (value !== 'v') throw new TypeError('boom');
        },
        toString: () => 'anything',
      },
    });
    expect(byName(def.validate({ x: 'w' }), 'x').errors).toEqual(['boom']);
  });

  it('asks recommenders for valid values and visibility given the parents', () => {
    // Prepare
    const recommender: Recommender = {
      validValues: (_name, parsed) => (parsed.mode === 'sasl' ? ['PLAIN', 'SCRAM-SHA-512'] : []),
      visible: (_name, parsed) => parsed.mode === 'sasl',
    };
    const def = new ConfigDef()
      .define({
        name: 'mode',
        type: 'STRING',
        defaultValue: 'none',
        validator: ValidString.in('none', 'sasl'),
        importance: 'HIGH',
        documentation: 'Auth mode.',
        dependents: ['mechanism'],
      })
      .define({
        name: 'mechanism',
        type: 'STRING',
        defaultValue: 'PLAIN',
        importance: 'LOW',
        documentation: 'SASL mechanism.',
        recommender,
      });

    // Act
    const hidden = byName(def.validate({}), 'mechanism');
    const shown = byName(def.validate({ mode: 'sasl' }), 'mechanism');

    // Assess
    expect(hidden).toMatchObject({ visible: false, recommendedValues: [] });
    expect(shown).toMatchObject({ visible: true, recommendedValues: ['PLAIN', 'SCRAM-SHA-512'] });
  });

  it('reports a dependent that is not defined as an invisible value with an error', () => {
    const def = new ConfigDef().define({
      name: 'a',
      type: 'STRING',
      defaultValue: '',
      importance: 'LOW',
      documentation: 'A.',
      dependents: ['ghost'],
    });
    expect(byName(def.validate({}), 'ghost')).toEqual({
      name: 'ghost',
      value: null,
      recommendedValues: [],
      errors: ['ghost is referred in the dependents, but not defined.'],
      visible: false,
    });
  });

  it('terminates and validates every key when dependents form a cycle', () => {
    const def = new ConfigDef()
      .define({ name: 'a', type: 'INT', importance: 'LOW', documentation: 'A.', dependents: ['b'] })
      .define({
        name: 'b',
        type: 'INT',
        importance: 'LOW',
        documentation: 'B.',
        dependents: ['a'],
      });
    const values = def.validate({ a: 'x' });
    expect(byName(values, 'a').errors).toEqual([
      'Invalid value x for configuration a: Not a number of type INT',
    ]);
    expect(byName(values, 'b').errors).toHaveLength(1);
  });

  it('keeps a null prop as a null value', () => {
    expect(byName(exampleDef().validate({ url: null }), 'url')).toMatchObject({
      value: null,
      errors: [],
    });
  });

  it('never throws on arbitrary string maps', () => {
    const def = exampleDef().define({
      name: 'ratio',
      type: 'DOUBLE',
      defaultValue: 0.5,
      validator: Range.between(0, 1),
      importance: 'LOW',
      documentation: 'Ratio.',
    });
    const key = fc.oneof(fc.constantFrom(...def.names(), '__proto__', 'constructor'), fc.string());
    const value = fc.oneof(
      fc.string(),
      fc.constant(null),
      fc.constantFrom('1', '-1', 'true', ' , '),
    );
    fc.assert(
      fc.property(fc.dictionary(key, value), (props) => {
        const values = def.validate(props);
        expect(values.map((v) => v.name)).toEqual(def.names());
        for (const v of values) expect(v.errors.every((e) => typeof e === 'string')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('ConfigDef composition', () => {
  it('withAll copies keys and groups and rejects duplicates by default', () => {
    const merged = new ConfigDef().withAll(exampleDef());
    expect(merged.names()).toEqual(exampleDef().names());
    expect(merged.groups()).toEqual(['Common']);
    expect(() => merged.withAll(exampleDef())).toThrow('defined twice');
  });

  it('withAll replace keeps the position but takes the new definition', () => {
    const other = new ConfigDef().define({
      name: 'url',
      type: 'STRING',
      defaultValue: 'http://default',
      importance: 'LOW',
      documentation: 'Overridden.',
    });
    const merged = exampleDef().withAll(other, 'replace');
    expect(merged.names()).toEqual(['tasks.max', 'url', 'api.key', 'topics']);
    expect(merged.configKey('url')?.documentation).toBe('Overridden.');
  });

  it('embed prefixes names, groups and orders and unprefixes names for validators', () => {
    // Prepare
    const child = new ConfigDef()
      .define({
        name: 'z',
        type: 'STRING',
        defaultValue: 'z',
        importance: 'LOW',
        documentation: 'Z.',
      })
      .define({
        name: 'a',
        type: 'INT',
        validator: Range.atLeast(0),
        importance: 'HIGH',
        documentation: 'A.',
      });

    // Act
    const def = new ConfigDef().embed('transforms.t.', 'Transforms: t', 1, child);
    const values = def.validate({ 'transforms.t.a': '-1' });

    // Assess
    expect(def.names()).toEqual(['transforms.t.a', 'transforms.t.z']);
    expect(def.configKey('transforms.t.a')).toMatchObject({
      group: 'Transforms: t',
      orderInGroup: 1,
    });
    expect(def.configKey('transforms.t.z')).toMatchObject({ orderInGroup: 2 });
    expect(byName(values, 'transforms.t.a').errors).toEqual([
      'Invalid value -1 for configuration a: Value must be at least 0',
    ]);
  });

  it('sorts configs by group, order, required first, importance, then name', () => {
    const def = new ConfigDef()
      .define({ name: 'b', type: 'STRING', defaultValue: '', importance: 'LOW', documentation: '' })
      .define({ name: 'a', type: 'STRING', defaultValue: '', importance: 'LOW', documentation: '' })
      .define({
        name: 'c',
        type: 'STRING',
        defaultValue: '',
        importance: 'HIGH',
        documentation: '',
      })
      .define({ name: 'd', type: 'STRING', importance: 'LOW', documentation: '' })
      .define({ name: 'g', type: 'STRING', importance: 'LOW', documentation: '', group: 'G' });
    expect(def.sortedConfigs().map((k) => k.name)).toEqual(['d', 'c', 'a', 'b', 'g']);
  });
});
