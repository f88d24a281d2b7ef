import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import { MemorySinkMappings } from '../../../shared/adapters/memory/memory-sink-mappings.js';
import type { Engine } from '../../../shared/engine/engine.js';
import { systemClock } from '../../../shared/ports/clock.js';
import type { TaskSourceOffsets } from '../../../shared/ports/offset-store.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { runSourceInvocation } from '../../../shared/runtime/source/source-task-runner.js';
import type { SourceCheckpoint } from '../../../shared/runtime/source/source-transaction.js';
import { testEngine } from '../../support/engine.js';
import { checkDelivery } from '../../support/eos-checker.js';
import { testPlugins } from '../../support/plugin-modules.js';
import {
  SEQUENCE_CONVERTERS,
  SEQUENCE_SOURCE_CLASS,
  sequenceSourceDescriptor,
} from '../../support/sequence-source.js';
import { testDynamo, testKafka, uniqueName } from '../../support/services.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Per source partition (`p`), the seq of the task's committed offsets. */
function committedSeqs(offsets: TaskSourceOffsets): Map<string, number> {
  return new Map(
    (offsets.committed?.offsets ?? []).map((entry) => [
      String(entry.partition.p),
      Number((entry.offset as { seq?: number } | null)?.seq ?? 0),
    ]),
  );
}

/**
 * A stop (or a reconfiguration) takes a source task from a running invocation: the enumerator's
 * fencing round revokes the lease and initialises the task's transactional id, then settles
 * what the invocation left pending, so the stored offsets are those committed to Kafka.
 */
