import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import type { MetricValue } from '../../../shared/ports/metrics.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import {
  AbandonedInvocation,
  runSourceInvocation,
  type SourceRunResult,
} from '../../../shared/runtime/source/source-task-runner.js';
import type { SourceCheckpoint } from '../../../shared/runtime/source/source-transaction.js';
import { testEngine } from '../../support/engine.js';
import { testPlugins } from '../../support/plugin-modules.js';
import {
  SEQUENCE_CONVERTERS,
  SEQUENCE_SOURCE_CLASS,
  sequenceSourceDescriptor,
} from '../../support/sequence-source.js';
import { testDynamo, testKafka, uniqueName } from '../../support/services.js';

/** A clock that real time drives, with a skew tests push forward to expire leases. */
class SkewClock {
  skew = 0;
  now(): number {
    return Date.now() + this.skew;
  }
}

/** Reads the topic read_committed and checks every (p, seq) arrived exactly once, in order. */
async function checkExactlyOnce(topic: string, partitions: number, total: number) {
  const consumer = testKafka().consumer({ groupId: uniqueName('check'), maxWaitTimeInMs: 100 });
  const seen = new Map<number, number[]>();
  let count = 0;
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const { p, seq } = JSON.parse(message.value?.toString() ?? '{}') as {
        p: number;
        seq: number;
      };
      seen.set(p, [...(seen.get(p) ?? []), seq]);
      count += 1;
    },
  });
  const expected = partitions * total;
  const deadline = Date.now() + 20_000;
  while (count < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 1000)); // anything extra (a duplicate) would show up now
  await consumer.disconnect();
  let duplicates = 0;
  let losses = 0;
  let reordered = 0;
  for (let p = 0; p < partitions; p += 1) {
    const seqs = seen.get(p) ?? [];
    const unique = new Set(seqs);
    duplicates += seqs.length - unique.size;
    for (let seq = 1; seq <= total; seq += 1) if (!unique.has(seq)) losses += 1;
    for (let i = 1; i < seqs.length; i += 1)
      if ((seqs[i] ?? 0) < (seqs[i - 1] ?? 0)) reordered += 1;
  }
  return { duplicates, losses, reordered, count };
}

