import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { Kafka, logLevel, type Message } from 'kafkajs';
import { createDynamoDbStateStore } from '../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../shared/adapters/dynamodb/ensure-table.js';
import { STATE_TABLE } from '../shared/adapters/dynamodb/table-schema.js';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';
import { parseConnectorConfig } from '../shared/config/connector-config.js';
import type { SourceRecord } from '../shared/connect/records.js';
import type { SourceConnector, SourceTask } from '../shared/connect/source.js';
import { builtinRegistry } from '../shared/plugins/registry.js';
import { systemClock } from '../shared/ports/clock.js';
import type {
  KafkaClientFactory,
  OutgoingRecord,
  ProducerTransaction,
  TransactionalProducer,
} from '../shared/ports/kafka.js';
import { silentLogger } from '../shared/ports/logger.js';
import type { StateStore } from '../shared/ports/state-store.js';
import { SourceEnvelope } from '../shared/runtime/pipeline/record-envelope.js';
import type { SourceRecordPipeline } from '../shared/runtime/pipeline/source-pipeline.js';
import { buildSourcePipeline } from '../shared/runtime/pipeline/source-pipeline.js';
import { ProducerPool } from '../shared/runtime/source/producer-pool.js';
import {
  defaultSourceRuntimeSettings,
  runSourceInvocation,
} from '../shared/runtime/source/source-task-runner.js';
import { compareThroughput, percentile, saveResult } from './harness.js';
import type { BenchServices } from './services.js';

/**
 * The source benchmarks: datagen → our source runner (one task, batches of 500 records of ~200
 * bytes, JsonConverter, DynamoDB state on dynalite) vs the bare kafkajs producer of the same mode
 * sending the same number of ~200-byte records in batches of 500 to the same broker:
 * `source-eos` (exactly once; transactions) and `source-alo` (at least once; idempotent
 * producer). Also where a batch's fixed cost goes (p50/p99 per step; the promotion of a
 * transaction overlaps the next one's poll and send, so its figure is not on the critical path).
 *
 * The bare producer's records are smaller than datagen's (a 1-byte key, no headers, no
 * timestamp). A second comparison, `<name>-same-records`, gives it the byte-identical records
 * the runner produces (the JsonConverter key with its schema, the `datagen.partition` and
 * `datagen.seq` headers, the poll's timestamp), built before timing.
 *
 * `source-eos-floor` compares the protocol's own floor with that same-records baseline: the
 * bare producer doing what every exactly-once transaction of docs/exactly-once-source.md must
 * do, with raw clients and nothing else: the same records plus one Connect offset record in one
 * send, then the commit marker (sendOffsets) and the `pending` write (one conditional UpdateItem
 * of a few hundred bytes, raw SDK) at the same time, then the commit. No implementation of the
 * protocol can beat it on these services; the distance between ours and the floor is the
 * runtime's own cost (at least once has no per-batch protocol cost: its floor is the baseline).
 */
const perRound = 10_000;
const batch = 500;

type Timings = Map<string, number[]>;

function record(timings: Timings, step: string, ms: number) {
  const list = timings.get(step) ?? [];
  list.push(ms);
  timings.set(step, list);
}

async function time<T>(timings: Timings, step: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    record(timings, step, performance.now() - started);
  }
}

/** Times the producer steps of every transaction. */
function timedFactory(inner: KafkaClientFactory, timings: Timings): KafkaClientFactory {
  const wrapTx = (tx: ProducerTransaction): ProducerTransaction => ({
    send: (records) => time(timings, 'kafka send', () => tx.send(records)),
    sendOffsets: (group, offsets) =>
      time(timings, 'kafka sendOffsets', () => tx.sendOffsets(group, offsets)),
    commit: () => time(timings, 'kafka commit', () => tx.commit()),
    abort: () => tx.abort(),
  });
  return {
    transactionalProducer: (id, options) => {
      const producer = inner.transactionalProducer(id, options);
      const wrapped: TransactionalProducer = {
        transactionalId: producer.transactionalId,
        connect: () => time(timings, 'producer init', () => producer.connect()),
        begin: async () => wrapTx(await producer.begin()),
        close: () => producer.close(),
      };
      return wrapped;
    },
    idempotentProducer: (options) => inner.idempotentProducer(options),
    admin: () => inner.admin(),
  };
}

