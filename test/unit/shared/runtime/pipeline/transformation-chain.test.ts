import { describe, expect, it } from 'vitest';
import { ConfigDef } from '../../../../../shared/connect/config-def.js';
import { ConfigError, DataError, RetriableError } from '../../../../../shared/connect/errors.js';
import { Headers } from '../../../../../shared/connect/headers.js';
import { PluginRegistry } from '../../../../../shared/connect/plugin.js';
import type { Predicate } from '../../../../../shared/connect/predicate.js';
import { type ConnectRecord, SourceRecord } from '../../../../../shared/connect/records.js';
import type { Transformation } from '../../../../../shared/connect/transformation.js';
import { predicateDescriptors } from '../../../../../shared/plugins/predicates/descriptors.js';
import { transformDescriptors } from '../../../../../shared/plugins/transforms/descriptors.js';
import {
  buildTransformationChain,
  TransformationChain,
  TransformationError,
} from '../../../../../shared/runtime/pipeline/transformation-chain.js';

const record = (topic = 't', value: unknown = { a: 1 }) =>
  new SourceRecord({ sourcePartition: null, sourceOffset: null, topic, value });

/** A transformation that appends `suffix` to the topic and logs its calls. */
class Suffix<R extends ConnectRecord> implements Transformation<R> {
  closed = 0;
  constructor(
    readonly suffix: string,
    readonly calls: string[] = [],
  ) {}
  config(): ConfigDef {
    return new ConfigDef();
  }
  configure(_props: Readonly<Record<string, string>>): void {}
  apply(r: R): R | null {
    this.calls.push(this.suffix);
    return r.newRecord({ topic: r.topic + this.suffix });
  }
  close(): void {
    this.closed++;
  }
}

class Fixed<R extends ConnectRecord> implements Predicate<R> {
  constructor(readonly result: boolean | Error) {}
  config(): ConfigDef {
    return new ConfigDef();
  }
  configure(): void {}
  test(): boolean {
    if (this.result instanceof Error) throw this.result;
    return this.result;
  }
  close(): void {}
}

const failing = (error: unknown): Transformation<SourceRecord> => ({
  config: () => new ConfigDef(),
  configure: () => {},
  apply: () => {
    throw error;
  },
  close: () => {},
});

const dropping: Transformation<SourceRecord> = {
  config: () => new ConfigDef(),
  configure: () => {},
  apply: () => null,
  close: () => {},
};

