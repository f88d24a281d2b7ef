import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import {
  type EsmSourceRecord,
  parseEsmEvent,
  toEsmEvent,
} from '../../../shared/adapters/lambda/esm-event.js';
import { DEFAULT_ENGINE_SETTINGS } from '../../../shared/engine/engine.js';
import { KAFKA_SINK_CLASS } from '../../../shared/plugins/connectors/kafka-sink/descriptor.js';
import { systemClock } from '../../../shared/ports/clock.js';
import type { KafkaAdminPort } from '../../../shared/ports/kafka.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { runSinkInvocation } from '../../../shared/runtime/sink/sink-task-runner.js';
import { runSourceInvocation } from '../../../shared/runtime/source/source-task-runner.js';
import { transactionalIdOf } from '../../../shared/runtime/task/source-transaction-fate.js';
import { TASK_PARTITIONS_KEY } from '../../../shared/runtime/task/task-split.js';
import { testEngine } from '../../support/engine.js';
import { type FreshBroker, startFreshBroker } from '../../support/own-broker.js';
import { testPlugins } from '../../support/plugin-modules.js';
import {
  SEQUENCE_CONVERTERS,
  SEQUENCE_SOURCE_CLASS,
  sequenceSourceDescriptor,
} from '../../support/sequence-source.js';
import { testDynamo, uniqueName } from '../../support/services.js';
import {
  COORDINATOR_LOAD_IN_PROGRESS,
  COORDINATOR_NOT_AVAILABLE,
  CoordinatorShim,
  type CoordinatorStep,
  coordinatorAnswerLog,
  NOT_COORDINATOR,
} from './coordinator-answers.js';

const BYTES = 'org.apache.kafka.connect.converters.ByteArrayConverter';
const PREFIX = DEFAULT_ENGINE_SETTINGS.transactionalIdPrefix;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const encoder = new TextEncoder();

/** Every coordinator answer, once each, for a request the coordinator did not act on. */
const EACH_ANSWER = [NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE];

/**
 * A coordinator that is loading (a fresh broker's `__transaction_state` and
 * `__consumer_offsets` partitions) or has moved answers COORDINATOR_LOAD_IN_PROGRESS,
 * COORDINATOR_NOT_AVAILABLE or NOT_COORDINATOR; the runtime waits for it inside the invocation,
 * in the same transaction, as the Java producer does (docs/adr/0004).
 */
