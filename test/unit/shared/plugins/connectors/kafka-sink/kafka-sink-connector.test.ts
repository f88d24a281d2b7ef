/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: Connect's ${topic} placeholder */
import { describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../../../../../../shared/connect/context.js';
import { ConfigError } from '../../../../../../shared/connect/errors.js';
import { KAFKA_SINK_CLASS } from '../../../../../../shared/plugins/connectors/kafka-sink/descriptor.js';
import { container, GROUP, mirrorConfig } from './harness.js';

const context: ConnectorContext = { requestTaskReconfiguration: () => {}, raiseError: () => {} };
const errorsOf = (values: { name: string; errors: string[] }[], name: string) =>
  values.find((v) => v.name === name)?.errors ?? [];

describe('KafkaSinkConnector', () => {
  it('resolves by its class name and the kafka-sink alias', () => {
    // Prepare
    const { plugins } = container();

    // Act
    const byAlias = plugins.resolve('kafka-sink', 'sink');
    const bySimpleName = plugins.resolve('KafkaSink', 'sink');

    // Assess
    expect(byAlias.className).toBe(KAFKA_SINK_CLASS);
    expect(bySimpleName.className).toBe(KAFKA_SINK_CLASS);
  });

  it('reports a looping topic.rename.format on that key in validate', () => {
    // Prepare
    const connector = container().connector();

    // Act
    const values = connector.validate(mirrorConfig({ 'topic.rename.format': '${topic}' }));

    // Assess
    expect(errorsOf(values, 'topic.rename.format')).toEqual([
      expect.stringMatching(/the output topic 'orders' is consumed by the connector itself/),
    ]);
  });

  it('refuses producer.override.acks other than all in validate', () => {
    // Prepare
    const connector = container().connector();

    // Act
    const values = connector.validate(mirrorConfig({ 'producer.override.acks': '1' }));

    // Assess
    expect(errorsOf(values, 'producer.override.acks')).toEqual([
      expect.stringMatching(/Must set acks to all/),
    ]);
  });

  it('refuses to start with a looping format', async () => {
    // Prepare
    const connector = container().connector();

    // Act
    const start = connector.start(mirrorConfig({ 'topic.rename.format': 'orders' }), context);

    // Assess
    await expect(start).rejects.toBeInstanceOf(ConfigError);
  });

  it('gives every task the connector’s config', async () => {
    // Prepare
    const connector = container().connector();
    await connector.start(mirrorConfig(), context);

    // Act
    const configs = await connector.taskConfigs(3);

    // Assess
    expect(configs).toEqual([mirrorConfig(), mirrorConfig(), mirrorConfig()]);
  });

  it('moves the connector group when offsets are altered, and resets every partition it holds', async () => {
    // Prepare
    const box = container();
    box.kafka.commitGroup(GROUP, 'orders', 0, 50);
    box.kafka.commitGroup(GROUP, 'orders', 2, 70);
    const connector = box.connector();

    // Act
    const altered = await connector.alterOffsets(mirrorConfig(), new Map([['orders-1', 12]]));
    await connector.alterOffsets(mirrorConfig(), new Map([['orders-0', null]]));

    // Assess
    expect(altered).toBe(true);
    expect([0, 1, 2].map((p) => box.kafka.groupOffset(GROUP, 'orders', p))).toEqual([0, 0, 0]);
    expect(box.kafka.calls).toContain('init sc-mirror-orders/1');
  });
});