/** Times the state-store calls the runner makes. */
function timedStore(store: StateStore, timings: Timings): StateStore {
  const offsets = store.offsets;
  const leases = store.leases;
  return {
    ...store,
    leases: {
      ...leases,
      acquireLease: (r) => time(timings, 'lease acquire', () => leases.acquireLease(r)),
      releaseLease: (l) => time(timings, 'lease release', () => leases.releaseLease(l)),
      renewLease: (l, t) => leases.renewLease(l, t),
      getLease: (r) => leases.getLease(r),
    },
    offsets: {
      ...offsets,
      getSourceOffsets: (r) => time(timings, 'recovery read', () => offsets.getSourceOffsets(r)),
      listSourceOffsets: (c) => offsets.listSourceOffsets(c),
      writePendingSourceOffsets: (r, p, f) =>
        time(timings, 'dynamodb pending', () => offsets.writePendingSourceOffsets(r, p, f)),
      promotePendingSourceOffsets: (r, s, f) =>
        time(timings, 'dynamodb promote', () => offsets.promotePendingSourceOffsets(r, s, f)),
      promoteAndWritePendingSourceOffsets: (r, s, p, f) =>
        time(timings, 'dynamodb promote+pending', () =>
          offsets.promoteAndWritePendingSourceOffsets(r, s, p, f),
        ),
      discardPendingSourceOffsets: (r, s, f) => offsets.discardPendingSourceOffsets(r, s, f),
      commitSinkOffset: (c, o) => offsets.commitSinkOffset(c, o),
      getSinkOffsets: (c) => offsets.getSinkOffsets(c),
      alterSinkOffsets: (c, x) => offsets.alterSinkOffsets(c, x),
      resetSinkOffsets: (c) => offsets.resetSinkOffsets(c),
    },
  };
}

/** Times each poll batch's conversion (transformations and converters). */
function timedPipeline(inner: SourceRecordPipeline, timings: Timings): SourceRecordPipeline {
  return {
    process: (envelopes) => time(timings, 'convert batch', () => inner.process(envelopes)),
    close: () => inner.close(),
  };
}

/** Times the connector's tasks' polls. */
function timedConnector(connector: SourceConnector, timings: Timings): SourceConnector {
  const createTask = connector.createTask.bind(connector);
  connector.createTask = () => {
    const task: SourceTask = createTask();
    const poll = task.poll.bind(task);
    task.poll = () => time(timings, 'task poll', poll);
    return task;
  };
  return connector;
}

/** The records the runner produces for the first `count` datagen records, as kafkajs messages. */
async function runnerRecords(
  config: Record<string, string>,
  taskConfig: Record<string, string>,
  count: number,
): Promise<Message[][]> {
  const registry = builtinRegistry();
  const task = (registry.resolve('datagen', 'source').create() as SourceConnector).createTask();
  await task.start(taskConfig, {
    configs: () => taskConfig,
    offsetStorageReader: { offsets: async () => [], offset: async () => null },
    transactionContext: null,
  });
  const pipeline = buildSourcePipeline(parseConnectorConfig(config, 'source'), 0, {
    plugins: registry,
    logger: silentLogger,
    clock: systemClock,
    sleep: async () => {},
  });
  const buffer = (bytes: Uint8Array | null) => (bytes === null ? null : Buffer.from(bytes));
  const toMessage = (record: OutgoingRecord): Message => ({
    key: buffer(record.key),
    value: buffer(record.value),
    headers: Object.fromEntries(
      (record.headers ?? []).map((h) => [h.key, buffer(h.value) ?? undefined]),
    ),
    ...(record.timestamp === undefined ? {} : { timestamp: String(record.timestamp) }),
  });
  const batches: Message[][] = [];
  for (let produced = 0; produced < count; ) {
    const polled: SourceRecord[] = (await task.poll()) ?? [];
    const envelopes = polled.map((record, index) => new SourceEnvelope(record, index));
    await pipeline.process(envelopes);
    const messages: Message[] = [];
    for (const { outgoing } of envelopes) if (outgoing !== null) messages.push(toMessage(outgoing));
    batches.push(messages);
    produced += messages.length;
  }
  await task.stop();
  pipeline.close();
  return batches;
}

