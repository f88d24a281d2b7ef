import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import { ConfigDef } from '../../../shared/connect/config-def.js';
import type { SourceTaskContext } from '../../../shared/connect/context.js';
import { DataError } from '../../../shared/connect/errors.js';
import type { AnyPluginDescriptor } from '../../../shared/connect/plugin.js';
import { type ConnectRecord, SourceRecord } from '../../../shared/connect/records.js';
import { SourceConnector, SourceTask } from '../../../shared/connect/source.js';
import type { Transformation } from '../../../shared/connect/transformation.js';
import { silentLogger } from '../../../shared/ports/logger.js';
import type { MetricValue } from '../../../shared/ports/metrics.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { runSourceInvocation } from '../../../shared/runtime/source/source-task-runner.js';
import { testEngine } from '../../support/engine.js';
import { testPlugins } from '../../support/plugin-modules.js';
import { SEQUENCE_CONVERTERS } from '../../support/sequence-source.js';
import { testDynamo, testKafka, uniqueName } from '../../support/services.js';

/**
 * One poll of the scripted task: its records (`[source partition, seq]`, `bad` ones fail the
 * pipeline and are dead-lettered) and the boundaries it asks for (indexes into the batch).
 */
interface ScriptedPoll {
  readonly records: readonly (readonly [p: number, seq: number, bad?: 'bad'])[];
  readonly commitAt?: readonly number[];
  readonly abortAt?: readonly number[];
  readonly batch?: 'commit' | 'abort';
  /** Also asks to commit after a record of the previous poll (the runtime ignores it). */
  readonly stale?: true;
}

/** The values `commitRecord` saw, across the scripted tasks of this file (tests run in turn). */
const reported: string[] = [];

/** A test-only task that polls a fixed script and defines transaction boundaries as it says. */
class ScriptedTask extends SourceTask {
  #script: ScriptedPoll[] = [];
  #topic = '';
  #context: SourceTaskContext | undefined;
  #previous: SourceRecord[] = [];

  override version(): string {
    return 'test';
  }

  override async start(props: Readonly<Record<string, string>>, context: SourceTaskContext) {
    this.#script = JSON.parse(props.script ?? '[]') as ScriptedPoll[];
    this.#topic = props.topic ?? 'out';
    this.#context = context;
  }

  override async poll(): Promise<SourceRecord[] | null> {
    const step = this.#script.shift();
    const transactions = this.#context?.transactionContext;
    if (step === undefined || transactions == null) return null;
    const records = step.records.map(
      ([p, seq, bad]) =>
        new SourceRecord({
          sourcePartition: { p },
          sourceOffset: { seq },
          topic: this.#topic,
          key: `p${p}`,
          value: JSON.stringify({ p, seq, ...(bad === undefined ? {} : { bad: true }) }),
        }),
    );
    const at = (i: number) => records[i] as SourceRecord;
    for (const i of step.commitAt ?? []) transactions.commitTransaction(at(i));
    for (const i of step.abortAt ?? []) transactions.abortTransaction(at(i));
    if (step.batch === 'commit') transactions.commitTransaction();
    if (step.batch === 'abort') transactions.abortTransaction();
    const stale = this.#previous[0];
    if (step.stale && stale !== undefined) transactions.commitTransaction(stale);
    this.#previous = records;
    return records;
  }

  override async commitRecord(record: SourceRecord): Promise<void> {
    reported.push(String(record.value));
  }

  override async stop(): Promise<void> {}
}

