/**
 * The registry converters through the runtime (real broker, dynalite): the order source run for
 * one exactly-once source invocation, the topic read back by a recording sink through the sink
 * runner, each in a container (engine) of its own, and the scenarios every registry converter
 * shares (a record whose schema the registry does not know goes to the dead letter queue).
 * The converters are the test's: it passes their `key.converter*` / `value.converter*` keys.
 *
 * @example
 * const runtime = converterRuntime([writerDescriptor]);   // in a describe: hooks are added
 * await runtime.runOrderSource(topic, 5, { 'value.converter': 'glue-avro', ... });
 * const { committed } = await runtime.readWithSink(topic, 5, { 'value.converter': 'glue-avro', ... });
 */
import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { createDynamoDbStateStore } from '../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../shared/adapters/kafkajs/client.js';
import { parseEsmEvent, toEsmEvent } from '../../shared/adapters/lambda/esm-event.js';
import type { AnyPluginDescriptor } from '../../shared/connect/plugin.js';
import type { SourceConnector } from '../../shared/connect/source.js';
import type { StateStore } from '../../shared/ports/state-store.js';
import { runSinkInvocation } from '../../shared/runtime/sink/sink-task-runner.js';
import { runSourceInvocation } from '../../shared/runtime/source/source-task-runner.js';
import { TASK_PARTITIONS_KEY } from '../../shared/runtime/task/task-split.js';
import { testEngine } from './engine.js';
import { ORDER_SOURCE_CLASS, type OrderShape, orderSourceDescriptor } from './order-source.js';
import { testPlugins } from './plugin-modules.js';
import {
  RECORDING_SINK_CLASS,
  RECORDING_SYSTEM_CONFIG,
  recordingSinkDescriptor,
  recordingSystem,
} from './recording-sink.js';
import { testDynamo, testKafka, uniqueName } from './services.js';
import { createTestTopic, readTopicRecords } from './topic-reader.js';

/** The keys that send failed records of `topic` to `<topic>-dlq`, with context headers. */
export const DLQ = (topic: string): Record<string, string> => ({
  'errors.tolerance': 'all',
  'errors.deadletterqueue.topic.name': `${topic}-dlq`,
  'errors.deadletterqueue.topic.replication.factor': '1',
  'errors.deadletterqueue.context.headers.enable': 'true',
});

/** A header's value as text. */
export const headerText = (bytes: Uint8Array | Buffer | null | undefined) =>
  bytes === null || bytes === undefined ? null : new TextDecoder().decode(bytes);

export interface ConverterRuntime {
  /** Runs the order source (`total` orders of `shape` to `topic`) for one invocation. */
  runOrderSource(
    topic: string,
    total: number,
    config: Record<string, string>,
    shape?: OrderShape,
  ): ReturnType<typeof runSourceInvocation>;
  /**
   * Reads `count` records of `topic` with a recording sink configured with `config` (its
   * converters, its error handling): the sink runner's summary, the records consumed, and what
   * the sink committed. Rejects as the sink invocation does when its task fails.
   */
  readWithSink(
    topic: string,
    count: number,
    config: Record<string, string>,
  ): Promise<{
    summary: Awaited<ReturnType<typeof runSinkInvocation>>;
    records: Awaited<ReturnType<typeof readTopicRecords>>;
    committed: ReturnType<typeof recordingSystem>['committed'];
  }>;
}

/**
 * The runtime over a dynalite table and the test broker, with the order source, the recording
 * sink and `plugins` (e.g. converters that count their registry calls). Call it inside a
 * `describe`: it adds the hooks that make and close its clients.
 */
export function converterRuntime(plugins: readonly AnyPluginDescriptor[] = []): ConverterRuntime {
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
      pluginModules: testPlugins(orderSourceDescriptor, recordingSinkDescriptor, ...plugins),
      settings: { source: { maxIdleMs: 300, idlePollMs: 50 } },
    });

  return {
    async runOrderSource(topic, total, extra, shape = 'v1') {
      const name = uniqueName(`orders-${shape}`);
      const config = {
        name,
        'connector.class': ORDER_SOURCE_CLASS,
        topic,
        shape,
        total: String(total),
        ...extra,
      };
      await store.configs.createConnector(name, config);
      const { engine, close } = await container();
      try {
        const connector = engine.plugins
          .resolve(ORDER_SOURCE_CLASS, 'source')
          .create() as SourceConnector;
        await connector.start(config, {
          requestTaskReconfiguration: () => {},
          raiseError: () => {},
        });
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
    },

    async readWithSink(topic, count, extra) {
      const records = await readTopicRecords(topic, count);
      const name = uniqueName('sink');
      const system = uniqueName('system');
      const config = {
        name,
        'connector.class': RECORDING_SINK_CLASS,
        topics: topic,
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
    },
  };
}

/** What the unknown-schema scenario needs of a converter. */
export interface UnknownSchemaCase {
  /** The source's converter keys (they write one good record first). */
  readonly writer: Record<string, string>;
  /** The sink's converter keys. */
  readonly reader: Record<string, string>;
  /** A record value on the converter's wire format whose schema the registry does not know. */
  readonly unknown: Uint8Array;
  /** The error message the dead letter queue's header carries. */
  readonly message: RegExp;
}

/**
 * A sink reading a good record and one whose schema the registry does not know: under
 * `errors.tolerance=all` the good one is written and the other goes to the DLQ with its bytes as
 * consumed and the converter's error in the headers; under `none` the task fails.
 */
export async function expectUnknownSchemaDeadLettered(
  runtime: ConverterRuntime,
  scenario: UnknownSchemaCase,
): Promise<void> {
  const topic = uniqueName('orders');
  await createTestTopic(topic, 1);
  await runtime.runOrderSource(topic, 1, scenario.writer);
  const producer = testKafka().producer();
  await producer.connect();
  await producer.send({ topic, messages: [{ key: null, value: Buffer.from(scenario.unknown) }] });
  await producer.disconnect();

  const { summary, committed } = await runtime.readWithSink(topic, 2, {
    ...scenario.reader,
    ...DLQ(topic),
  });
  const [dead] = await readTopicRecords(`${topic}-dlq`, 1);
  const failed = runtime.readWithSink(topic, 2, scenario.reader);

  expect(summary).toMatchObject({ written: 1, dlq: 1 });
  expect(committed).toHaveLength(1);
  expect(new Uint8Array(dead?.value as Uint8Array)).toEqual(scenario.unknown);
  const headers = new Map(dead?.headers.map((h) => [h.key, headerText(h.value)]));
  expect(headers.get('__connect.errors.stage')).toBe('VALUE_CONVERTER');
  expect(headers.get('__connect.errors.exception.message')).toMatch(scenario.message);
  await expect(failed).rejects.toThrow(/Tolerance exceeded/);
}
