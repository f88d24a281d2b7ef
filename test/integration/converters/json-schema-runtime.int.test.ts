/**
 * The JsonSchemaConverter through the runtime (real broker, dynalite, the project's registry): a
 * source writes JSON Schema records and a sink reads them back; with `use.latest.version` a
 * user's stricter schema and `json.fail.invalid.schema`, the payloads that fail validation go
 * where `errors.tolerance` says (the DLQ with the validator's words, or a failed task); a record
 * whose schema id the registry does not know is dead-lettered by the sink.
 */
import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import { parseEsmEvent, toEsmEvent } from '../../../shared/adapters/lambda/esm-event.js';
import type { SourceConnector } from '../../../shared/connect/source.js';
import type { Struct } from '../../../shared/connect/struct.js';
import { JSON_SCHEMA_CONVERTER } from '../../../shared/plugins/converters/descriptors.js';
import { unframe } from '../../../shared/plugins/converters/schema-registry/wire-format.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { runSinkInvocation } from '../../../shared/runtime/sink/sink-task-runner.js';
import { runSourceInvocation } from '../../../shared/runtime/source/source-task-runner.js';
import { TASK_PARTITIONS_KEY } from '../../../shared/runtime/task/task-split.js';
import { testEngine } from '../../support/engine.js';
import { ORDER_SOURCE_CLASS, orderSourceDescriptor } from '../../support/order-source.js';
import { testPlugins } from '../../support/plugin-modules.js';
import {
  RECORDING_SINK_CLASS,
  RECORDING_SYSTEM_CONFIG,
  recordingSinkDescriptor,
  recordingSystem,
} from '../../support/recording-sink.js';
import { testDynamo, testKafka, uniqueName } from '../../support/services.js';
import { createTestTopic, readTopicRecords } from '../../support/topic-reader.js';

const registryUrl = () => inject('schemaRegistryUrl');

const text = (bytes: Uint8Array | Buffer | null | undefined) =>
  bytes === null || bytes === undefined ? null : new TextDecoder().decode(bytes);

const DLQ = (topic: string) => ({
  'errors.tolerance': 'all',
  'errors.deadletterqueue.topic.name': `${topic}-dlq`,
  'errors.deadletterqueue.topic.replication.factor': '1',
  'errors.deadletterqueue.context.headers.enable': 'true',
});