describe('exactly-once source runtime (real broker + dynalite)', () => {
  const kafka = () =>
    new KafkaJsClientFactory({ brokers: inject('kafkaBrokers'), logLevel: logLevel.NOTHING });
  let factory: KafkaJsClientFactory;
  let store: StateStore;
  const clock = new SkewClock();

  beforeAll(async () => {
    const client = testDynamo();
    const tableName = uniqueName('state');
    await ensureTable(client, tableName);
    store = createDynamoDbStateStore({ client, tableName, clock });
    factory = kafka();
  });

  afterAll(async () => {
    await factory.close();
  });

  async function createConnector(partitions: number, total: number, batch: number) {
    const name = uniqueName('seq');
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
      partitions: Array.from({ length: partitions }, (_, i) => i).join(','),
      total: String(total),
      batch: String(batch),
    };
    await store.configs.createConnector(name, config);
    const set = await store.configs.putTaskConfigs(name, [config], 0);
    return { name, topic, generation: set.tasks[0]?.generation ?? 0 };
  }

  interface InvocationOptions {
    /** Called at each protocol step; throwing there crashes the invocation. */
    readonly checkpoint?: (point: SourceCheckpoint) => Promise<void>;
    /** The worker's `exactly.once.source.support`. @default true */
    readonly exactlyOnce?: boolean;
    /** Where the invocation's task metrics go. */
    readonly published?: Record<string, MetricValue>[];
  }

  /**
   * One invocation of task 0 in a container of its own (an engine over the shared store and
   * Kafka clients), closed when the invocation ends: a crash loses the container, and its
   * producer.
   */
  async function invoke(
    name: string,
    generation: number,
    options: InvocationOptions = {},
  ): Promise<SourceRunResult> {
    const { engine, close } = await testEngine({
      store,
      kafka: factory,
      clock,
      pluginModules: testPlugins(sequenceSourceDescriptor),
      ...(options.checkpoint === undefined ? {} : { checkpoint: options.checkpoint }),
      metrics: { publish: (_dimensions, values) => options.published?.push(values) },
      settings: {
        exactlyOnceSource: options.exactlyOnce ?? true,
        source: {
          maxIdleMs: 300,
          idlePollMs: 20,
          offsetFlushIntervalMs: 0, // at least once: record offsets after every poll
        },
      },
    });
    try {
      return await runSourceInvocation(engine.source, {
        connector: name,
        task: 0,
        generation,
        owner: uniqueName('inv'),
        workerId: 'test-worker',
        deadline: clock.now() + 30_000,
      });
    } finally {
      await close();
    }
  }

  it('produces every record once and keeps Connect-format offsets in step', async () => {
    const { name, topic, generation } = await createConnector(3, 60, 20);
    const published: Record<string, MetricValue>[] = [];
    const result = await invoke(name, generation, { published });

    expect(result.error).toBeUndefined();
    expect(result.outcome).toBe('completed');
    expect(result.records).toBe(180);
    expect(result.transactions).toBe(9);
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({
      RecordsPolled: { value: 180 },
      RecordsWritten: { value: 180 },
      TransactionsCommitted: { value: 9 },
      TransactionsAborted: { value: 0 },
    });
    expect(await checkExactlyOnce(topic, 3, 60)).toMatchObject({
      duplicates: 0,
      losses: 0,
      reordered: 0,
    });
    const offsets = await store.offsets.getSourceOffsets({ connector: name, task: 0 });
    expect(offsets.committed?.seq).toBe(9);
    expect(
      [...(offsets.committed?.offsets ?? [])].sort(
        (a, b) => Number(a.partition.p) - Number(b.partition.p),
      ),
    ).toEqual(
      [0, 1, 2].map((p) => ({ partition: { p }, offset: { seq: 60 }, at: expect.any(Number) })),
    );
  });

  it('starts no task while a reconfiguration still has tasks to fence, and runs once it is done', async () => {
    // Prepare: task configs rewritten (1 -> 2 tasks, task 0 changed) and not yet fenced.
    const { name, topic } = await createConnector(2, 20, 10);
    const current = await store.configs.getTaskConfigs(name);
    const base = current.tasks[0]?.config ?? {};
    const written = await store.configs.putTaskConfigs(
      name,
      [
        { ...base, partitions: '0' },
        { ...base, partitions: '1' },
      ],
      current.version,
    );
    const generation = written.tasks[0]?.generation ?? -1;
    // Act
    const blocked = await invoke(name, generation);
    await store.configs.clearFencing(name, written.version);
    const ran = await invoke(name, generation);
    // Assess
    expect(written.fencing).toEqual([0]);
    expect(blocked).toMatchObject({ outcome: 'awaiting-fencing', records: 0 });
    expect(await store.leases.getLease({ connector: name, task: 0 })).toBeUndefined();
    expect(ran).toMatchObject({ outcome: 'completed', records: 20 });
    expect(await checkExactlyOnce(topic, 1, 20)).toMatchObject({ duplicates: 0, losses: 0 });
  });

  const points: SourceCheckpoint[] = [
    'before-send',
    'after-send',
    'after-pending',
    'after-commit',
    'after-promote',
  ];

  it.each(points)(
    'loses and duplicates nothing when invocations crash at %s, over several rounds',
    async (point) => {
      const { name, topic, generation } = await createConnector(2, 60, 15);
      let crashes = 0;
      for (let round = 0; round < 12; round += 1) {
        let hits = 0;
        const crashAt = 1 + (round % 3); // the 1st, 2nd or 3rd time the point is reached
        try {
          const result = await invoke(name, generation, {
            checkpoint: async (p) => {
              if (p === point && ++hits === crashAt) throw new Error('simulated crash');
            },
          });
          // `interrupted`: a retriable error (e.g. a transaction still undecided under load) ended
          // the invocation early; the next one carries on, as the dispatcher would.
          expect(['completed', 'lease-held', 'interrupted'], result.error?.message).toContain(
            result.outcome,
          );
          if (result.outcome === 'completed' && result.records === 0) break;
        } catch (error) {
          expect(error).toBeInstanceOf(AbandonedInvocation);
          crashes += 1;
          clock.skew += 60_000; // the crashed holder's lease expires
        }
      }
      // Whatever the rounds left undone, a clean invocation finishes (as the next dispatch would).
      const last = await invoke(name, generation);
      expect(last.outcome, last.error?.message).toBe('completed');
      expect(crashes).toBeGreaterThan(0);
      expect(await checkExactlyOnce(topic, 2, 60)).toMatchObject({
        duplicates: 0,
        losses: 0,
        reordered: 0,
      });
    },
  );

  it.each(['after-pending', 'after-commit'] as const)(
    'fences a zombie stalled at %s while a newer invocation takes over',
    async (point) => {
      const { name, topic, generation } = await createConnector(2, 40, 10);
      let release: () => void = () => {};
      const stalled = new Promise<void>((resolve) => {
        release = resolve;
      });
      let reached: () => void = () => {};
      const atPoint = new Promise<void>((resolve) => {
        reached = resolve;
      });
      let hits = 0;
      const zombie = invoke(name, generation, {
        checkpoint: async (p) => {
          if (p === point && ++hits === 2) {
            reached();
            await stalled;
          }
        },
      });
      await atPoint;
      clock.skew += 60_000; // the zombie's lease expires while it hangs
      const successor = await invoke(name, generation);
      release();
      const zombieResult = await zombie;

      expect(successor.outcome).toBe('completed');
      expect(successor.recovery?.kind).toBe(point === 'after-commit' ? 'promoted' : 'discarded');
      expect(zombieResult.outcome).toBe('fenced');
      expect(await checkExactlyOnce(topic, 2, 40)).toMatchObject({
        duplicates: 0,
        losses: 0,
        reordered: 0,
      });
    },
  );

  it('at least once: loses nothing across crashes, and repeats at most the batch in flight', async () => {
    const { name, topic, generation } = await createConnector(2, 60, 15);
    // At least once a batch's records are sent (after-send #1), then its offset records
    // (after-send #2), then pending and the promotion. The crash at after-send #3 comes after the
    // second batch's records and before their offset records.
    const crashes = [
      ['after-send', 3],
      ['after-pending', 2],
      ['after-commit', 2],
    ] as const;
    for (const [point, visit] of crashes) {
      let hits = 0;
      await expect(
        invoke(name, generation, {
          exactlyOnce: false,
          checkpoint: async (p) => {
            if (p === point && ++hits === visit) throw new Error('simulated crash');
          },
        }),
      ).rejects.toBeInstanceOf(AbandonedInvocation);
      clock.skew += 60_000;
    }
    const last = await invoke(name, generation, { exactlyOnce: false });

    expect(last.outcome).toBe('completed');
    const report = await checkExactlyOnce(topic, 2, 60);
    expect(report.losses).toBe(0);
    // Only the crash after the records were sent and before their offset records repeats its
    // batch of 15: once an offset record is in Kafka, the next invocation resumes from it even
    // when the store never recorded it (offsets-reconcile.ts).
    expect(report.duplicates).toBe(15);
  });
});