const registry = () => {
  const plugins = new PluginRegistry();
  for (const d of [...transformDescriptors, ...predicateDescriptors]) plugins.register(d);
  return plugins;
};

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('TransformationChain', () => {
  it('applies the stages in order', () => {
    // Prepare
    const chain = new TransformationChain([
      { alias: 'a', transformation: new Suffix<SourceRecord>('-a') },
      { alias: 'b', transformation: new Suffix<SourceRecord>('-b') },
    ]);
    const input = record();

    // Act
    const out = chain.apply(input);

    // Assess
    expect(out?.topic).toBe('t-a-b');
    expect(input.topic).toBe('t');
  });

  it('runs a stage only when its predicate (or its negation) holds', () => {
    // Prepare
    const stage = (predicate: boolean, negate: boolean) =>
      new TransformationChain([
        {
          alias: 's',
          transformation: new Suffix<SourceRecord>('-x'),
          predicate: new Fixed<SourceRecord>(predicate),
          negate,
        },
      ]).apply(record())?.topic;

    // Act / Assess
    expect(stage(true, false)).toBe('t-x');
    expect(stage(false, false)).toBe('t');
    expect(stage(false, true)).toBe('t-x');
    expect(stage(true, true)).toBe('t');
  });

  it('stops at the first stage that returns null and returns null', () => {
    // Prepare
    const calls: string[] = [];
    const chain = new TransformationChain([
      { alias: 'a', transformation: new Suffix<SourceRecord>('a', calls) },
      { alias: 'drop', transformation: dropping },
      { alias: 'b', transformation: new Suffix<SourceRecord>('b', calls) },
    ]);

    // Act
    const out = chain.apply(record());

    // Assess
    expect(out).toBeNull();
    expect(calls).toEqual(['a']);
  });

  it('tags a failure with the alias and class, keeping the cause, code and retriability', () => {
    // Prepare
    const cause = new DataError('bad record');
    const chain = new TransformationChain([
      { alias: 'ok', transformation: new Suffix<SourceRecord>('-a') },
      { alias: 'cast', className: 'org.example.Cast', transformation: failing(cause) },
    ]);
    const retriable = new TransformationChain([
      { alias: 'r', transformation: failing(new RetriableError('later')) },
    ]);

    // Act
    const error = thrown(() => chain.apply(record()));
    const retriableError = thrown(() => retriable.apply(record()));

    // Assess
    expect(error).toBeInstanceOf(TransformationError);
    expect(error).toMatchObject({
      alias: 'cast',
      className: 'org.example.Cast',
      stage: 'transform',
      code: 'DATA',
      retriable: false,
      cause,
      message: "Transformation 'cast' (org.example.Cast) failed: bad record",
    });
    expect(retriableError).toMatchObject({ retriable: true, code: 'RETRIABLE', alias: 'r' });
  });

  it('tags predicate failures with the stage they gate', () => {
    // Prepare
    const chain = new TransformationChain([
      {
        alias: 'gated',
        transformation: new Suffix<SourceRecord>('-a'),
        predicate: new Fixed<SourceRecord>(new TypeError('boom')),
      },
    ]);

    // Act
    const error = thrown(() => chain.apply(record()));

    // Assess
    expect(error).toMatchObject({ alias: 'gated', className: 'Suffix', code: 'CONNECT' });
    expect((error as TransformationError).cause).toBeInstanceOf(TypeError);
  });

  it('closes every plugin once, carrying on past failures', () => {
    // Prepare
    const first = new Suffix<SourceRecord>('a');
    const broken = {
      ...dropping,
      close: () => {
        throw new Error('close failed');
      },
    };
    const chain = new TransformationChain([
      { alias: 'a', transformation: first },
      { alias: 'b', transformation: broken },
      { alias: 'c', transformation: first },
    ]);

    // Act
    const errors = chain.close();

    // Assess
    expect(first.closed).toBe(1);
    expect(errors).toHaveLength(1);
  });

  it('passes records through unchanged when empty', () => {
    // Prepare
    const chain = new TransformationChain<SourceRecord>([]);
    const input = record();

    // Act / Assess
    expect(chain.isEmpty).toBe(true);
    expect(chain.apply(input)).toBe(input);
  });
});

