/**
 * The AvroConverter through the runtime: a source task writes Avro records through the exactly-
 * once source runner (real broker, dynalite, the project's registry), a sink task reads them back
 * through the sink runner; schema evolution and a registry that is down go through
 * `errors.retry.*`, `errors.tolerance` and the dead letter queue as Connect's converter errors do.
 * Each container's registry client counts its requests.
 */
import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import { parseEsmEvent, toEsmEvent } from '../../../shared/adapters/lambda/esm-event.js';
import type { AnyPluginDescriptor } from '../../../shared/connect/plugin.js';
import { valuesEqual } from '../../../shared/connect/schema.js';
import type { SourceConnector } from '../../../shared/connect/source.js';
import type { Struct } from '../../../shared/connect/struct.js';
import { AvroConverter } from '../../../shared/plugins/converters/avro/avro-converter.js';
import { AVRO_CONVERTER } from '../../../shared/plugins/converters/descriptors.js';
import { unframe } from '../../../shared/plugins/converters/schema-registry/wire-format.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { runSinkInvocation } from '../../../shared/runtime/sink/sink-task-runner.js';
import { runSourceInvocation } from '../../../shared/runtime/source/source-task-runner.js';
import { TASK_PARTITIONS_KEY } from '../../../shared/runtime/task/task-split.js';
import { testEngine } from '../../support/engine.js';
import {
  expectedOrder,
  ORDER_SOURCE_CLASS,
  type OrderShape,
  orderSourceDescriptor,
} from '../../support/order-source.js';
import { testPlugins } from '../../support/plugin-modules.js';
import {
  RECORDING_SINK_CLASS,
  RECORDING_SYSTEM_CONFIG,
  recordingSinkDescriptor,
  recordingSystem,
} from '../../support/recording-sink.js';
import { testDynamo, testKafka, uniqueName } from '../../support/services.js';
import { createTestTopic, readTopicRecords } from '../../support/topic-reader.js';
import { readWithJavaAvro } from './avro-java-reader.js';
import { countingRegistryClients, unreachableRegistryUrl } from './registry-support.js';

const registryUrl = () => inject('schemaRegistryUrl');

/** An AvroConverter plugin `className` whose registry client lists its requests. */
function countedAvro(className: string) {
  const { clients, requests } = countingRegistryClients(registryUrl);
  const descriptor: AnyPluginDescriptor = {
    className,
    aliases: [],
    type: 'converter',
    version: 'test',
    create: () => new AvroConverter(clients),
  };
  return { requests, descriptor };
}

const writerAvro = countedAvro('test.WriterAvroConverter');
const readerAvro = countedAvro('test.ReaderAvroConverter');

const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

const text = (bytes: Uint8Array | Buffer | null | undefined) =>
  bytes === null || bytes === undefined ? null : new TextDecoder().decode(bytes);