export async function runSourceBench(
  services: BenchServices,
  name: 'source-eos' | 'source-alo',
): Promise<void> {
  const exactlyOnce = name === 'source-eos';
  const { brokers } = await services.kafka();
  const dynamo = await services.dynamo();
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const tableName = `bench-${Date.now().toString(36)}`;
  await ensureTable(client, tableName);
  const timings: Timings = new Map();
  const store = timedStore(createDynamoDbStateStore({ client, tableName }), timings);
  const inner = new KafkaJsClientFactory({ brokers, logLevel: logLevel.NOTHING });
  const factory = timedFactory(inner, timings);
  const registry = builtinRegistry();
  const connectorName = `bench-${name}-${Date.now().toString(36)}`;
  const topic = `${connectorName}-out`;
  const admin = factory.admin();
  await admin.createTopics([{ topic, partitions: 1 }]);
  const config = {
    name: connectorName,
    'connector.class': 'datagen',
    'kafka.topic': topic,
    quickstart: 'sequence',
    'source.partitions': '1',
    'records.per.poll': String(batch),
    'payload.bytes': '200',
    'value.converter.schemas.enable': 'false',
  };
  await store.configs.createConnector(connectorName, config);
  const connector = registry.resolve('datagen', 'source').create() as SourceConnector;
  await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
  const taskConfigs = await connector.taskConfigs(1);
  const set = await store.configs.putTaskConfigs(connectorName, taskConfigs, 0);
  // The runner resolves the connector through this registry: its tasks' polls are timed.
  const timedRegistry = new Proxy(registry, {
    get: (target, property, receiver) =>
      property === 'resolve'
        ? (...args: Parameters<typeof registry.resolve>) => {
            const found = target.resolve(...args);
            return found.type === 'source'
              ? { ...found, create: () => timedConnector(found.create(), timings) }
              : found;
          }
        : Reflect.get(target, property, receiver),
  });
  const generation = set.tasks[0]?.generation ?? 0;
  const pool = new ProducerPool(factory);
  let invocation = 0;

  // The baseline's records: ~200-byte JSON values like datagen's, built before timing.
  const values: Message[][] = [];
  for (let start = 0; start < perRound; start += batch) {
    values.push(
      Array.from({ length: batch }, (_, i) => ({
        key: '0',
        value: JSON.stringify({ partition: 0, seq: start + i + 1, payload: 'x'.repeat(150) }),
      })),
    );
  }
  const raw = new Kafka({
    brokers,
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 10, retries: 10 },
  });
  const bare = raw.producer({
    transactionalId: `${name}-bare`,
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await bare.connect();
  const sameRecords = await runnerRecords(config, taskConfigs[0] ?? {}, perRound);
  const { partitionKey, sortKey } = STATE_TABLE;
  let floorSeq = 0;
  /** One floor transaction (see the module notes). */
  const floorTransaction = async (messages: Message[]) => {
    floorSeq += 1;
    const seq = floorSeq;
    const offsetJson = JSON.stringify({ seq: seq * batch });
    const tx = await bare.transaction();
    await tx.sendBatch({
      topicMessages: [
        { topic, messages },
        {
          topic: defaultSourceRuntimeSettings.offsetsTopic,
          messages: [{ key: `["${connectorName}-floor",{"partition":0}]`, value: offsetJson }],
        },
      ],
    });
    await Promise.all([
      tx.sendOffsets({
        consumerGroupId: `${name}-floor-marker`,
        topics: [
          {
            topic: defaultSourceRuntimeSettings.offsetsTopic,
            partitions: [{ partition: 0, offset: String(seq) }],
          },
        ],
      }),
      client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: {
            [partitionKey.name]: { S: `floor#${connectorName}` },
            [sortKey.name]: { S: 'offsets#0' },
          },
          UpdateExpression: 'SET #pending = :pending, #seq = :seq',
          ConditionExpression: 'attribute_not_exists(#seq) OR #seq < :seq',
          ExpressionAttributeNames: { '#pending': 'pending', '#seq': 'seq' },
          ExpressionAttributeValues: {
            ':seq': { N: String(seq) },
            ':pending': {
              M: {
                seq: { N: String(seq) },
                offsets: { S: `[{"partition":{"partition":0},"offset":${offsetJson}}]` },
                positions: { S: `[{"topic":"${topic}","partition":0,"offset":"${seq}"}]` },
              },
            },
          },
        }),
      ),
    ]);
    await tx.commit();
  };
  const bareRound = async (batches: readonly Message[][]) => {
    for (const messages of batches) {
      if (exactlyOnce) {
        const tx = await bare.transaction();
        await tx.send({ topic, messages });
        await tx.commit();
      } else {
        await bare.send({ topic, messages, acks: -1 });
      }
    }
    return perRound;
  };
  try {
    const ours = async () => {
      invocation += 1;
      const result = await runSourceInvocation(
        {
          store,
          admin,
          producers: pool,
          plugins: timedRegistry,
          clock: systemClock,
          sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
          buildPipeline: (parsed) =>
            timedPipeline(
              buildSourcePipeline(parsed, 0, {
                plugins: registry,
                logger: silentLogger,
                clock: systemClock,
                sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
              }),
              timings,
            ),
          settings: {
            ...defaultSourceRuntimeSettings,
            maxRecordsPerInvocation: perRound,
            exactlyOnce,
          },
        },
        {
          connector: connectorName,
          task: 0,
          generation,
          owner: `bench-${invocation}`,
          workerId: 'bench',
          deadline: Date.now() + 120_000,
        },
      );
      if (result.outcome !== 'completed') {
        throw new Error(`invocation ended ${result.outcome}`, { cause: result.error });
      }
      return result.records;
    };
    await compareThroughput({ name, unit: 'records', ours, baseline: () => bareRound(values) });
    // The steps above describe the first comparison's rounds only.
    const steps = [...timings].map(([step, ms]) => ({
      step,
      count: ms.length,
      p50: Number(percentile(ms, 50).toFixed(2)),
      p99: Number(percentile(ms, 99).toFixed(2)),
    }));
    for (const { step, count, p50, p99 } of steps) {
      console.log(`${name}: ${step.padEnd(18)} p50=${p50}ms p99=${p99}ms (n=${count})`);
    }
    await saveResult(`${name}-steps`, steps);
    await compareThroughput({
      name: `${name}-same-records`,
      unit: 'records',
      ours,
      baseline: () => bareRound(sameRecords),
    });
    if (exactlyOnce) {
      await compareThroughput({
        name: `${name}-floor`,
        unit: 'records',
        ours: async () => {
          for (const messages of sameRecords) await floorTransaction(messages);
          return perRound;
        },
        baseline: () => bareRound(sameRecords),
      });
    }
  } finally {
    await bare.disconnect();
    await pool.closeAll();
    await connector.stop();
    await admin.close();
    await inner.close();
  }
}