describe('coordinator loading and movement (a fresh broker of its own + dynalite)', () => {
  let broker: FreshBroker | undefined;
  const answers = coordinatorAnswerLog();
  let shim: CoordinatorShim | undefined;
  let kafka: Kafka;
  let factory: KafkaJsClientFactory;
  let admin: KafkaAdminPort;
  let store: StateStore;

  beforeAll(async () => {
    const client = testDynamo();
    const tableName = uniqueName('state');
    await ensureTable(client, tableName);
    store = createDynamoDbStateStore({ client, tableName, clock: systemClock });
    broker = await startFreshBroker();
    factory = new KafkaJsClientFactory({
      brokers: [broker.address],
      logCreator: answers.logCreator,
    });
    admin = factory.admin();
    kafka = new Kafka({ brokers: [broker.address], logLevel: logLevel.NOTHING });
  }, 240_000);

  afterAll(async () => {
    shim?.uninstall();
    await admin?.close();
    await factory?.close();
    await broker?.stop();
  }, 60_000);

  /** A sequence source connector writing `2 × 20` records, 10 per poll (one transaction each). */
  async function sourceConnector() {
    const name = uniqueName('seq');
    const topic = `${name}-out`;
    const config = {
      name,
      'connector.class': SEQUENCE_SOURCE_CLASS,
      ...SEQUENCE_CONVERTERS,
      'offsets.storage.topic': `${name}-offsets`,
      topic,
      partitions: '0,1',
      total: '20',
      batch: '10',
    };
    await admin.createTopics([{ topic, partitions: 2 }]);
    await store.configs.createConnector(name, config);
    const set = await store.configs.putTaskConfigs(name, [config], 0);
    return { name, topic, offsetsTopic: `${name}-offsets`, generation: set.tasks[0]?.generation };
  }

  /** One source invocation in a cold container (an engine of its own over the fresh broker). */
  async function runSource(name: string, generation: number | undefined) {
    const { engine, close } = await testEngine({
      store,
      kafka: factory,
      pluginModules: testPlugins(sequenceSourceDescriptor),
      settings: { source: { maxIdleMs: 300, idlePollMs: 20 } },
    });
    try {
      return await runSourceInvocation(engine.source, {
        connector: name,
        task: 0,
        generation: generation ?? 0,
        owner: uniqueName('inv'),
        workerId: 'test-worker',
        deadline: Date.now() + 60_000,
      });
    } finally {
      await close();
    }
  }

  /** A Kafka sink connector mirroring `input` (one partition) to `<input>.replica`. */
  async function sinkConnector(input: string) {
    const name = uniqueName('mirror');
    const config = {
      name,
      'connector.class': KAFKA_SINK_CLASS,
      topics: input,
      'key.converter': BYTES,
      'value.converter': BYTES,
      'header.converter': BYTES,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Connect's ${topic} placeholder
      'topic.rename.format': '${topic}.replica',
    };
    await store.configs.createConnector(name, config);
    await store.configs.putTaskConfigs(
      name,
      [{ ...config, [TASK_PARTITIONS_KEY]: `${input}-0` }],
      0,
    );
    return name;
  }

  /** The sink-task function's invocation for one mapping batch, in a cold container. */
  async function deliver(connector: string, batch: readonly EsmSourceRecord[]) {
    const { engine, close } = await testEngine({ store, kafka: factory });
    try {
      return await runSinkInvocation(engine.sink, {
        connector,
        records: () =>
          parseEsmEvent(
            JSON.parse(JSON.stringify(toEsmEvent(batch, { eventSource: 'aws:kafka' }))),
          ),
        deadline: Date.now() + 60_000,
        workerId: 'test-worker',
      });
    } finally {
      await close();
    }
  }

  /**
   * Writes `count` records to a new one-partition topic without a transaction or a producer id
   * (no coordinator involved) and returns them as the mapping would deliver them.
   */
  async function sinkInput(count: number): Promise<{ topic: string; records: EsmSourceRecord[] }> {
    const topic = uniqueName('orders');
    await admin.createTopics([{ topic, partitions: 1 }]);
    const producer = kafka.producer();
    await producer.connect();
    const timestamp = 1_700_000_000_000;
    const values = Array.from({ length: count }, (_, i) => `order-${i}`);
    const [sent] = await producer.send({
      topic,
      acks: -1,
      messages: values.map((value, i) => ({ value, timestamp: String(timestamp + i) })),
    });
    await producer.disconnect();
    const base = Number(sent?.baseOffset ?? Number.NaN);
    const records = values.map((value, i) => ({
      topic,
      partition: 0,
      offset: base + i,
      timestamp: timestamp + i,
      key: null,
      value: encoder.encode(value),
      headers: [],
    }));
    return { topic, records };
  }

  /** The values of `topic`, read_committed from the beginning (once `count` arrived, 500 ms more). */
  async function readCommitted(topic: string, count: number): Promise<string[]> {
    const consumer = kafka.consumer({ groupId: uniqueName('read'), maxWaitTimeInMs: 100 });
    const values: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        values.push(message.value?.toString() ?? '');
      },
    });
    const deadline = Date.now() + 30_000;
    while (values.length < count && Date.now() < deadline) await sleep(100);
    await sleep(500);
    await consumer.disconnect();
    return values;
  }

  const sequenceValues = (partitions: number[], total: number) =>
    partitions.flatMap((p) =>
      Array.from({ length: total }, (_, i) => JSON.stringify({ p, seq: i + 1 })),
    );

  /** Runs one source invocation and checks it committed everything, exactly once. */
  async function expectSourceCommitted(
    run: Awaited<ReturnType<typeof runSource>>,
    connector: {
      name: string;
      topic: string;
      offsetsTopic: string;
    },
  ) {
    expect(run.error).toBeUndefined();
    expect(run).toMatchObject({ outcome: 'completed', records: 40, transactions: 4 });
    const stored = await store.offsets.getSourceOffsets({ connector: connector.name, task: 0 });
    expect(stored.committed?.seq).toBe(4);
    expect(stored.pending).toBeUndefined();
    expect(
      [...(stored.committed?.offsets ?? [])]
        .sort((a, b) => Number(a.partition.p) - Number(b.partition.p))
        .map((o) => [o.partition, o.offset]),
    ).toEqual([
      [{ p: 0 }, { seq: 20 }],
      [{ p: 1 }, { seq: 20 }],
    ]);
    // No group offsets: a source transaction commits no marker.
    const group = transactionalIdOf(PREFIX, connector.name, 0);
    expect(await admin.committedOffsets(group, connector.offsetsTopic)).toEqual([]);
    expect((await readCommitted(connector.topic, 40)).sort()).toEqual(
      sequenceValues([0, 1], 20).sort(),
    );
  }

  /** Checks a sink invocation wrote `input` once to the replica and moved the group past it. */
  async function expectSinkCommitted(
    run: Awaited<ReturnType<typeof deliver>>,
    name: string,
    input: { topic: string; records: EsmSourceRecord[] },
  ) {
    const count = input.records.length;
    expect(run).toMatchObject({ records: count, written: count, skipped: 0, dlq: 0 });
    expect(await admin.committedOffsets(`connect-${name}`, input.topic)).toEqual([
      { topic: input.topic, partition: 0, offset: (input.records[0]?.offset ?? 0) + count },
    ]);
    expect(await readCommitted(`${input.topic}.replica`, count)).toEqual(
      input.records.map((r) => new TextDecoder().decode(r.value ?? new Uint8Array())),
    );
  }

  it('commits the first source and Kafka sink transactions on a broker that just started', async ({
    annotate,
  }) => {
    // Prepare: topics and the sink's input, none of which involves a coordinator.
    const source = await sourceConnector();
    const input = await sinkInput(30);
    const sink = await sinkConnector(input.topic);

    // Act: the first source invocation and the first sink batch, at once.
    const [sourceRun, sinkRun] = await Promise.all([
      runSource(source.name, source.generation),
      deliver(sink, input.records),
    ]);

    const seen = Object.fromEntries(answers.counts);

    // Assess
    await expectSourceCommitted(sourceRun, source);
    await expectSinkCommitted(sinkRun, sink, input);
    await annotate(`coordinator answers the fresh broker gave: ${JSON.stringify(seen)}`);
    // A fresh broker creates __transaction_state and __consumer_offsets on the first
    // FindCoordinator of each kind, answering COORDINATOR_NOT_AVAILABLE until they exist.
    expect(Object.keys(seen).length, JSON.stringify(seen)).toBeGreaterThan(0);
  });

  it('retries each coordinator request answered loading, not available or not the coordinator, in the same transaction', async () => {
    // Prepare: every coordinator request of the task answers each code once before it succeeds.
    const address = broker?.address ?? '';
    shim = new CoordinatorShim(address);
    shim.install();
    // A source transaction has no group step (no commit marker); a sink's commits its offsets.
    const sourceSteps: CoordinatorStep[] = ['InitProducerId', 'AddPartitionsToTxn', 'EndTxn'];
    const sinkSteps: CoordinatorStep[] = [...sourceSteps, 'AddOffsetsToTxn', 'TxnOffsetCommit'];
    const plan = (steps: readonly CoordinatorStep[], groups: boolean) =>
      shim?.plan({
        'FindCoordinator(TRANSACTION)': [COORDINATOR_NOT_AVAILABLE, COORDINATOR_NOT_AVAILABLE],
        ...(groups
          ? {
              'FindCoordinator(GROUP)': [COORDINATOR_NOT_AVAILABLE, COORDINATOR_NOT_AVAILABLE],
              OffsetFetch: EACH_ANSWER,
            }
          : {}),
        ...Object.fromEntries(steps.map((step) => [step, EACH_ANSWER])),
      });
    const source = await sourceConnector();
    const input = await sinkInput(25);
    const sink = await sinkConnector(input.topic);

    // Act (source)
    plan(sourceSteps, false);
    const sourceRun = await runSource(source.name, source.generation);
    const sourcePending = shim.pending();
    const sourceInjected = Object.fromEntries(shim.injected);
    shim.injected.clear();
    // Act (sink)
    plan(sinkSteps, true);
    const sinkRun = await deliver(sink, input.records);
    const sinkPending = shim.pending();
    const sinkInjected = Object.fromEntries(shim.injected);
    shim.uninstall();

    // Assess: every planned answer was given, and nothing failed.
    const each = (steps: readonly CoordinatorStep[]) =>
      Object.fromEntries(steps.map((step) => [step, 3]));
    expect(sourcePending).toEqual({});
    expect(sourceInjected).toEqual({ ...each(sourceSteps), 'FindCoordinator(TRANSACTION)': 2 });
    expect(sinkPending).toEqual({});
    expect(sinkInjected).toEqual({
      ...each(sinkSteps),
      OffsetFetch: 3,
      'FindCoordinator(TRANSACTION)': 2,
      'FindCoordinator(GROUP)': 2,
    });
    await expectSourceCommitted(sourceRun, source);
    await expectSinkCommitted(sinkRun, sink, input);
  });
});