class ScriptedConnector extends SourceConnector {
  #props: Readonly<Record<string, string>> = {};
  override version(): string {
    return 'test';
  }
  override config(): ConfigDef {
    return new ConfigDef();
  }
  override async start(props: Readonly<Record<string, string>>): Promise<void> {
    this.#props = props;
  }
  override async taskConfigs(): Promise<Record<string, string>[]> {
    return [{ ...this.#props }];
  }
  override async stop(): Promise<void> {}
  override createTask(): SourceTask {
    return new ScriptedTask();
  }
  override exactlyOnceSupport() {
    return 'SUPPORTED' as const;
  }
  override canDefineTransactionBoundaries() {
    return 'SUPPORTED' as const;
  }
}

const SCRIPTED_CLASS = 'test.ScriptedBoundariesConnector';

/** A transformation that fails on records marked `bad` (a DataError, which the pipeline tolerates). */
class RejectBad<R extends ConnectRecord> implements Transformation<R> {
  config(): ConfigDef {
    return new ConfigDef();
  }
  configure(): void {}
  apply(record: R): R | null {
    if ((JSON.parse(String(record.value)) as { bad?: boolean }).bad === true) {
      throw new DataError('a bad record');
    }
    return record;
  }
  close(): void {}
}

const REJECT_BAD_CLASS = 'test.RejectBad';

const plugins: AnyPluginDescriptor[] = [
  {
    className: SCRIPTED_CLASS,
    aliases: [],
    type: 'source',
    version: 'test',
    create: () => new ScriptedConnector(),
  },
  {
    className: REJECT_BAD_CLASS,
    aliases: [],
    type: 'transformation',
    version: 'test',
    create: <R extends ConnectRecord>() => new RejectBad<R>(),
  },
];

/** The values of `topic` a read_committed consumer sees, in order (`count` expected). */
async function readCommitted(topic: string, count: number): Promise<string[]> {
  const consumer = testKafka().consumer({ groupId: uniqueName('read'), maxWaitTimeInMs: 100 });
  const values: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      values.push(message.value?.toString() ?? '');
    },
  });
  const deadline = Date.now() + 20_000;
  while (values.length < count && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 1000)); // anything extra would show up now
  await consumer.disconnect();
  return values;
}

const value = (p: number, seq: number) => JSON.stringify({ p, seq });
const range = (p: number, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => value(p, from + i));
const seqs = (p: number, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => [p, from + i] as const);

