/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: Connect's ${topic} placeholder */
import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../../shared/connect/errors.js';
import type { SinkRecord } from '../../../../../../shared/connect/records.js';
import { Schemas } from '../../../../../../shared/connect/schema.js';
import {
  FlakyConverter,
  registerFlakyConverter,
} from '../../../runtime/pipeline/error-handling-fakes.js';
import {
  BYTES,
  bytes,
  container,
  deliver,
  JSON_CONVERTER,
  mirrorConfig,
  range,
  sinkRecord,
  startedTask,
  text,
} from './harness.js';

describe('KafkaSinkTask serialisation and output topics', () => {
  it('copies key, value, headers and timestamp unchanged through the ByteArrayConverter', async () => {
    // Prepare
    const { task, kafka } = await startedTask();
    const record = sinkRecord(1, 7, {
      key: new Uint8Array([0, 255, 1]),
      value: new Uint8Array([9, 8, 7, 0]),
      headers: [
        { key: 'trace', value: bytes('a') },
        { key: 'trace', value: bytes('b') },
        { key: 'empty', value: null },
      ],
      timestamp: 1_650_000_000_123,
    });

    // Act
    await deliver(task, [record]);

    // Assess
    const [written] = kafka.committed('orders.replica', 1);
    expect(written).toEqual({
      topic: 'orders.replica',
      partition: 1,
      key: new Uint8Array([0, 255, 1]),
      value: new Uint8Array([9, 8, 7, 0]),
      headers: [
        { key: 'trace', value: bytes('a') },
        { key: 'trace', value: bytes('b') },
        { key: 'empty', value: null },
      ],
      timestamp: 1_650_000_000_123,
    });
  });

  it('serialises converted records again with the JSON converter', async () => {
    // Prepare
    const { task, kafka } = await startedTask(
      mirrorConfig({
        'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
        'value.converter': JSON_CONVERTER,
        'value.converter.schemas.enable': 'false',
        'header.converter': JSON_CONVERTER,
        'header.converter.schemas.enable': 'false',
      }),
    );
    const record = sinkRecord(0, 3, {
      keySchema: Schemas.OPTIONAL_STRING,
      key: 'order-3',
      valueSchema: null,
      value: { id: 3, items: ['a', 'b'], total: 12.5 },
      headers: [{ key: 'attempt', value: 2, schema: null }],
    });

    // Act
    await deliver(task, [record]);

    // Assess
    const [written] = kafka.committed('orders.replica', 0);
    expect(text(written?.key)).toBe('order-3');
    expect(JSON.parse(text(written?.value) ?? 'null')).toEqual({
      id: 3,
      items: ['a', 'b'],
      total: 12.5,
    });
    expect(written?.headers?.map((h) => [h.key, text(h.value)])).toEqual([['attempt', '2']]);
  });

  it('leaves the partition to the producer’s key partitioner with output.partition=key', async () => {
    // Prepare
    const { task, kafka } = await startedTask(mirrorConfig({ 'output.partition': 'key' }));
    const sent: (number | undefined)[] = [];
    const build = kafka.clients.transactionalProducer;
    kafka.clients.transactionalProducer = (id, options) => {
      const producer = build(id, options);
      const begin = producer.begin.bind(producer);
      producer.begin = async () => {
        const tx = await begin();
        const send = tx.send.bind(tx);
        tx.send = (records) => {
          sent.push(...records.map((r) => r.partition));
          return send(records);
        };
        return tx;
      };
      return producer;
    };

    // Act
    await deliver(task, range(2, 0, 1));

    // Assess
    expect(sent).toEqual([undefined, undefined]);
  });

  it('creates a missing output topic with the input topic’s partition count, once per container', async () => {
    // Prepare
    const box = container();
    const { task: first } = await startedTask(mirrorConfig(), box);
    const { task: second } = await startedTask(mirrorConfig(), box);

    // Act
    await deliver(first, range(0, 0, 0));
    await deliver(second, range(1, 0, 0));

    // Assess
    expect(box.kafka.created).toEqual([{ topic: 'orders.replica', partitions: 3 }]);
  });

  it('fails with a ConfigError when the output topic has too few partitions for output.partition=source', async () => {
    // Prepare
    const box = container();
    box.kafka.topic('orders.replica', 2);
    const { task } = await startedTask(mirrorConfig(), box);

    // Act
    const written = deliver(task, range(2, 0, 0));

    // Assess
    await expect(written).rejects.toBeInstanceOf(ConfigError);
    await expect(written).rejects.toThrow(
      "The output topic 'orders.replica' has 2 partition(s), but output.partition=source writes input partition 2",
    );
  });

  it('refuses at run time a record a transformation routed to a consumed topic', async () => {
    // Prepare
    const { task } = await startedTask(
      mirrorConfig({
        topics: 'orders,payments',
        'topic.rename.format': '${topic}',
        transforms: 'route',
        'transforms.route.type': 'org.apache.kafka.connect.transforms.RegexRouter',
        'transforms.route.regex': 'orders',
        'transforms.route.replacement': 'orders.replica',
      }),
    );
    // As RegexRouter would leave it: a payments record keeps its topic.
    const looping = sinkRecord(0, 0, { topic: 'payments' });

    // Act
    const put = task.put([looping]);

    // Assess
    await expect(put).rejects.toThrow(
      /records of topic 'payments' would go to the output topic 'payments' is consumed by the connector itself/,
    );
  });

  it('reports a record the converters cannot serialise and still moves the group past it', async () => {
    // Prepare
    const reported: { record: SinkRecord; error: Error }[] = [];
    const box = container();
    const { task, kafka } = await startedTask(mirrorConfig(), box, reported);
    const bad = sinkRecord(0, 1, { valueSchema: Schemas.STRING, value: 'not bytes' });

    // Act
    await deliver(task, [sinkRecord(0, 0), bad, sinkRecord(0, 2)]);

    // Assess
    expect(reported.map((r) => [r.record.kafkaOffset, r.error instanceof DataError])).toEqual([
      [1, true],
    ]);
    expect(kafka.committed('orders.replica', 0).map((r) => text(r.value))).toEqual([
      'v0-0',
      'v0-2',
    ]);
    expect(kafka.groupOffset('connect-mirror', 'orders', 0)).toBe(3);
  });

  it('awaits asynchronous converters, reporting a record whose conversion rejects', async () => {
    // Prepare
    const reported: { record: SinkRecord; error: Error }[] = [];
    const box = container();
    const flaky = new FlakyConverter(1, {
      async: true,
      error: () => new DataError('Schema being registered is incompatible'),
    });
    registerFlakyConverter(box.plugins, flaky);
    const config = mirrorConfig({ 'value.converter': 'test.FlakyConverter' });
    const { task, kafka } = await startedTask(config, box, reported);
    const record = (offset: number) =>
      sinkRecord(0, offset, { valueSchema: Schemas.STRING, value: `v${offset}` });

    // Act
    await deliver(task, [record(0), record(1), record(2)]);

    // Assess
    expect(reported.map((r) => [r.record.kafkaOffset, r.error.message])).toEqual([
      [0, 'Schema being registered is incompatible'],
    ]);
    expect(kafka.committed('orders.replica', 0).map((r) => text(r.value))).toEqual(['v1', 'v2']);
  });

  it('throws the converter’s error when there is no errant record reporter', async () => {
    // Prepare
    const { task } = await startedTask(mirrorConfig({ 'value.converter': BYTES }));

    // Act
    const put = task.put([sinkRecord(0, 0, { valueSchema: Schemas.STRING, value: 'text' })]);

    // Assess
    await expect(put).rejects.toBeInstanceOf(DataError);
  });
});