describe('buildTransformationChain', () => {
  it('builds configured stages with predicates from a connector config', () => {
    // Prepare
    const props = {
      transforms: 'route,dropTombstones,tag',
      'transforms.route.type': 'org.apache.kafka.connect.transforms.RegexRouter',
      'transforms.route.regex': '(.*)-raw',
      'transforms.route.replacement': '$1',
      'transforms.route.predicate': 'isOrders',
      'transforms.dropTombstones.type': 'Filter',
      'transforms.dropTombstones.predicate': 'tombstone',
      'transforms.tag.type': 'InsertHeader',
      'transforms.tag.header': 'source',
      'transforms.tag.value.literal': 'db1',
      'transforms.tag.predicate': 'tombstone',
      'transforms.tag.negate': 'true',
      predicates: 'isOrders,tombstone',
      'predicates.isOrders.type': 'org.apache.kafka.connect.transforms.predicates.TopicNameMatches',
      'predicates.isOrders.pattern': 'orders-.*',
      'predicates.tombstone.type': 'RecordIsTombstone',
    };

    // Act
    const chain = buildTransformationChain<SourceRecord>(props, registry());
    const routed = chain.apply(record('orders-raw'));
    const notRouted = chain.apply(record('users-raw'));
    const tombstone = chain.apply(record('orders-raw', null));

    // Assess
    expect(chain.stages.map((s) => [s.alias, s.className, s.negate])).toEqual([
      ['route', 'org.apache.kafka.connect.transforms.RegexRouter', false],
      ['dropTombstones', 'org.apache.kafka.connect.transforms.Filter', false],
      ['tag', 'org.apache.kafka.connect.transforms.InsertHeader', true],
    ]);
    expect(routed?.topic).toBe('orders');
    expect(routed?.headers.lastWithName('source')?.value).toBe('db1');
    expect(notRouted?.topic).toBe('users-raw');
    expect(tombstone).toBeNull();
  });

  it('gives each plugin its own keys without the prefix, including type', () => {
    // Prepare
    const seen: Record<string, string>[] = [];
    const plugins = new PluginRegistry().register({
      className: 'org.example.Spy',
      aliases: [],
      type: 'transformation',
      version: '1',
      create: <R extends ConnectRecord>() => {
        const spy = new Suffix<R>('');
        spy.configure = (props: Readonly<Record<string, string>>) => {
          seen.push({ ...props });
        };
        return spy;
      },
    });

    // Act
    buildTransformationChain(
      {
        transforms: 'spy',
        'transforms.spy.type': 'org.example.Spy',
        'transforms.spy.x': '1',
        other: 'y',
      },
      plugins,
    );

    // Assess
    expect(seen).toEqual([{ type: 'org.example.Spy', x: '1' }]);
  });

  it('builds an empty chain when there are no transforms', () => {
    // Act / Assess
    expect(buildTransformationChain({}, registry()).isEmpty).toBe(true);
    expect(buildTransformationChain({ transforms: '' }, registry()).isEmpty).toBe(true);
  });

  it('rejects unknown or missing classes, naming the key', () => {
    // Act / Assess
    expect(
      thrown(() =>
        buildTransformationChain({ transforms: 'x', 'transforms.x.type': 'Nope' }, registry()),
      ),
    ).toMatchObject({
      name: ConfigError.name,
      key: 'transforms.x.type',
      message:
        'Invalid value Nope for configuration transforms.x.type: Class Nope could not be found.',
    });
    expect(thrown(() => buildTransformationChain({ transforms: 'x' }, registry()))).toMatchObject({
      name: ConfigError.name,
      key: 'transforms.x.type',
    });
    expect(
      thrown(() =>
        buildTransformationChain(
          {
            transforms: 'x',
            'transforms.x.type': 'Filter',
            'transforms.x.predicate': 'p',
            predicates: 'p',
            'predicates.p.type': 'Nope',
          },
          registry(),
        ),
      ),
    ).toMatchObject({ name: ConfigError.name, key: 'predicates.p.type' });
  });

  it('rejects negate without predicate, unlisted predicate aliases and duplicate aliases', () => {
    // Act / Assess
    expect(
      thrown(() =>
        buildTransformationChain(
          { transforms: 'x', 'transforms.x.type': 'Filter', 'transforms.x.negate': 'true' },
          registry(),
        ),
      ),
    ).toMatchObject({
      key: 'transforms.x.negate',
      message:
        "Config 'transforms.x.negate' was provided but there is no config 'transforms.x.predicate' defining a predicate to be negated.",
    });
    expect(
      thrown(() =>
        buildTransformationChain(
          { transforms: 'x', 'transforms.x.type': 'Filter', 'transforms.x.predicate': 'p' },
          registry(),
        ),
      ),
    ).toMatchObject({ name: ConfigError.name, key: 'transforms.x.predicate' });
    expect(
      thrown(() =>
        buildTransformationChain({ transforms: 'x,x', 'transforms.x.type': 'Filter' }, registry()),
      ),
    ).toMatchObject({ name: ConfigError.name, key: 'transforms' });
  });

  it("re-keys a plugin's ConfigError with its prefix and closes what it created", () => {
    // Prepare
    const first = new Suffix<ConnectRecord>('');
    const plugins = registry().register({
      className: 'org.example.First',
      aliases: [],
      type: 'transformation',
      version: '1',
      create: <R extends ConnectRecord>() => first as unknown as Transformation<R>,
    });

    // Act
    const error = thrown(() =>
      buildTransformationChain(
        {
          transforms: 'first,route',
          'transforms.first.type': 'org.example.First',
          'transforms.route.type': 'RegexRouter',
          'transforms.route.replacement': 'x',
        },
        plugins,
      ),
    );

    // Assess
    expect(error).toMatchObject({
      name: ConfigError.name,
      key: 'transforms.route.regex',
      message: 'Missing required configuration "regex" which has no default value.',
    });
    expect(first.closed).toBe(1);
  });

  it('keeps headers of the original record untouched', () => {
    // Prepare
    const chain = buildTransformationChain<SourceRecord>(
      { transforms: 'drop', 'transforms.drop.type': 'DropHeaders', 'transforms.drop.headers': 'h' },
      registry(),
    );
    const input = new SourceRecord({
      sourcePartition: null,
      sourceOffset: null,
      topic: 't',
      headers: new Headers().add('h', 1).add('k', 2),
    });

    // Act
    const out = chain.apply(input);

    // Assess
    expect(out?.headers.toArray().map((h) => h.key)).toEqual(['k']);
    expect(input.headers.size).toBe(2);
  });
});
