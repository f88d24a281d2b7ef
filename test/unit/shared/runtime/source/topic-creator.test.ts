import { describe, expect, it } from 'vitest';
import { parseConnectorConfig } from '../../../../../shared/config/connector-config.js';
import type { KafkaAdminPort, TopicSpec } from '../../../../../shared/ports/kafka.js';
import { TopicCreator } from '../../../../../shared/runtime/source/topic-creator.js';

function recordingAdmin() {
  const created: TopicSpec[] = [];
  const admin = {
    createTopics: async (specs: readonly TopicSpec[]) => {
      created.push(...specs);
      return specs.map((s) => s.topic);
    },
  } as unknown as KafkaAdminPort;
  return { admin, created };
}

const groups = (extra: Record<string, string>) =>
  parseConnectorConfig({ name: 'c', 'connector.class': 'x', ...extra }, 'source').topicCreation;

describe('TopicCreator', () => {
  const config = groups({
    'topic.creation.groups': 'compacted',
    'topic.creation.compacted.include': 'state-.*',
    'topic.creation.compacted.exclude': 'state-tmp',
    'topic.creation.compacted.partitions': '6',
    'topic.creation.compacted.cleanup.policy': 'compact',
    'topic.creation.default.replication.factor': '1',
    'topic.creation.default.partitions': '3',
  });

  it('gives a topic the first group that includes it and does not exclude it, else the default', () => {
    const creator = new TopicCreator(config, recordingAdmin().admin);
    expect(creator.specFor('state-users')).toEqual({
      topic: 'state-users',
      partitions: 6,
      replicationFactor: 1, // groups inherit the default group's values they do not set
      configs: { 'cleanup.policy': 'compact' },
    });
    expect(creator.specFor('state-tmp')).toMatchObject({ partitions: 3, replicationFactor: 1 });
    expect(creator.specFor('orders')).toMatchObject({ partitions: 3, replicationFactor: 1 });
  });

  it('asks for each topic once, and for nothing when topic creation is not configured', async () => {
    const on = recordingAdmin();
    const creator = new TopicCreator(config, on.admin);
    await creator.ensure(['orders', 'orders', 'state-a']);
    await creator.ensure(['orders']);
    expect(on.created.map((s) => s.topic)).toEqual(['orders', 'state-a']);

    const off = recordingAdmin();
    await new TopicCreator(groups({}), off.admin).ensure(['orders']);
    expect(off.created).toEqual([]);
  });
});
