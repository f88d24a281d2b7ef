import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../../shared/connect/errors.js';
import {
  DATAGEN_CONFIG_DEF,
  datagenTaskConfigs,
  parseDatagenConfig,
  parseDatagenTaskConfig,
} from '../../../../../../shared/plugins/connectors/datagen/datagen-config.js';

function errorOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('parseDatagenConfig', () => {
  it('applies the documented defaults when only kafka.topic is set', () => {
    // Act
    const config = parseDatagenConfig({ 'kafka.topic': 'out' });

    // Assess
    expect(config).toEqual({
      topic: 'out',
      quickstart: 'sequence',
      sourcePartitions: 1,
      recordsPerPoll: 500,
      maxIntervalMs: 0,
      ratePerSecond: 0,
      payloadBytes: 0,
      iterations: -1,
      seed: 1n,
      transactionRecords: null,
    });
  });

  it('parses every key', () => {
    // Act
    const config = parseDatagenConfig({
      'kafka.topic': 'orders',
      quickstart: 'ORDERS',
      'source.partitions': '8',
      'records.per.poll': '100',
      'max.interval': '250',
      'rate.per.second': '12.5',
      'payload.bytes': '1024',
      iterations: '1000',
      seed: '-9223372036854775808',
      'transaction.records': '50',
    });

    // Assess
    expect(config).toEqual({
      topic: 'orders',
      quickstart: 'orders',
      sourcePartitions: 8,
      recordsPerPoll: 100,
      maxIntervalMs: 250,
      ratePerSecond: 12.5,
      payloadBytes: 1024,
      iterations: 1000,
      seed: -(2n ** 63n),
      transactionRecords: 50,
    });
  });

  it.each(['0', '-1', '-5'])(
    "reads iterations=%s as unlimited, as Confluent's datagen reads any value below 1",
    (iterations) => {
      // Act
      const config = parseDatagenConfig({ 'kafka.topic': 'out', iterations });

      // Assess
      expect(config.iterations).toBe(-1);
    },
  );

  it('rejects a missing kafka.topic with Kafka’s message', () => {
    // Act
    const error = errorOf(() => parseDatagenConfig({ quickstart: 'orders' }));

    // Assess
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      'Missing required configuration "kafka.topic" which has no default value.',
    );
  });

  it.each([
    [
      'quickstart',
      'clicks',
      "Invalid value clicks for configuration quickstart: not supported by this datagen, which has only the quickstarts orders, users, pageviews, sequence (Confluent's other quickstarts, schema.filename and schema.string are not supported)",
    ],
    [
      'source.partitions',
      '0',
      'Invalid value 0 for configuration source.partitions: Value must be at least 1',
    ],
    [
      'records.per.poll',
      'many',
      'Invalid value many for configuration records.per.poll: Not a number of type INT',
    ],
    [
      'transaction.records',
      '0',
      'Invalid value 0 for configuration transaction.records: Value must be at least 1',
    ],
    [
      'rate.per.second',
      '-1',
      'Invalid value -1 for configuration rate.per.second: Value must be at least 0',
    ],
  ])('rejects an invalid %s', (key, value, message) => {
    // Act
    const error = errorOf(() => parseDatagenConfig({ 'kafka.topic': 't', [key]: value }));

    // Assess
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(message);
  });

  it('reports errors through validate without throwing', () => {
    // Act
    const values = DATAGEN_CONFIG_DEF.validate({ 'source.partitions': '0' });

    // Assess
    const errors = Object.fromEntries(values.map((v) => [v.name, v.errors]));
    expect(errors['kafka.topic']).toEqual([
      'Missing required configuration "kafka.topic" which has no default value.',
    ]);
    expect(errors['source.partitions']).toEqual([
      'Invalid value 0 for configuration source.partitions: Value must be at least 1',
    ]);
    expect(errors.quickstart).toEqual([]);
  });

  it('documents every key', () => {
    // Act
    const keys = [...DATAGEN_CONFIG_DEF.configKeys().values()];

    // Assess
    expect(keys.map((k) => k.name)).toEqual([
      'kafka.topic',
      'quickstart',
      'source.partitions',
      'records.per.poll',
      'max.interval',
      'rate.per.second',
      'payload.bytes',
      'iterations',
      'seed',
      'transaction.records',
    ]);
    for (const key of keys) expect(key.documentation.length).toBeGreaterThan(20);
  });
});

describe('parseDatagenTaskConfig', () => {
  it('takes every source partition when task.partitions is unset', () => {
    // Act
    const config = parseDatagenTaskConfig({ 'kafka.topic': 't', 'source.partitions': '3' });

    // Assess
    expect(config.partitions).toEqual([0, 1, 2]);
  });

  it('reads the listed partitions', () => {
    // Act
    const config = parseDatagenTaskConfig({
      'kafka.topic': 't',
      'source.partitions': '9',
      'task.partitions': '6, 0,3',
    });

    // Assess
    expect(config.partitions).toEqual([0, 3, 6]);
  });

  it.each(['9', 'x', '-1'])('rejects partition %s outside [0, source.partitions)', (partition) => {
    // Act
    const error = errorOf(() =>
      parseDatagenTaskConfig({
        'kafka.topic': 't',
        'source.partitions': '9',
        'task.partitions': partition,
      }),
    );

    // Assess
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain('task.partitions');
  });
});

describe('datagenTaskConfigs', () => {
  const props = { 'kafka.topic': 't', 'source.partitions': '7' };

  it('deals partitions round-robin over min(maxTasks, source.partitions) tasks', () => {
    // Act
    const configs = datagenTaskConfigs(props, parseDatagenConfig(props), 3);

    // Assess
    expect(configs.map((c) => c['task.partitions'])).toEqual(['0,3,6', '1,4', '2,5']);
    expect(configs[0]).toMatchObject(props);
  });

  it('creates one task per partition when maxTasks exceeds source.partitions', () => {
    // Act
    const configs = datagenTaskConfigs(props, parseDatagenConfig(props), 20);

    // Assess
    expect(configs.map((c) => c['task.partitions'])).toEqual(['0', '1', '2', '3', '4', '5', '6']);
  });

  it('assigns every partition to exactly one task, balanced within one (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 50 }),
        (partitions, maxTasks) => {
          const taskProps = { 'kafka.topic': 't', 'source.partitions': String(partitions) };
          const configs = datagenTaskConfigs(taskProps, parseDatagenConfig(taskProps), maxTasks);
          const lists = configs.map((c) => parseDatagenTaskConfig(c).partitions);
          const all = lists.flat().sort((a, b) => a - b);
          const sizes = lists.map((l) => l.length);
          expect(configs).toHaveLength(Math.min(partitions, maxTasks));
          expect(all).toEqual(Array.from({ length: partitions }, (_, i) => i));
          expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        },
      ),
    );
  });
});
