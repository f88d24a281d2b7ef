import { describe, expect, it } from 'vitest';
import {
  parseConnectorConfig,
  validateConnectorConfig,
} from '../../../../shared/config/connector-config.js';
import {
  parseTopicCreation,
  usesTopicCreation,
} from '../../../../shared/config/topic-creation-config.js';
import { ConfigDef } from '../../../../shared/connect/config-def.js';

const base = { name: 'src', 'connector.class': 'Verifiable' };
const noPlugins = () => undefined;

describe('usesTopicCreation', () => {
  it('is true once any topic.creation.* key is set', () => {
    expect(usesTopicCreation(base)).toBe(false);
    expect(usesTopicCreation({ ...base, 'topic.creation.groups': '' })).toBe(true);
  });
});

describe('parseTopicCreation', () => {
  it('returns the listed groups then the catch-all default group', () => {
    // Act
    const groups = parseTopicCreation({
      ...base,
      'topic.creation.groups': 'compacted',
      'topic.creation.default.replication.factor': '3',
      'topic.creation.default.partitions': '-1',
      'topic.creation.default.include': 'ignored.*',
      'topic.creation.default.retention.ms': '86400000',
      'topic.creation.compacted.include': 'users, accounts-.*',
      'topic.creation.compacted.exclude': 'accounts-tmp',
      'topic.creation.compacted.partitions': '6',
      'topic.creation.compacted.cleanup.policy': 'compact',
    });

    // Assess
    expect(groups).toEqual([
      {
        name: 'compacted',
        include: ['users', 'accounts-.*'],
        exclude: ['accounts-tmp'],
        replicationFactor: 3,
        partitions: 6,
        topicConfigs: { 'cleanup.policy': 'compact' },
      },
      {
        name: 'default',
        include: ['.*'],
        exclude: [],
        replicationFactor: 3,
        partitions: -1,
        topicConfigs: { 'retention.ms': '86400000' },
      },
    ]);
  });

  it('requires the default replication factor and partitions', () => {
    expect(() => parseTopicCreation({ ...base, 'topic.creation.default.partitions': '1' })).toThrow(
      'Missing required configuration "topic.creation.default.replication.factor" which has no default value.',
    );
  });

  it('rejects counts that are neither -1 nor positive', () => {
    expect(() =>
      parseTopicCreation({
        ...base,
        'topic.creation.default.replication.factor': '0',
        'topic.creation.default.partitions': '1',
      }),
    ).toThrow(
      "Invalid value 0 for configuration replication.factor: Replication factor must be positive and not larger than the number of brokers in the Kafka cluster, or -1 to use the broker's default",
    );
  });

  it('is part of the parsed source config', () => {
    const parsed = parseConnectorConfig(
      {
        ...base,
        'topic.creation.default.replication.factor': '-1',
        'topic.creation.default.partitions': '3',
      },
      'source',
    );
    expect(parsed.topicCreation?.map((g) => g.name)).toEqual(['default']);
  });
});

describe('topic creation validation', () => {
  it('reports the missing default settings and invalid group regexes as field errors', () => {
    // Act
    const values = validateConnectorConfig(
      {
        ...base,
        'topic.creation.groups': 'g',
        'topic.creation.g.include': '[',
      },
      'source',
      new ConfigDef(),
      noPlugins,
    );

    // Assess
    const errors = Object.fromEntries(
      values.filter((v) => v.errors.length > 0).map((v) => [v.name, v.errors]),
    );
    expect(Object.keys(errors).sort()).toEqual([
      'topic.creation.default.partitions',
      'topic.creation.default.replication.factor',
      'topic.creation.g.include',
    ]);
    expect(errors['topic.creation.g.include']?.[0]).toContain('Syntax error in regular expression');
  });

  it('adds no topic creation keys when none is set', () => {
    const values = validateConnectorConfig(base, 'source', new ConfigDef(), noPlugins);
    expect(values.some((v) => v.name.startsWith('topic.creation.default.'))).toBe(false);
    expect(values.flatMap((v) => v.errors)).toEqual([]);
  });
});