describe('connector-defined transaction boundaries (real broker + dynalite)', () => {
  let factory: KafkaJsClientFactory;
  let store: StateStore;

  beforeAll(async () => {
    const client = testDynamo();
    const tableName = uniqueName('state');
    await ensureTable(client, tableName);
    store = createDynamoDbStateStore({ client, tableName, clock: { now: () => Date.now() } });
    factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
  });

  afterAll(async () => {
    await factory.close();
  });

  async function run(script: ScriptedPoll[]) {
    const name = uniqueName('bounds');
    const topic = `${name}-out`;
    const admin = factory.admin();
    await admin.createTopics([
      { topic, partitions: 1 },
      { topic: `${topic}-dlq`, partitions: 1 },
    ]);
    await admin.close();
    const config = {
      name,
      'connector.class': SCRIPTED_CLASS,
      ...SEQUENCE_CONVERTERS,
      // Bad records fail the transformation; their dead letters join the task's transaction.
      transforms: 'rejectBad',
      'transforms.rejectBad.type': REJECT_BAD_CLASS,
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': `${topic}-dlq`,
      'offsets.storage.topic': `${name}-offsets`,
      'transaction.boundary': 'connector',
      topic,
      script: JSON.stringify(script),
    };
    await store.configs.createConnector(name, config);
    const set = await store.configs.putTaskConfigs(name, [config], 0);
    const published: Record<string, MetricValue>[] = [];
    const warnings: string[] = [];
    const { engine, close } = await testEngine({
      store,
      kafka: factory,
      pluginModules: testPlugins(...plugins),
      metrics: { publish: (_dimensions, values) => published.push(values) },
      loggers: () => ({ ...silentLogger, warn: (message) => warnings.push(message) }),
      settings: { source: { maxIdleMs: 300, idlePollMs: 20 } },
    });
    reported.length = 0;
    const result = await runSourceInvocation(engine.source, {
      connector: name,
      task: 0,
      generation: set.tasks[0]?.generation ?? 0,
      owner: uniqueName('inv'),
      workerId: 'test-worker',
      deadline: Date.now() + 30_000,
    });
    await close();
    return { name, topic, result, published, warnings };
  }

  it('commits and aborts where the task asks, mid-batch, with dead letters in their own transaction', async () => {
    // Prepare: the transactions the script defines (p = source partition, n = seq):
    //   T1 commits p0 1-3 (2 dead-lettered)       A1 aborts p0 4-7 (5 dead-lettered)
    //   T2 commits p0 8-12 (across two polls)     A2 aborts p0 13-20 (batch abort)
    //   T3 commits p0 21-30 (batch commit; a stale request is ignored)
    //   A3 aborts p0 31-35                        T4 commits p0 36-40 (the batch abort finds nothing open)
    //   T5 commits p0 41-45                       A4 aborts p1 1-5 (the invocation's last)
    // Each abort's offsets are committed right away in a transaction of offset records only
    // (as Kafka Connect does), so 5 + 4 transactions commit.
    const script: ScriptedPoll[] = [
      {
        records: seqs(0, 1, 10).map(([p, n]) => (n === 2 || n === 5 ? [p, n, 'bad'] : [p, n])),
        commitAt: [2],
        abortAt: [6],
      },
      { records: seqs(0, 11, 20), commitAt: [1], batch: 'abort' },
      { records: seqs(0, 21, 30), batch: 'commit', stale: true },
      { records: seqs(0, 31, 40), abortAt: [4], commitAt: [9], batch: 'abort' },
      { records: [...seqs(0, 41, 45), ...seqs(1, 1, 5)], commitAt: [4], abortAt: [9] },
    ];

    // Act
    const { name, topic, result, published, warnings } = await run(script);

    // Assess
    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({ outcome: 'completed', transactions: 9, records: 50 });
    expect(published[0]).toMatchObject({
      RecordsPolled: { value: 50 },
      TransactionsCommitted: { value: 9 },
      TransactionsAborted: { value: 4 },
    });
    const committed = [
      value(0, 1),
      value(0, 3),
      ...range(0, 8, 12),
      ...range(0, 21, 30),
      ...range(0, 36, 45),
    ];
    expect(await readCommitted(topic, committed.length)).toEqual(committed);
    // The metrics count what committed transactions wrote, not what aborts dropped.
    expect(published[0]).toMatchObject({
      RecordsWritten: { value: committed.length },
      RecordsDeadLettered: { value: 1 },
    });
    // A source record's dead letter value is its value as JSON (here a JSON string).
    expect(await readCommitted(`${topic}-dlq`, 1)).toEqual([
      JSON.stringify(JSON.stringify({ p: 0, seq: 2, bad: true })),
    ]);
    // commitRecord sees exactly the records of committed transactions.
    expect(reported.map((v) => JSON.stringify({ ...JSON.parse(v), bad: undefined }))).toEqual([
      value(0, 1),
      value(0, 2),
      value(0, 3),
      ...range(0, 8, 12),
      ...range(0, 21, 30),
      ...range(0, 36, 45),
    ]);
    // T5's offsets and A4's: its records were dropped, its offsets committed (p1 is not polled
    // again).
    const offsets = await store.offsets.getSourceOffsets({ connector: name, task: 0 });
    expect(offsets.committed?.seq).toBe(9);
    expect(offsets.committed?.offsets).toEqual([
      { partition: { p: 0 }, offset: { seq: 45 }, at: expect.any(Number) },
      { partition: { p: 1 }, offset: { seq: 5 }, at: expect.any(Number) },
    ]);
    expect(offsets.pending).toBeUndefined();
    expect(warnings).toEqual([
      expect.stringMatching(/commit the transaction after a record that is not one of the batch/),
    ]);
  });

  it('fails the task when it asks to both commit and abort after one record, and writes nothing', async () => {
    const { name, topic, result } = await run([
      { records: seqs(0, 1, 5), commitAt: [1], abortAt: [1] },
    ]);

    expect(result.outcome).toBe('failed');
    expect(result.error?.message).toBe(
      `Connector requested both commit and abort of same record against topic/partition ${topic}/null`,
    );
    expect(result.transactions).toBe(0);
    const status = await store.status.getTaskStatus({ connector: name, task: 0 });
    expect(status?.state).toBe('FAILED');
    expect(await readCommitted(topic, 0)).toEqual([]);
  });
});
