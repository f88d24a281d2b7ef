import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { InProcessSourceInvoker } from '../../../local/dispatch/in-process-invoker.js';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import { MemorySinkMappings } from '../../../shared/adapters/memory/memory-sink-mappings.js';
import type { Engine } from '../../../shared/engine/engine.js';
import { systemClock } from '../../../shared/ports/clock.js';
import { silentLogger } from '../../../shared/ports/logger.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import type { SourceRunOutcome } from '../../../shared/runtime/source/source-task-runner.js';
import { TASK_PARTITIONS_KEY } from '../../../shared/runtime/task/task-split.js';
import { testEngine } from '../../support/engine.js';
import { checkDelivery } from '../../support/eos-checker.js';
import { testPlugins } from '../../support/plugin-modules.js';
import {
  SEQUENCE_CONVERTERS,
  SEQUENCE_SOURCE_CLASS,
  sequenceSourceDescriptor,
} from '../../support/sequence-source.js';
import { createTopics, testDynamo, testKafka, uniqueName } from '../../support/services.js';
import { testSinkDescriptor } from '../../support/test-sink.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('enumerator (real broker + dynalite)', () => {
  let factory: KafkaJsClientFactory;
  let store: StateStore;
  const engines: { close(): Promise<void> }[] = [];
  const outcomes: SourceRunOutcome[] = [];

  beforeAll(async () => {
    const client = testDynamo();
    const tableName = uniqueName('state');
    await ensureTable(client, tableName);
    store = createDynamoDbStateStore({ client, tableName, clock: systemClock });
    factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
  });

  afterAll(async () => {
    for (const built of engines) await built.close();
    await factory.close();
  });

  /** An enumerator of an engine of its own (as another container has) over the shared store. */
  async function enumerator(mappings = new MemorySinkMappings(), budgetMs = 2_500) {
    let engine: Engine | undefined;
    const invoker = new InProcessSourceInvoker(
      (producers) => ({
        source: (engine as Engine).sourceWith(producers),
        loggers: (engine as Engine).loggers,
      }),
      () => factory,
      {
        budgetMs,
        logger: silentLogger,
        onResult: (_, result) => outcomes.push(result.outcome),
      },
    );
    const built = await testEngine({
      store,
      kafka: factory,
      pluginModules: testPlugins(sequenceSourceDescriptor, testSinkDescriptor),
      invoker,
      mappings,
      settings: { source: { maxIdleMs: 400, idlePollMs: 20, assignmentCheckMs: 100 } },
    });
    engines.push(built);
    engine = built.engine;
    return { run: engine.enumerator, invoker, mappings };
  }

  async function sequenceConnector(partitions: number, total: number, extra = {}) {
    const name = uniqueName('enum');
    const topic = `${name}-out`;
    const admin = testKafka().admin();
    await admin.connect();
    await createTopics(admin, [{ topic, numPartitions: 3 }]);
    await admin.disconnect();
    const config = {
      name,
      'connector.class': SEQUENCE_SOURCE_CLASS,
      ...SEQUENCE_CONVERTERS,
      'offsets.storage.topic': `${name}-offsets`,
      topic,
      partitions: Array.from({ length: partitions }, (_, i) => i).join(','),
      total: String(total),
      batch: '10',
      ...extra,
    };
    await store.configs.createConnector(name, config);
    return { name, topic, config };
  }

  const identify = (value: Buffer | null) => {
    const { p, seq } = JSON.parse(value?.toString() ?? '{}') as { p: number; seq: number };
    return { partition: String(p), seq };
  };

  async function delivered(topic: string, partitions: number, total: number) {
    return checkDelivery({
      kafka: testKafka(),
      topic,
      identify,
      expected: new Map(Array.from({ length: partitions }, (_, p) => [String(p), total])),
      timeoutMs: 30_000,
    });
  }

  /** Reconciles every `everyMs` until the committed offsets reach `total` everywhere. */
  async function runUntilDone(
    enumeratorRun: Engine['enumerator'],
    name: string,
    partitions: number,
    total: number,
    between: (round: number) => Promise<void> = async () => {},
    minRounds = 0,
    everyMs = 250,
  ) {
    const deadline = Date.now() + 100_000;
    for (let round = 0; Date.now() < deadline; round += 1) {
      await between(round);
      await enumeratorRun.reconcile(name);
      const offsets = await store.offsets.listSourceOffsets(name);
      const done = new Map<number, number>();
      for (const task of offsets) {
        for (const entry of task.committed?.offsets ?? []) {
          const p = Number(entry.partition.p);
          const seq = Number((entry.offset as { seq?: number } | null)?.seq ?? 0);
          done.set(p, Math.max(done.get(p) ?? 0, seq));
        }
      }
      const finished = done.size === partitions && [...done.values()].every((s) => s >= total);
      if (finished && round >= minRounds) return;
      await sleep(everyMs);
    }
    const statuses = await store.status.listTaskStatuses(name);
    throw new Error(
      `${name} did not finish in time; tasks ${JSON.stringify(statuses.map((t) => [t.state, t.trace?.slice(0, 300)]))}, last outcomes ${outcomes.slice(-12).join(',')}`,
    );
  }

  it('dispatches the tasks of a new source connector, which deliver every record exactly once', async () => {
    // Prepare
    const { run, invoker } = await enumerator();
    const { name, topic } = await sequenceConnector(4, 120, { 'tasks.max': '2' });
    // Act
    await runUntilDone(run, name, 4, 120);
    await invoker.drain();
    // Assess
    const set = await store.configs.getTaskConfigs(name);
    expect(set.tasks.map((t) => t.config.partitions)).toEqual(['0,2', '1,3']);
    const report = await delivered(topic, 4, 120);
    expect({ duplicates: report.duplicates, losses: report.losses }).toEqual({
      duplicates: 0,
      losses: 0,
    });
    const statuses = await store.status.listTaskStatuses(name);
    expect(statuses.map((s) => s.state)).toEqual(['RUNNING', 'RUNNING']);
    expect((await store.status.getConnectorStatus(name))?.state).toBe('RUNNING');
  });

  it('follows pause, resume and stop of a source connector in dispatch and statuses, with no gap or duplicate', async () => {
    // Prepare
    const { run, invoker } = await enumerator();
    const { name, topic } = await sequenceConnector(2, 150, {
      'tasks.max': '2',
      'poll.delay.ms': '20',
    });
    await run.reconcile(name);
    await sleep(300);
    // Act
    await store.configs.setTargetState(name, 'PAUSED');
    const paused = await run.reconcile(name);
    await invoker.drain();
    const pausedStates = (await store.status.listTaskStatuses(name)).map((s) => s.state);
    const atPause = await store.offsets.listSourceOffsets(name);
    await sleep(300);
    const stillPaused = await store.offsets.listSourceOffsets(name);
    await store.configs.setTargetState(name, 'RUNNING');
    await runUntilDone(run, name, 2, 150);
    await invoker.drain();
    await store.configs.setTargetState(name, 'STOPPED');
    const stopped = await run.reconcile(name);
    // Assess
    expect(paused.dispatched).toEqual([]);
    expect(pausedStates).toEqual(['PAUSED', 'PAUSED']);
    expect(stillPaused).toEqual(atPause);
    expect(stopped.state).toBe('STOPPED');
    expect((await store.configs.getTaskConfigs(name)).tasks).toEqual([]);
    expect(await store.status.listTaskStatuses(name)).toEqual([]);
    const report = await delivered(topic, 2, 150);
    expect({ duplicates: report.duplicates, losses: report.losses }).toEqual({
      duplicates: 0,
      losses: 0,
    });
  });

  it('follows a sink subscription: partitions added and a new matching topic are discovered, mappings follow the target state', async () => {
    // Prepare
    const { run, mappings } = await enumerator();
    const prefix = uniqueName('ev');
    const admin = testKafka().admin();
    await admin.connect();
    await createTopics(admin, [{ topic: `${prefix}.a`, numPartitions: 2 }]);
    const name = uniqueName('sink');
    await store.configs.createConnector(name, {
      name,
      'connector.class': testSinkDescriptor.className,
      'tasks.max': '2',
      'topics.regex': `${prefix}\\..*`,
      'partition.discovery.interval.ms': '1',
    });
    const partitionsOf = async () =>
      (await store.configs.getTaskConfigs(name)).tasks
        .flatMap((t) => (t.config[TASK_PARTITIONS_KEY] ?? '').split(','))
        .filter((id) => id.length > 0)
        .sort();
    // Act
    await run.reconcile(name);
    const first = await partitionsOf();
    await admin.createPartitions({ topicPartitions: [{ topic: `${prefix}.a`, count: 3 }] });
    await createTopics(admin, [{ topic: `${prefix}.b`, numPartitions: 1 }]);
    await admin.disconnect();
    await sleep(5);
    await run.reconcile(name);
    const second = await partitionsOf();
    const topics = (await mappings.list(name)).map((m) => [m.topic, m.enabled]);
    await store.configs.setTargetState(name, 'PAUSED');
    await run.reconcile(name);
    const paused = (await mappings.list(name)).map((m) => m.enabled);
    await store.configs.deleteConnector(name);
    await run.reconcileAll();
    // Assess
    expect(first).toEqual([`${prefix}.a-0`, `${prefix}.a-1`]);
    expect(second).toEqual([`${prefix}.a-0`, `${prefix}.a-1`, `${prefix}.a-2`, `${prefix}.b-0`]);
    expect(topics).toEqual([
      [`${prefix}.a`, true],
      [`${prefix}.b`, true],
    ]);
    expect(paused).toEqual([false, false]);
    expect(await mappings.list(name)).toEqual([]);
  });

  it('converges when two enumerator runs reconcile at the same time', async () => {
    // Prepare
    const mappings = new MemorySinkMappings();
    const a = await enumerator(mappings);
    const b = await enumerator(mappings);
    const topic = uniqueName('orders');
    const admin = testKafka().admin();
    await admin.connect();
    await createTopics(admin, [{ topic, numPartitions: 6 }]);
    await admin.disconnect();
    const name = uniqueName('sink');
    await store.configs.createConnector(name, {
      name,
      'connector.class': testSinkDescriptor.className,
      'tasks.max': '4',
      topics: topic,
    });
    // Act
    await Promise.all([a.run.reconcile(name), b.run.reconcile(name)]);
    const raced = await store.configs.getTaskConfigs(name);
    await a.run.reconcile(name);
    // Assess
    expect(raced.version).toBe(1);
    expect(await store.configs.getTaskConfigs(name)).toEqual(raced);
    expect(await mappings.list(name)).toHaveLength(1);
    const owned = raced.tasks.map((t) => (t.config[TASK_PARTITIONS_KEY] ?? '').split(',').length);
    expect(owned.sort()).toEqual([1, 1, 2, 2]);
  });

  it('reconfigures tasks.max 3 -> 5 -> 1 -> 3 while producing, fencing older generations: no duplicate, no gap', async () => {
    // Prepare
    const { run, invoker } = await enumerator();
    const total = 200;
    const { name, topic, config } = await sequenceConnector(6, total, {
      'tasks.max': '3',
      'poll.delay.ms': '20',
    });
    const steps = new Map([
      [2, '5'],
      [4, '1'],
      [6, '3'],
    ]);
    const seenTaskCounts: number[] = [];
    // Act
    await runUntilDone(
      run,
      name,
      6,
      total,
      async (round) => {
        const max = steps.get(round);
        if (max === undefined) return;
        const record = await store.configs.getConnector(name);
        await store.configs.updateConnector(
          name,
          { ...config, 'tasks.max': max },
          record?.version ?? 0,
        );
        seenTaskCounts.push(Number(max));
      },
      12,
    );
    await invoker.drain();
    // Assess
    expect(seenTaskCounts).toEqual([5, 1, 3]);
    // Older generations were running when they were replaced, and were fenced.
    expect(outcomes).toContain('fenced');
    expect((await store.configs.getTaskConfigs(name)).tasks).toHaveLength(3);
    const report = await delivered(topic, 6, total);
    expect({
      duplicates: report.duplicates,
      losses: report.losses,
      records: report.records,
    }).toEqual({
      duplicates: 0,
      losses: 0,
      records: 6 * total,
    });
  }, 120_000);
});
