import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { Kafka, logLevel, type Message } from 'kafkajs';
import { createDynamoDbStateStore } from '../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../shared/adapters/dynamodb/ensure-table.js';
import { STATE_TABLE } from '../shared/adapters/dynamodb/table-schema.js';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';
import type { PluginDescriptor } from '../shared/connect/plugin.js';
import type { SourceConnector, SourceTask } from '../shared/connect/source.js';
import {
  createEngine,
  DEFAULT_ENGINE_SETTINGS,
  type Engine,
  type EngineSettings,
} from '../shared/engine/engine.js';
import { datagenDescriptor } from '../shared/plugins/connectors/datagen/descriptor.js';
import type { KafkaClientFactory, OutgoingRecord } from '../shared/ports/kafka.js';
import type { StateStore } from '../shared/ports/state-store.js';
import { runSourceInvocation } from '../shared/runtime/source/source-task-runner.js';
import { testPlugins } from '../test/support/plugin-modules.js';
import { compareThroughput } from './harness.js';
import type { BenchServices } from './services.js';
import { Timings, timedKafkaFactory, timedMethods } from './timings.js';

/**
 * The source benchmarks: datagen → our source runner (the engine, as a Lambda container builds
 * it: one task, batches of 500 records of ~200 bytes, JsonConverter, DynamoDB state on
 * dynalite) vs the bare kafkajs producer of the same mode
 * sending the same number of ~200-byte records in batches of 500 to the same broker:
 * `source-eos` (exactly once; transactions) and `source-alo` (at least once; idempotent
 * producer). Also where a batch's fixed cost goes (p50/p99 per step; the promotion of a
 * transaction overlaps the next one's poll and send, so its figure is not on the critical path).
 *
 * The bare producer's records are smaller than datagen's (a 1-byte key, no headers, no
 * timestamp). A second comparison, `<name>-same-records`, gives it the byte-identical records
 * the runner produces (the JsonConverter key with its schema, the `datagen.partition` and
 * `datagen.seq` headers, the poll's timestamp): those the engine produced for a twin connector
 * before timing, grouped as it sent them.
 *
 * `source-eos-floor` compares the protocol's own floor with that same-records baseline: the
 * bare producer doing what every exactly-once transaction of docs/exactly-once-source.md must
 * do, with raw clients and nothing else: the same records plus one Connect offset record in one
 * send, then the `pending` write (one conditional UpdateItem of a few hundred bytes, raw SDK),
 * then the commit. No implementation of the
 * protocol can beat it on these services; the distance between ours and the floor is the
 * runtime's own cost (at least once has no per-batch protocol cost: its floor is the baseline).
 */
const perRound = 10_000;
const batch = 500;

/** Times the state-store calls the runner makes. */
export function timedStore(store: StateStore, timings: Timings): StateStore {
  return {
    ...store,
    leases: timedMethods(
      store.leases,
      { acquireLease: 'lease acquire', releaseLease: 'lease release' },
      timings,
    ),
    offsets: timedMethods(
      store.offsets,
      {
        getSourceOffsets: 'recovery read',
        writePendingSourceOffsets: 'dynamodb pending',
        promotePendingSourceOffsets: 'dynamodb promote',
        promoteAndWritePendingSourceOffsets: 'dynamodb promote+pending',
      },
      timings,
    ),
  };
}

/** Times the connector's tasks' start, polls, commits and stop. */
export function timedConnector(connector: SourceConnector, timings: Timings): SourceConnector {
  const createTask = connector.createTask.bind(connector);
  connector.createTask = () => {
    const task: SourceTask = createTask();
    const start = task.start.bind(task);
    const poll = task.poll.bind(task);
    const commit = task.commit.bind(task);
    const stop = task.stop.bind(task);
    task.start = (props, context) => timings.time('task start', () => start(props, context));
    task.poll = () => timings.time('task poll', poll);
    task.commit = () => timings.time('task commit', commit);
    task.stop = () => timings.time('task stop', stop);
    return task;
  };
  return connector;
}

/** `plugin` under `className`, its tasks' steps timed (see {@link timedConnector}). */
export function timedSourceDescriptor(
  plugin: PluginDescriptor<'source'>,
  className: string,
  timings: Timings,
): PluginDescriptor<'source'> {
  return {
    ...plugin,
    className,
    aliases: [],
    create: () => timedConnector(plugin.create(), timings),
  };
}

/** `inner`, keeping what its producers send to `topic`, each send call's records a batch. */
function capturingFactory(
  inner: KafkaClientFactory,
  topic: string,
  batches: OutgoingRecord[][],
): KafkaClientFactory {
  const keep = (records: readonly OutgoingRecord[]) => {
    const batch = records.filter((r) => r.topic === topic);
    if (batch.length > 0) batches.push(batch);
  };
  return {
    transactionalProducer: (id, options) => {
      const producer = inner.transactionalProducer(id, options);
      return {
        transactionalId: producer.transactionalId,
        connect: () => producer.connect(),
        begin: async () => {
          const tx = await producer.begin();
          return {
            send: (records) => {
              keep(records);
              return tx.send(records);
            },
            sendOffsets: (group, offsets) => tx.sendOffsets(group, offsets),
            commit: () => tx.commit(),
            abort: () => tx.abort(),
          };
        },
        close: () => producer.close(),
      };
    },
    idempotentProducer: (options) => {
      const producer = inner.idempotentProducer(options);
      return {
        connect: () => producer.connect(),
        send: (records) => {
          keep(records);
          return producer.send(records);
        },
        close: () => producer.close(),
      };
    },
    admin: (options) => inner.admin(options),
  };
}

