import { describe, expect, it } from 'vitest';
import { parseConnectorConfig } from '../../../../../shared/connect/connector-config.js';
import { SinkRecord } from '../../../../../shared/connect/records.js';
import { Schemas } from '../../../../../shared/connect/schema.js';
import { builtinRegistry } from '../../../../../shared/plugins/registry.js';
import { silentLogger } from '../../../../../shared/ports/logger.js';
import { buildSinkPipeline } from '../../../../../shared/runtime/sink/sink-pipeline.js';
import { recordingSink } from '../error-handling-fakes.js';

const STRING = 'org.apache.kafka.connect.storage.StringConverter';
const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array | null | undefined) =>
  bytes === null || bytes === undefined ? null : new TextDecoder().decode(bytes);

function pipeline(extra: Record<string, string>) {
  const config = parseConnectorConfig(
    { name: 'orders-sink', 'connector.class': 'x', topics: 'orders', ...extra },
    'sink',
  );
  const dlq = recordingSink();
  const built = buildSinkPipeline(config, 2, {
    plugins: builtinRegistry(),
    logger: silentLogger,
    clock: { now: () => 0 },
    sleep: async () => {},
    deadLetters: dlq,
  });
  return { built, dlq };
}

const consumed = {
  topic: 'orders',
  partition: 1,
  offset: 9,
  timestamp: 1_000,
  timestampType: 'CreateTime' as const,
  key: utf8('k'),
  value: null,
  headers: [{ key: 'h', value: utf8('1') }],
};

describe('buildSinkPipeline', () => {
  it('converts key, value and headers into a SinkRecord; a null value stays a tombstone', async () => {
    const { built } = pipeline({ 'key.converter': STRING, 'value.converter': STRING });

    const result = await built.process(consumed);

    expect(result.kind).toBe('put');
    if (result.kind !== 'put') return;
    expect(result.record.key).toBe('k');
    expect(result.record.value).toBeNull();
    expect(result.record.timestamp).toBe(1_000);
    expect(result.record.headers.lastWithName('h')?.value).toBe(1);
  });

  it('offers errant reporting when errors are tolerated, logged or dead-lettered', () => {
    expect(pipeline({}).built.errantReporting).toBe(false);
    expect(pipeline({ 'errors.tolerance': 'all' }).built.errantReporting).toBe(true);
    expect(pipeline({ 'errors.log.enable': 'true' }).built.errantReporting).toBe(true);
    expect(pipeline({ 'errors.deadletterqueue.topic.name': 'dlq' }).built.errantReporting).toBe(
      true,
    );
  });

  it('serialises a reported record the task built itself with the connector converters', async () => {
    const { built, dlq } = pipeline({
      'key.converter': STRING,
      'value.converter': STRING,
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': 'dlq',
    });
    const record = new SinkRecord({
      topic: 'orders',
      kafkaPartition: 0,
      kafkaOffset: 4,
      keySchema: Schemas.STRING,
      key: 'id-4',
      valueSchema: Schemas.STRING,
      value: 'payload',
    });

    const deadLettered = await built.reportErrant(record, new Error('no'), 'MyTask', undefined);

    expect(deadLettered).toBe(true);
    expect([dlq.sent[0]?.topic, text(dlq.sent[0]?.key), text(dlq.sent[0]?.value)]).toEqual([
      'dlq',
      'id-4',
      'payload',
    ]);
  });

  it('rejects a reported record under errors.tolerance=none', async () => {
    const { built } = pipeline({ 'errors.log.enable': 'true' });
    const record = new SinkRecord({ topic: 'orders', kafkaPartition: 1, kafkaOffset: 9 });
    await expect(built.reportErrant(record, new Error('no'), 'MyTask', consumed)).rejects.toThrow(
      'Tolerance exceeded',
    );
  });
});