describe('fencing round settles what a stopped source task left pending (real broker + dynalite)', () => {
  let factory: KafkaJsClientFactory;
  let store: StateStore;
  /** The enumerator's container (its fencing round stops the task). */
  let enumerator: Engine['enumerator'];
  const engines: { close(): Promise<void> }[] = [];

  /**
   * An engine of its own (another container) over the shared store and Kafka clients; its source
   * invocations pass each protocol step to `checkpoint`.
   */
  async function container(
    checkpoint: (point: SourceCheckpoint) => Promise<void> = async () => {},
    maxRecordsPerInvocation?: number,
  ): Promise<Engine> {
    const built = await testEngine({
      store,
      kafka: factory,
      pluginModules: testPlugins(sequenceSourceDescriptor),
      invoker: {
        invoke: async () => {
          throw new Error('a stopped connector dispatches nothing');
        },
      },
      mappings: new MemorySinkMappings(),
      checkpoint,
      // An invocation that runs until fenced: it never looks at the target state by itself.
      settings: {
        source: {
          assignmentCheckMs: 600_000,
          ...(maxRecordsPerInvocation === undefined ? {} : { maxRecordsPerInvocation }),
        },
      },
    });
    engines.push(built);
    return built.engine;
  }

  beforeAll(async () => {
    const client = testDynamo();
    const tableName = uniqueName('state');
    await ensureTable(client, tableName);
    store = createDynamoDbStateStore({ client, tableName, clock: systemClock });
    factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
    enumerator = (await container()).enumerator;
  });

  afterAll(async () => {
    for (const built of engines) await built.close();
    await factory.close();
  });

  /** A RUNNING sequence source with one task over source partitions 0 and 1. */
  async function sequenceConnector(extra: Record<string, string> = {}) {
    const name = uniqueName('stop');
    const topic = `${name}-out`;
    const admin = factory.admin();
    await admin.createTopics([{ topic, partitions: 2 }]);
    await admin.close();
    const config = {
      name,
      'connector.class': SEQUENCE_SOURCE_CLASS,
      ...SEQUENCE_CONVERTERS,
      'offsets.storage.topic': `${name}-offsets`,
      topic,
      partitions: '0,1',
      total: '100000',
      batch: '10',
      ...extra,
    };
    await store.configs.createConnector(name, config);
    const set = await store.configs.putTaskConfigs(name, [config], 0);
    return { name, topic, generation: set.tasks[0]?.generation ?? 0 };
  }

  /**
   * An invocation in a container of its own that runs until fenced, passing its protocol steps
   * to `checkpoint`.
   */
  async function invoke(
    name: string,
    generation: number,
    checkpoint: (point: SourceCheckpoint) => Promise<void> = async () => {},
    maxRecordsPerInvocation?: number,
  ) {
    const { source } = await container(checkpoint, maxRecordsPerInvocation);
    return runSourceInvocation(source, {
      connector: name,
      task: 0,
      generation,
      owner: uniqueName('inv'),
      workerId: 'test-worker',
      deadline: Date.now() + 45_000,
    });
  }

  /** Stalls the invocation the `hit`-th time it reaches `point`, until `release` is called. */
  function stallAt(point: SourceCheckpoint, hit: number) {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached: () => void = () => {};
    const stalled = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let hits = 0;
    const checkpoint = async (p: SourceCheckpoint) => {
      if (p === point && ++hits === hit) {
        reached();
        await released;
      }
    };
    return { checkpoint, stalled, release };
  }

  /** What a read_committed reader finds in the output topic, checked against `offsets`. */
  async function delivered(topic: string, offsets: TaskSourceOffsets) {
    return checkDelivery({
      kafka: testKafka(),
      topic,
      identify: (value) => {
        const { p, seq } = JSON.parse(value?.toString() ?? '{}') as { p: number; seq: number };
        return { partition: String(p), seq };
      },
      expected: committedSeqs(offsets),
      timeoutMs: 20_000,
    });
  }

  async function stop(name: string) {
    await store.configs.setTargetState(name, 'STOPPED');
    return enumerator.reconcile(name);
  }

  it('promotes the transaction a stopped invocation committed to Kafka but had not promoted', async () => {
    // Prepare: the invocation hangs right after its 3rd commit (store: committed 2, pending 3).
    const { name, topic, generation } = await sequenceConnector();
    const ref = { connector: name, task: 0 };
    const stall = stallAt('after-commit', 3);
    const running = invoke(name, generation, stall.checkpoint);
    await stall.stalled;
    const before = await store.offsets.getSourceOffsets(ref);
    // Act
    const report = await stop(name);
    const settled = await store.offsets.getSourceOffsets(ref);
    stall.release();
    const zombie = await running;
    // Assess
    expect([before.committed?.seq, before.pending?.seq]).toEqual([2, 3]);
    expect(report.state).toBe('STOPPED');
    expect(settled.pending).toBeUndefined();
    expect(settled.committed?.seq).toBe(3);
    expect(committedSeqs(settled)).toEqual(
      new Map([
        ['0', 20],
        ['1', 10],
      ]),
    );
    expect(zombie.outcome).toBe('fenced');
    expect(await store.offsets.getSourceOffsets(ref)).toEqual(settled);
    const kafka = await delivered(topic, settled);
    expect({ duplicates: kafka.duplicates, losses: kafka.losses }).toEqual({
      duplicates: 0,
      losses: 0,
    });
    expect(kafka.highest).toEqual(committedSeqs(settled));
  });

  it('discards the transaction a stopped invocation left open, which the fencing aborted', async () => {
    // Prepare: the invocation hangs before its 3rd commit (store: committed 2, pending 3).
    const { name, topic, generation } = await sequenceConnector();
    const ref = { connector: name, task: 0 };
    const stall = stallAt('after-pending', 3);
    const running = invoke(name, generation, stall.checkpoint);
    await stall.stalled;
    const before = await store.offsets.getSourceOffsets(ref);
    // Act
    await stop(name);
    const settled = await store.offsets.getSourceOffsets(ref);
    stall.release();
    const zombie = await running;
    // Assess
    expect([before.committed?.seq, before.pending?.seq]).toEqual([2, 3]);
    expect(settled).toEqual({ ...ref, committed: before.committed });
    expect(zombie.outcome).toBe('fenced');
    expect(await store.offsets.getSourceOffsets(ref)).toEqual(settled);
    const kafka = await delivered(topic, settled);
    expect({ duplicates: kafka.duplicates, losses: kafka.losses }).toEqual({
      duplicates: 0,
      losses: 0,
    });
    expect(kafka.highest).toEqual(
      new Map([
        ['0', 10],
        ['1', 10],
      ]),
    );
  });

  it('leaves the offsets of Kafka in the store when a free-running invocation is stopped mid-run', async () => {
    // Prepare
    const { name, topic, generation } = await sequenceConnector({ 'poll.delay.ms': '20' });
    const ref = { connector: name, task: 0 };
    const running = invoke(name, generation);
    const deadline = Date.now() + 30_000;
    while (((await store.offsets.getSourceOffsets(ref)).committed?.seq ?? 0) < 4) {
      if (Date.now() > deadline) throw new Error(`${name} committed too little in time`);
      await sleep(50);
    }
    // Act
    const report = await stop(name);
    const settled = await store.offsets.getSourceOffsets(ref);
    const zombie = await running;
    // Assess
    expect(report.state).toBe('STOPPED');
    expect(zombie.outcome).toBe('fenced');
    expect(settled.pending).toBeUndefined();
    expect(await store.offsets.getSourceOffsets(ref)).toEqual(settled);
    const kafka = await delivered(topic, settled);
    expect({ duplicates: kafka.duplicates, losses: kafka.losses }).toEqual({
      duplicates: 0,
      losses: 0,
    });
    expect(kafka.highest).toEqual(committedSeqs(settled));
  });

  it('shows PAUSED when a pause lands after the invocation started and the run ends before its next check', async () => {
    // Prepare: the pause lands once the invocation wrote RUNNING (at its first transaction), the
    // run ends by its record cap, and it never reaches an assignment check of its own.
    const { name, generation } = await sequenceConnector();
    const ref = { connector: name, task: 0 };
    let paused = false;
    const pauseOnce = async (point: SourceCheckpoint) => {
      if (point === 'after-pending' && !paused) {
        paused = true;
        await store.configs.setTargetState(name, 'PAUSED');
      }
    };
    // Act
    const result = await invoke(name, generation, pauseOnce, 40);
    // Assess
    expect(result.outcome).toBe('completed');
    expect(paused).toBe(true);
    expect((await store.status.getTaskStatus(ref))?.state).toBe('PAUSED');
  });
});