describe('AvroConverter through the runtime (real broker, dynalite, registry)', () => {
  let store: StateStore;
  let factory: KafkaJsClientFactory;

  beforeAll(async () => {
    const dynamo = testDynamo();
    const tableName = uniqueName('state');
    await ensureTable(dynamo, tableName);
    store = createDynamoDbStateStore({ client: dynamo, tableName });
    factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
  });

  afterAll(async () => {
    await factory.close();
  });

  /** An engine of its own (a container) with the test plugins. */
  const container = () =>
    testEngine({
      store,
      kafka: factory,
      pluginModules: testPlugins(
        orderSourceDescriptor,
        recordingSinkDescriptor,
        writerAvro.descriptor,
        readerAvro.descriptor,
      ),
      settings: { source: { maxIdleMs: 300, idlePollMs: 50 } },
    });

  /** Runs order source `shape` (`total` records to `topic`) for one invocation. */
  async function runOrderSource(
    topic: string,
    shape: OrderShape,
    total: number,
    extra: Record<string, string> = {},
  ) {
    const name = uniqueName(`orders-${shape}`);
    const config = {
      name,
      'connector.class': ORDER_SOURCE_CLASS,
      topic,
      shape,
      total: String(total),
      'key.converter': AVRO_CONVERTER,
      'key.converter.schema.registry.url': registryUrl(),
      'value.converter': 'test.WriterAvroConverter',
      'value.converter.schema.registry.url': registryUrl(),
      ...extra,
    };
    await store.configs.createConnector(name, config);
    const { engine, close } = await container();
    try {
      const connector = engine.plugins.resolve(ORDER_SOURCE_CLASS, 'source').create();
      await (connector as SourceConnector).start(config, {
        requestTaskReconfiguration: () => {},
        raiseError: () => {},
      });
      const taskConfigs = await (connector as SourceConnector).taskConfigs(1);
      const set = await store.configs.putTaskConfigs(name, taskConfigs, 0);
      return await runSourceInvocation(engine.source, {
        connector: name,
        task: 0,
        generation: set.tasks[0]?.generation ?? 0,
        owner: uniqueName('inv'),
        workerId: 'test',
        deadline: Date.now() + 60_000,
      });
    } finally {
      await close();
    }
  }

  /** Reads `count` records of `topic` with a recording sink whose values the reader converter reads. */
  async function readWithSink(topic: string, count: number, extra: Record<string, string> = {}) {
    const records = await readTopicRecords(topic, count);
    const name = uniqueName('sink');
    const system = uniqueName('system');
    const config = {
      name,
      'connector.class': RECORDING_SINK_CLASS,
      topics: topic,
      'key.converter': 'avro',
      'key.converter.schema.registry.url': registryUrl(),
      'value.converter': 'test.ReaderAvroConverter',
      'value.converter.schema.registry.url': registryUrl(),
      [RECORDING_SYSTEM_CONFIG]: system,
      ...extra,
    };
    await store.configs.createConnector(name, config);
    await store.configs.putTaskConfigs(
      name,
      [{ ...config, [TASK_PARTITIONS_KEY]: `${topic}-0` }],
      0,
    );
    const { engine, close } = await container();
    try {
      const summary = await runSinkInvocation(engine.sink, {
        connector: name,
        records: () =>
          parseEsmEvent(
            JSON.parse(JSON.stringify(toEsmEvent(records, { eventSource: 'aws:kafka' }))),
          ),
        deadline: Date.now() + 30_000,
        workerId: 'test',
      });
      return { summary, records, committed: recordingSystem(system).committed };
    } finally {
      await close();
    }
  }

  it('writes Avro from a source and reads the same records back in a sink, calling the registry once per schema', async () => {
    const topic = uniqueName('orders');
    await createTestTopic(topic, 1);
    writerAvro.requests.length = 0;
    readerAvro.requests.length = 0;

    const run = await runOrderSource(topic, 'v1', 30);
    const { summary, records, committed } = await readWithSink(topic, 30);

    expect(run.outcome).toBe('completed');
    expect(summary).toMatchObject({ written: 30 });
    const ids = new Set(records.map((r) => unframe(r.value as Uint8Array).schemaId));
    expect(ids.size).toBe(1);
    expect(writerAvro.requests).toEqual([`POST /subjects/${topic}-value/versions`]);
    expect(readerAvro.requests).toEqual([
      `GET /schemas/ids/${[...ids][0]}`,
      `POST /subjects/${topic}-value`,
    ]);
    const seqs = committed.map((r) => (r.key as Struct).get('id'));
    expect(seqs).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    const same = committed.map((r, i) => {
      const expected = expectedOrder('v1', i + 1);
      return expected.schema.fields.every((f) =>
        valuesEqual((r.value as Struct).get(f.name), expected.get(f.name)),
      );
    });
    expect(same.every(Boolean)).toBe(true);
    expect(committed[0]?.valueSchema?.name).toBe('com.example.Order');
    expect(committed[0]?.valueSchema?.version).toBe(1);
  });

  it('evolves the schema: a compatible change is a new version, an incompatible one goes to the DLQ with the registry’s message', async () => {
    const topic = uniqueName('orders');
    const dlq = `${topic}-dlq`;
    await createTestTopic(topic, 1);
    await runOrderSource(topic, 'v1', 2);
    const compatibility = await fetch(`${registryUrl()}/config/${topic}-value`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ compatibility: 'BACKWARD' }),
    });
    expect(compatibility.status).toBe(200);

    await runOrderSource(topic, 'v2', 2);
    const breaking = await runOrderSource(topic, 'breaking', 2, {
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': dlq,
      'errors.deadletterqueue.topic.replication.factor': '1',
      'errors.deadletterqueue.context.headers.enable': 'true',
    });
    const { committed } = await readWithSink(topic, 4);
    const dead = await readTopicRecords(dlq, 2);

    expect(breaking.outcome).toBe('completed');
    expect(committed.map((r) => r.valueSchema?.version)).toEqual([1, 1, 2, 2]);
    expect(committed.map((r) => (r.value as Struct).schema.field('coupon') !== null)).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(dead).toHaveLength(2);
    const headers = new Map(dead[0]?.headers.map((h) => [h.key, text(h.value)]));
    expect(headers.get('__connect.errors.stage')).toBe('VALUE_CONVERTER');
    expect(headers.get('__connect.errors.exception.message')).toMatch(
      new RegExp(`^Failed to serialize Avro data from topic ${topic}: .*error code 409`),
    );
  });

  it('retries while the registry is down, then follows errors.tolerance: the DLQ under all, a failed task under none', async () => {
    const topic = uniqueName('orders');
    const dlq = `${topic}-dlq`;
    await createTestTopic(topic, 1);
    const down = await unreachableRegistryUrl();
    const unreachable = {
      'key.converter': 'test.WriterAvroConverter',
      'key.converter.schema.registry.url': down,
      'value.converter.schema.registry.url': down,
      'errors.retry.timeout': '1000',
      'errors.retry.delay.max.ms': '200',
    };
    writerAvro.requests.length = 0;

    const tolerated = await runOrderSource(topic, 'v1', 2, {
      ...unreachable,
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': dlq,
      'errors.deadletterqueue.topic.replication.factor': '1',
      'errors.deadletterqueue.context.headers.enable': 'true',
    });
    const attempts = writerAvro.requests.length;
    const failed = await runOrderSource(topic, 'v1', 2, unreachable);
    const dead = await readTopicRecords(dlq, 2);

    expect(tolerated.outcome).toBe('completed');
    expect(failed.outcome).toBe('failed');
    expect(failed.error?.message).toMatch(/Tolerance exceeded/);
    expect(dead).toHaveLength(2);
    const headers = new Map(dead[0]?.headers.map((h) => [h.key, text(h.value)]));
    expect(headers.get('__connect.errors.stage')).toBe('KEY_CONVERTER');
    expect(headers.get('__connect.errors.exception.message')).toMatch(/ECONNREFUSED/);
    // Each record's key conversion was tried again within errors.retry.timeout.
    expect(attempts).toBeGreaterThanOrEqual(4);
  });

  it('dead-letters a record whose schema id the registry does not know, with its bytes as consumed', async () => {
    const topic = uniqueName('orders');
    const dlq = `${topic}-dlq`;
    await createTestTopic(topic, 1);
    await runOrderSource(topic, 'v1', 1);
    const unknownId = new Uint8Array([0, 0x7f, 0xff, 0xff, 0xf0, 2]);
    const producer = testKafka().producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: null, value: Buffer.from(unknownId) }] });
    await producer.disconnect();

    const { summary, committed } = await readWithSink(topic, 2, {
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': dlq,
      'errors.deadletterqueue.topic.replication.factor': '1',
      'errors.deadletterqueue.context.headers.enable': 'true',
    });
    const [dead] = await readTopicRecords(dlq, 1);

    expect(summary).toMatchObject({ written: 1, dlq: 1 });
    expect(committed).toHaveLength(1);
    expect(new Uint8Array(dead?.value as Uint8Array)).toEqual(unknownId);
    const headers = new Map(dead?.headers.map((h) => [h.key, text(h.value)]));
    expect(headers.get('__connect.errors.stage')).toBe('VALUE_CONVERTER');
    expect(headers.get('__connect.errors.exception.message')).toMatch(
      new RegExp(`^Failed to deserialize data for topic ${topic} to Avro: .*error code 40403`),
    );
  });

  it('writes records Apache Avro’s Java library reads with the registry’s schema', async () => {
    const topic = uniqueName('orders');
    await createTestTopic(topic, 1);
    await runOrderSource(topic, 'v2', 3);
    const records = await readTopicRecords(topic, 3);
    const payloads = records.map((r) => new Uint8Array(r.value as Uint8Array));

    const read = await readWithJavaAvro(registryUrl(), payloads);

    expect(read.map((r) => r.schemaId)).toEqual(payloads.map((p) => unframe(p).schemaId));
    // Java wrote back the very bytes it read: it decoded every field as we encoded it.
    expect(read.map((r) => r.hex)).toEqual(payloads.map((p) => hexOf(unframe(p).payload)));
    expect(read.map((r) => r.json)).toMatchObject([
      { id: 1, customer: 'customer-1', note: { string: 'note 1' }, coupon: null, qty: 1 },
      { id: 2, customer: 'customer-2', coupon: { string: 'C2' }, tags: ['even'] },
      { id: 3, note: null, attributes: { seq: 3 } },
    ]);
  });
});
