/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: Connect's ${topic} placeholder */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../../shared/connect/errors.js';
import {
  checkRenameFormat,
  connectorGroupId,
  outputTopicFor,
  parseKafkaSinkConfig,
  partitionTransactionalId,
} from '../../../../../../shared/plugins/connectors/kafka-sink/kafka-sink-config.js';
import { mappingGroupId } from '../../../../../../shared/runtime/enumerator/sink-mappings.js';
import { transactionalIdOf } from '../../../../../../shared/runtime/task/source-transaction-fate.js';

const listed = (...topics: string[]) => ({ topics, topicsRegex: undefined });

describe('kafka sink config', () => {
  it('replaces ${topic} in topic.rename.format with the record topic', () => {
    // Act
    const suffixed = outputTopicFor('${topic}.replica', 'orders');
    const prefixed = outputTopicFor('mirror.${topic}', 'orders');
    const fixed = outputTopicFor('all-orders', 'orders');

    // Assess
    expect([suffixed, prefixed, fixed]).toEqual(['orders.replica', 'mirror.orders', 'all-orders']);
  });

  it('defaults to ${topic} and source partitions, and parses output.partition case-insensitively', () => {
    // Act
    const defaults = parseKafkaSinkConfig({});
    const byKey = parseKafkaSinkConfig({ 'output.partition': 'KEY' });

    // Assess
    expect(defaults).toEqual({ topicRenameFormat: '${topic}', outputPartition: 'source' });
    expect(byKey.outputPartition).toBe('key');
  });

  it('refuses an unknown output.partition with Kafka’s message', () => {
    // Act
    const parse = () => parseKafkaSinkConfig({ 'output.partition': 'random' });

    // Assess
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(
      'Invalid value random for configuration output.partition: String must be one of (case insensitive): SOURCE, KEY',
    );
  });

  it('refuses a format that writes a listed topic back to itself', () => {
    // Act
    const check = () => checkRenameFormat('${topic}', listed('orders'), false);

    // Assess
    expect(check).toThrow(
      /Invalid value \$\{topic\} for configuration topic\.rename\.format: the output topic 'orders' is consumed by the connector itself/,
    );
  });

  it('refuses a format whose output is another consumed topic (a chain that loops)', () => {
    // Act
    const check = () =>
      checkRenameFormat('${topic}.replica', listed('orders', 'orders.replica'), false);

    // Assess
    expect(check).toThrow(ConfigError);
  });

  it('accepts a renaming format, and defers ${topic} to run time when transformations may route', () => {
    // Act
    const renaming = () =>
      checkRenameFormat('${topic}.replica', listed('orders', 'payments'), false);
    const routed = () => checkRenameFormat('${topic}', listed('orders'), true);

    // Assess
    expect(renaming).not.toThrow();
    expect(routed).not.toThrow();
  });

  it('refuses a fixed output topic that is consumed, even with transformations', () => {
    // Act
    const check = () =>
      checkRenameFormat('audit', { topics: [], topicsRegex: 'audit|orders' }, true);

    // Assess
    expect(check).toThrow(/the output topic 'audit' is consumed by the connector itself/);
  });

  it('refuses the bare placeholder with topics.regex and no transformation', () => {
    // Act
    const check = () =>
      checkRenameFormat('${topic}', { topics: [], topicsRegex: 'orders.*' }, false);

    // Assess
    expect(check).toThrow(/every topic matched by topics\.regex would be written back to itself/);
  });

  it('refuses an output topic name Kafka would reject', () => {
    // Act
    const check = () => checkRenameFormat('${topic} copy', listed('orders'), false);

    // Assess
    expect(check).toThrow(/'orders copy' is not a legal topic name/);
  });

  it('names the group connect-<connector>, apart from the mapping groups', () => {
    // Act
    const group = connectorGroupId('mirror');

    // Assess
    expect(group).toBe('connect-mirror');
    expect(group).not.toBe(mappingGroupId('mirror', 'orders'));
  });

  it('derives one transactional id per input partition that no source task id can equal', () => {
    // Act
    const id = partitionTransactionalId('sc', 'mirror', 'orders', 3);

    // Assess
    expect(id).toBe('sc-mirror-orders/3');
    expect(id).not.toBe(partitionTransactionalId('sc', 'mirror', 'orders', 4));
    // A source connector named after the sink and topic still gets another id.
    expect(id).not.toBe(transactionalIdOf('sc', 'mirror-orders', 3));
  });
});
