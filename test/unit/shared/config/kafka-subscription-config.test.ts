import { describe, expect, it } from 'vitest';
import {
  parseKafkaSubscription,
  parseTopicPartitionId,
} from '../../../../shared/config/kafka-subscription-config.js';
import { ConfigError } from '../../../../shared/connect/errors.js';

describe('parseKafkaSubscription', () => {
  it('defaults to committed offsets reset to earliest, unbounded, discovery every 5 minutes', () => {
    const sub = parseKafkaSubscription({ topics: 'a, b,a' });

    expect(sub).toMatchObject({
      topics: ['a', 'b'],
      pattern: undefined,
      partitions: undefined,
      starting: { kind: 'committed', reset: 'earliest' },
      stopping: { kind: 'none' },
      discoveryIntervalMs: 300_000,
    });
  });

  it('reads explicit partitions, specific starting and timestamp stopping offsets', () => {
    const sub = parseKafkaSubscription({
      'topic.partitions': 'orders:0, my-topic:12',
      'starting.offsets': 'specific',
      'starting.offsets.specific': 'orders:0:42',
      'stopping.offsets': 'timestamp',
      'stopping.offsets.timestamp.ms': '1700000000000',
    });

    expect(sub.partitions).toEqual([
      { topic: 'orders', partition: 0 },
      { topic: 'my-topic', partition: 12 },
    ]);
    expect(sub.starting).toEqual({
      kind: 'specific',
      offsets: new Map([['orders-0', 42]]),
      reset: 'earliest',
    });
    expect(sub.stopping).toEqual({ kind: 'timestamp', timestampMs: 1_700_000_000_000 });
  });

  it.each([
    [{}, 'Must configure one of topics, topics.regex or topic.partitions'],
    [{ topics: 'a', 'starting.offsets': 'timestamp' }, 'starting.offsets.timestamp.ms is required'],
    [
      { topics: 'a', 'starting.offsets': 'newest' },
      'Invalid value newest for configuration starting.offsets',
    ],
    [{ topics: 'a', 'stopping.offsets.specific': 'a:x:1' }, 'expected topic:partition:offset'],
  ])('refuses %j with a ConfigError', (props, message) => {
    expect(() => parseKafkaSubscription(props)).toThrow(ConfigError);
    expect(() => parseKafkaSubscription(props)).toThrow(message);
  });
});

describe('parseTopicPartitionId', () => {
  it('splits on the last dash, as topics may contain dashes', () => {
    expect(parseTopicPartitionId('my-orders-12')).toEqual({ topic: 'my-orders', partition: 12 });
    expect(() => parseTopicPartitionId('nodash')).toThrow(ConfigError);
  });
});