describe('JsonSchemaConverter through the runtime (real broker, dynalite, registry)', () => {
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

  const container = () =>
    testEngine({
      store,
      kafka: factory,
      pluginModules: testPlugins(orderSourceDescriptor, recordingSinkDescriptor),
      settings: { source: { maxIdleMs: 300, idlePollMs: 50 } },
    });

  /** Runs the order source (`total` v1 orders to `topic`) for one invocation. */
  async function runOrderSource(topic: string, total: number, extra: Record<string, string> = {}) {
    const name = uniqueName('orders');
    const config = {
      name,
      'connector.class': ORDER_SOURCE_CLASS,
      topic,
      shape: 'v1',
      total: String(total),
      'key.converter': JSON_SCHEMA_CONVERTER,
      'key.converter.schema.registry.url': registryUrl(),
      'value.converter': 'json-schema',
      'value.converter.schema.registry.url': registryUrl(),
      ...extra,
    };
    await store.configs.createConnector(name, config);
    const { engine, close } = await container();
    try {
      const connector = engine.plugins
        .resolve(ORDER_SOURCE_CLASS, 'source')
        .create() as SourceConnector;
      await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
      const set = await store.configs.putTaskConfigs(name, await connector.taskConfigs(1), 0);
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

  /** Reads `count` records of `topic` with a recording sink through JsonSchemaConverters. */
  async function readWithSink(topic: string, count: number, extra: Record<string, string> = {}) {
    const records = await readTopicRecords(topic, count);
    const name = uniqueName('sink');
    const system = uniqueName('system');
    const config = {
      name,
      'connector.class': RECORDING_SINK_CLASS,
      topics: topic,
      'key.converter': 'JsonSchemaConverter',
      'key.converter.schema.registry.url': registryUrl(),
      'value.converter': JSON_SCHEMA_CONVERTER,
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

  it('writes JSON Schema from a source and reads the same records back in a sink', async () => {
    const topic = uniqueName('orders');
    await createTestTopic(topic, 1);

    const run = await runOrderSource(topic, 5);
    const { summary, records, committed } = await readWithSink(topic, 5);

    expect(run.outcome).toBe('completed');
    expect(summary).toMatchObject({ written: 5 });
    expect(new Set(records.map((r) => unframe(r.value as Uint8Array).schemaId)).size).toBe(1);
    expect(committed.map((r) => (r.key as Struct).get('id'))).toEqual([1, 2, 3, 4, 5]);
    expect(committed.map((r) => (r.value as Struct).get('customer'))).toEqual(
      [1, 2, 3, 4, 5].map((seq) => `customer-${seq % 7}`),
    );
    expect(committed[0]?.valueSchema).toMatchObject({ name: 'com.example.Order', version: 1 });
  });

  it('sends payloads that fail the latest schema to the DLQ under errors.tolerance=all, and fails the task under none', async () => {
    const topic = uniqueName('orders');
    await createTestTopic(topic, 1);
    // A user's schema for the topic: qty at most 2 (the orders' qty is seq % 5).
    const strict = {
      type: 'object',
      title: 'com.example.Order',
      properties: { qty: { type: 'integer', maximum: 2 } },
    };
    const registered = await fetch(`${registryUrl()}/subjects/${topic}-value/versions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ schemaType: 'JSON', schema: JSON.stringify(strict) }),
    });
    expect(registered.status).toBe(200);
    const latest = {
      'value.converter.auto.register.schemas': 'false',
      'value.converter.use.latest.version': 'true',
      'value.converter.latest.compatibility.strict': 'false',
      'value.converter.json.fail.invalid.schema': 'true',
    };

    const tolerated = await runOrderSource(topic, 5, { ...latest, ...DLQ(topic) });
    const failed = await runOrderSource(topic, 5, latest);
    const dead = await readTopicRecords(`${topic}-dlq`, 2);
    const { committed } = await readWithSink(topic, 3);

    expect(tolerated.outcome).toBe('completed');
    expect(failed.outcome).toBe('failed');
    expect(failed.error?.message).toMatch(/Tolerance exceeded/);
    expect(dead).toHaveLength(2);
    const headers = new Map(dead[0]?.headers.map((h) => [h.key, text(h.value)]));
    expect(headers.get('__connect.errors.stage')).toBe('VALUE_CONVERTER');
    expect(headers.get('__connect.errors.exception.message')).toMatch(
      /^Converting Kafka Connect data to byte\[\] failed .*: Validation error in JSON: \$\/qty must be <= 2/,
    );
    // What passed was written with the user's schema, and reads back with it.
    expect(committed.map((r) => (r.value as Struct).get('qty'))).toEqual([1, 2, 0]);
    expect(committed[0]?.valueSchema?.fields.map((f) => f.name)).toEqual(['qty']);
  });

  it('dead-letters a record whose schema id the registry does not know, with its bytes as consumed', async () => {
    const topic = uniqueName('orders');
    await createTestTopic(topic, 1);
    await runOrderSource(topic, 1);
    const unknownId = new Uint8Array([0, 0x7f, 0xff, 0xff, 0xf0, 0x7b, 0x7d]);
    const producer = testKafka().producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: null, value: Buffer.from(unknownId) }] });
    await producer.disconnect();

    const { summary, committed } = await readWithSink(topic, 2, DLQ(topic));
    const [dead] = await readTopicRecords(`${topic}-dlq`, 1);

    expect(summary).toMatchObject({ written: 1, dlq: 1 });
    expect(committed).toHaveLength(1);
    expect(new Uint8Array(dead?.value as Uint8Array)).toEqual(unknownId);
    const headers = new Map(dead?.headers.map((h) => [h.key, text(h.value)]));
    expect(headers.get('__connect.errors.stage')).toBe('VALUE_CONVERTER');
    expect(headers.get('__connect.errors.exception.message')).toMatch(/error code 40403/);
  });
});