/**
 * The records the runner produces for the first `count` records of the datagen connector
 * `config`, as kafkajs messages: one invocation of a twin connector (`<name>-capture`, writing
 * to `<topic>-capture`) through an engine of its own, whose Kafka clients keep what it sends.
 */
async function runnerRecords(
  store: StateStore,
  inner: KafkaClientFactory,
  config: Record<string, string>,
  settings: EngineSettings,
  count: number,
): Promise<Message[][]> {
  const name = `${config.name}-capture`;
  const topic = `${config['kafka.topic']}-capture`;
  const sent: OutgoingRecord[][] = [];
  const engine = createEngine({ store, kafka: capturingFactory(inner, topic, sent) }, settings);
  try {
    await engine.admin.createTopics([{ topic, partitions: 1 }]);
    // The built-in datagen: the same records as the timed one, untimed.
    const twin: Record<string, string> = {
      ...config,
      name,
      'connector.class': datagenDescriptor.className,
      'kafka.topic': topic,
    };
    await store.configs.createConnector(name, twin);
    const connector = datagenDescriptor.create();
    await connector.start(twin, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
    const set = await store.configs.putTaskConfigs(name, await connector.taskConfigs(1), 0);
    await connector.stop();
    const result = await runSourceInvocation(engine.source, {
      connector: name,
      task: 0,
      generation: set.tasks[0]?.generation ?? 0,
      owner: 'bench-capture',
      workerId: 'bench',
      deadline: Date.now() + 120_000,
    });
    if (result.records < count) {
      throw new Error(`the capture produced ${result.records} of ${count} records`);
    }
  } finally {
    await engine.close();
  }
  const buffer = (bytes: Uint8Array | null) => (bytes === null ? null : Buffer.from(bytes));
  const toMessage = (record: OutgoingRecord): Message => ({
    key: buffer(record.key),
    value: buffer(record.value),
    headers: Object.fromEntries(
      (record.headers ?? []).map((h) => [h.key, buffer(h.value) ?? undefined]),
    ),
    ...(record.timestamp === undefined ? {} : { timestamp: String(record.timestamp) }),
  });
  return sent.map((batch) => batch.map(toMessage));
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
  const timings = new Timings();
  const rawStore = createDynamoDbStateStore({ client, tableName });
  const inner = new KafkaJsClientFactory({ brokers, logLevel: logLevel.NOTHING });
  const settings: EngineSettings = {
    ...DEFAULT_ENGINE_SETTINGS,
    exactlyOnceSource: exactlyOnce,
    source: { maxRecordsPerInvocation: perRound },
  };
  // One warm container: its state store calls, producer steps and task polls timed.
  const engine: Engine = createEngine(
    {
      store: timedStore(rawStore, timings),
      kafka: timedKafkaFactory(inner, timings),
      pluginModules: testPlugins(
        timedSourceDescriptor(datagenDescriptor, 'bench.TimedDatagenSourceConnector', timings),
      ),
    },
    settings,
  );
  const connectorName = `bench-${name}-${Date.now().toString(36)}`;
  const topic = `${connectorName}-out`;
  await engine.admin.createTopics([{ topic, partitions: 1 }]);
  const config = {
    name: connectorName,
    'connector.class': 'bench.TimedDatagenSourceConnector',
    'kafka.topic': topic,
    quickstart: 'sequence',
    'source.partitions': '1',
    'records.per.poll': String(batch),
    'payload.bytes': '200',
    'value.converter.schemas.enable': 'false',
  };
  await rawStore.configs.createConnector(connectorName, config);
  const connector = datagenDescriptor.create();
  await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
  const taskConfigs = await connector.taskConfigs(1);
  await connector.stop();
  const set = await rawStore.configs.putTaskConfigs(connectorName, taskConfigs, 0);
  const generation = set.tasks[0]?.generation ?? 0;
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
  const sameRecords = await runnerRecords(rawStore, inner, config, settings, perRound);
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
          topic: settings.offsetsTopic,
          messages: [{ key: `["${connectorName}-floor",{"partition":0}]`, value: offsetJson }],
        },
      ],
    });
    await client.send(
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
    );
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
      const result = await runSourceInvocation(engine.source, {
        connector: connectorName,
        task: 0,
        generation,
        owner: `bench-${invocation}`,
        workerId: 'bench',
        deadline: Date.now() + 120_000,
      });
      if (result.outcome !== 'completed') {
        throw new Error(`invocation ended ${result.outcome}`, { cause: result.error });
      }
      return result.records;
    };
    await compareThroughput({
      name,
      unit: 'records',
      ours,
      baseline: () => bareRound(values),
      cost: { function: 'source-task', recordsPerInvocation: perRound },
    });
    // The steps above describe the first comparison's rounds only.
    await timings.report(name);
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
    await engine.close();
    await inner.close();
  }
}
