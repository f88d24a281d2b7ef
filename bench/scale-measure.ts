import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { logLevel } from 'kafkajs';
import { itemSize } from '../shared/adapters/dynamodb/attributes.js';
import { createDynamoDbStateStore } from '../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../shared/adapters/dynamodb/ensure-table.js';
import { DynamoTable } from '../shared/adapters/dynamodb/table.js';
import { KEYS } from '../shared/adapters/dynamodb/table-schema.js';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';
import { MemorySinkMappings } from '../shared/adapters/memory/memory-sink-mappings.js';
import { createEngine, DEFAULT_ENGINE_SETTINGS } from '../shared/engine/engine.js';
import { datagenDescriptor } from '../shared/plugins/connectors/datagen/descriptor.js';
import type { SourceTaskInvocation } from '../shared/ports/dispatch.js';
import type { StateStore } from '../shared/ports/state-store.js';
import { runSourceInvocation } from '../shared/runtime/source/source-task-runner.js';
import { mapLimit } from '../shared/runtime/task/concurrency.js';
import { withTaskSplit } from '../shared/runtime/task/task-split.js';
import { median, percentile } from './harness.js';
import {
  type MeteredRequest,
  RequestMeter,
  type RequestTally,
  sumUnits,
  tally,
} from './scale-meter.js';
import type { BenchServices } from './services.js';

/** A state read measured: its requests (Query pages), units, bytes returned, latency. */
export interface ReadSample {
  readonly requests: number;
  readonly units: number;
  /** Bytes of the items the read covered, whole (what DynamoDB bills and pages by). */
  readonly itemBytes: number;
  readonly returnedBytes: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface SinkStateSample {
  readonly partitions: number;
  readonly tasks: number;
  /** Median write units of one sink-offset commit. */
  readonly commitUnits: number;
  /** Bytes by item kind (`SINKOFFSET`, `TASK#`, `TASKS`, …): the mean item size. */
  readonly itemBytes: Record<string, number>;
  readonly status: ReadSample;
  /** The sink invocation's state read of a batch holding one partition. */
  readonly sinkRead: ReadSample;
}

export interface SourceSample {
  /** Source partitions the task's offsets hold. */
  readonly sourcePartitions: number;
  readonly transactions: number;
  /** Requests of the whole invocation by kind. */
  readonly requests: RequestTally;
  /** Median write units of a transaction's offsets write. */
  readonly txUnits: number;
  /** Bytes of the task's `TASK#` item afterwards (committed and pending offsets). */
  readonly taskItemBytes: number;
}

export interface EnumeratorSample {
  readonly kind: 'source' | 'sink';
  readonly connectors: number;
  readonly tasks: number;
  /** Topic partitions (sinks) or source partitions (sources) per connector. */
  readonly partitions: number;
  /** The steady run (the second): nothing changed since the first. */
  readonly requests: RequestTally;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  /** Source-task invocations the run queued. */
  readonly dispatched: number;
}

export interface ScaleMeasurements {
  readonly sinkState: SinkStateSample[];
  readonly source: SourceSample[];
  readonly enumerator: EnumeratorSample[];
}

const READS = 15;
const WRITE_UNITS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

function dynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

async function freshStore(
  endpoint: string,
  label: string,
): Promise<{ client: DynamoDBClient; meter: RequestMeter; store: StateStore; table: DynamoTable }> {
  const client = dynamoClient(endpoint);
  const tableName = `scale-${label}-${Date.now().toString(36)}`;
  await ensureTable(client, tableName);
  const meter = new RequestMeter(client);
  return {
    client,
    meter,
    store: createDynamoDbStateStore({ client, tableName }),
    table: new DynamoTable(client, tableName),
  };
}

/** Mean item size by kind (the sort key up to its first `#`, kept) of a connector's partition. */
async function itemBytesByKind(
  table: DynamoTable,
  connector: string,
): Promise<Record<string, number>> {
  const items = await table.query(KEYS.connectorPk(connector), undefined, 'sizes');
  const sums = new Map<string, { bytes: number; n: number }>();
  for (const item of items) {
    const sk = item.sk?.S ?? '';
    const kind = sk.includes('#') ? `${sk.slice(0, sk.indexOf('#'))}#` : sk;
    const entry = sums.get(kind) ?? { bytes: 0, n: 0 };
    entry.bytes += itemSize(item);
    entry.n += 1;
    sums.set(kind, entry);
  }
  return Object.fromEntries([...sums].map(([kind, { bytes, n }]) => [kind, Math.round(bytes / n)]));
}

async function sampleRead(
  meter: RequestMeter,
  itemBytes: number,
  read: () => Promise<unknown>,
): Promise<ReadSample> {
  await read();
  meter.reset();
  const times: number[] = [];
  let seen: MeteredRequest[] = [];
  for (let i = 0; i < READS; i += 1) {
    const started = performance.now();
    await read();
    times.push(performance.now() - started);
    seen = meter.take();
  }
  return {
    requests: seen.length,
    units: sumUnits(seen),
    itemBytes,
    returnedBytes: seen.reduce((sum, r) => sum + r.bytes, 0),
    p50Ms: median(times),
    p99Ms: percentile(times, 99),
  };
}

const TOPIC = 'orders-events';

function sinkConfig(tasks: number): Record<string, string> {
  return {
    'connector.class': 's3-sink',
    topics: TOPIC,
    's3.bucket.name': 'lake',
    'format.class': 'json',
    'flush.size': '1000',
    'tasks.max': String(tasks),
  };
}

/** Task configs as the enumerator writes them for a sink: partitions dealt round robin. */
function sinkTaskConfigs(tasks: number, partitions: number): Record<string, string>[] {
  const base = sinkConfig(tasks);
  return Array.from({ length: tasks }, (_, task) => {
    const ids: string[] = [];
    for (let p = task; p < partitions; p += tasks) ids.push(`${TOPIC}-${p}`);
    return withTaskSplit({ ...base, 'task.id': String(task) }, ids, new Map());
  });
}

/** The state a sink connector of `tasks` tasks over `partitions` partitions keeps, and its reads. */
export async function measureSinkState(
  endpoint: string,
  partitionsList: readonly number[],
  tasksList: readonly number[],
): Promise<SinkStateSample[]> {
  const { client, meter, store, table } = await freshStore(endpoint, 'sink');
  const samples: SinkStateSample[] = [];
  try {
    for (const partitions of partitionsList) {
      for (const tasks of tasksList) {
        const name = `sink-${partitions}-${tasks}`;
        const configs = sinkTaskConfigs(tasks, partitions);
        await store.configs.createConnector(name, sinkConfig(tasks));
        await store.configs.putTaskConfigs(name, configs, 0);
        await store.status.putConnectorStatus(name, { state: 'RUNNING', workerId: 'bench' });
        await mapLimit(
          Array.from({ length: tasks }, (_, task) => task),
          16,
          (task) =>
            store.status.putTaskStatus(
              { connector: name, task },
              {
                state: 'RUNNING',
                workerId: 'arn:aws:lambda:us-east-1:123456789012:function:sink-task:live',
              },
            ),
        );
        meter.reset();
        await mapLimit(
          Array.from({ length: partitions }, (_, p) => p),
          16,
          (partition) =>
            store.offsets.commitSinkOffset(name, {
              topic: TOPIC,
              partition,
              nextOffset: 1_234_567,
            }),
        );
        const commits = meter.take().filter((r) => r.kind === 'UpdateItem');
        const itemBytes = await itemBytesByKind(table, name);
        const all = await table.query(KEYS.connectorPk(name), undefined, 'sizes');
        const bytesOf = (keep: (sk: string) => boolean) =>
          all.filter((i) => keep(i.sk?.S ?? '')).reduce((sum, i) => sum + itemSize(i), 0);
        // Both reads cover the CONNECTOR..TASKS sort-key range (status-store.ts).
        const rangeBytes = bytesOf((sk) => sk >= KEYS.connectorSk && sk <= KEYS.tasksSk);
        const status = await sampleRead(meter, rangeBytes, () =>
          store.status.getConnectorSnapshot(name),
        );
        const sinkRead = await sampleRead(meter, rangeBytes, () =>
          store.status.getSinkSnapshot(name, [{ topic: TOPIC, partition: partitions - 1 }]),
        );
        samples.push({
          partitions,
          tasks,
          commitUnits: median(commits.map((r) => r.units)),
          itemBytes,
          status,
          sinkRead,
        });
      }
    }
  } finally {
    client.destroy();
  }
  return samples;
}

/**
 * One real exactly-once source invocation (datagen, the engine as Lambda builds it, dynalite
 * state, the test broker) per size of its offsets, its DynamoDB requests metered.
 */
export async function measureSource(
  services: BenchServices,
  sourcePartitionsList: readonly number[],
): Promise<SourceSample[]> {
  const { brokers } = await services.kafka();
  const { endpoint } = await services.dynamo();
  const { client, meter, store, table } = await freshStore(endpoint, 'source');
  const kafka = new KafkaJsClientFactory({ brokers, logLevel: logLevel.NOTHING });
  const transactions = 10;
  const perPoll = 500;
  const engine = createEngine(
    { store, kafka },
    { ...DEFAULT_ENGINE_SETTINGS, source: { maxRecordsPerInvocation: transactions * perPoll } },
  );
  const samples: SourceSample[] = [];
  try {
    for (const sourcePartitions of sourcePartitionsList) {
      const name = `scale-src-${sourcePartitions}-${Date.now().toString(36)}`;
      const topic = `${name}-out`;
      await engine.admin.createTopics([{ topic, partitions: 1 }]);
      const config = {
        name,
        'connector.class': datagenDescriptor.className,
        'kafka.topic': topic,
        quickstart: 'sequence',
        'source.partitions': String(sourcePartitions),
        'records.per.poll': String(perPoll),
        'payload.bytes': '100',
        'value.converter.schemas.enable': 'false',
      };
      await store.configs.createConnector(name, config);
      const connector = datagenDescriptor.create();
      await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
      const set = await store.configs.putTaskConfigs(name, await connector.taskConfigs(1), 0);
      await connector.stop();
      meter.reset();
      const result = await runSourceInvocation(engine.source, {
        connector: name,
        task: 0,
        generation: set.tasks[0]?.generation ?? 0,
        owner: `bench-${sourcePartitions}`,
        workerId: 'bench',
        deadline: Date.now() + 120_000,
      });
      const requests = meter.take();
      const updates = requests.filter((r) => r.kind === 'UpdateItem').map((r) => r.units);
      const task =
        (await table.get(
          { pk: { S: KEYS.connectorPk(name) }, sk: { S: KEYS.taskSk(0) } },
          'size',
        )) ?? {};
      samples.push({
        sourcePartitions,
        transactions: Math.round(result.records / perPoll),
        requests: tally(requests),
        txUnits: median(updates),
        taskItemBytes: itemSize(task),
      });
    }
  } finally {
    await engine.close();
    await kafka.close();
    client.destroy();
  }
  return samples;
}

/** A recording invoker: the enumerator's dispatches are counted, nothing runs. */
class CountingInvoker {
  count = 0;
  async invoke(_invocation: SourceTaskInvocation): Promise<void> {
    this.count += 1;
  }
}

export interface EnumeratorCase {
  readonly kind: 'source' | 'sink';
  readonly connectors: number;
  readonly tasks: number;
  readonly partitions: number;
}

/**
 * The enumerator's full run (`reconcileAll`, as the schedule calls it) over `connectors`
 * connectors of one kind on a table of their own: the first run writes task configs and
 * statuses, the second (measured) finds nothing to change, as most scheduled runs do. Sinks read
 * a real topic of `partitions` partitions; sources are datagen with `partitions` source
 * partitions.
 */
export async function measureEnumerator(
  services: BenchServices,
  cases: readonly EnumeratorCase[],
): Promise<EnumeratorSample[]> {
  const { brokers } = await services.kafka();
  const { endpoint } = await services.dynamo();
  const kafka = new KafkaJsClientFactory({ brokers, logLevel: logLevel.NOTHING });
  const samples: EnumeratorSample[] = [];
  const topics = new Map<number, string>();
  try {
    for (const c of cases) {
      const { client, meter, store } = await freshStore(endpoint, 'enum');
      const invoker = new CountingInvoker();
      const engine = createEngine(
        { store, kafka, invoker, mappings: new MemorySinkMappings() },
        DEFAULT_ENGINE_SETTINGS,
      );
      try {
        let topic = topics.get(c.partitions);
        if (c.kind === 'sink' && topic === undefined) {
          topic = `scale-enum-p${c.partitions}-${Date.now().toString(36)}`;
          await engine.admin.createTopics([{ topic, partitions: c.partitions }]);
          topics.set(c.partitions, topic);
        }
        for (let i = 0; i < c.connectors; i += 1) {
          const name = `${c.kind}-${String(i).padStart(4, '0')}`;
          const config =
            c.kind === 'sink'
              ? {
                  name,
                  'connector.class': 's3-sink',
                  topics: topic ?? '',
                  's3.bucket.name': 'lake',
                  'format.class': 'json',
                  'flush.size': '1000',
                  'tasks.max': String(c.tasks),
                }
              : {
                  name,
                  'connector.class': datagenDescriptor.className,
                  'kafka.topic': `${name}-out`,
                  'source.partitions': String(c.partitions),
                  'tasks.max': String(c.tasks),
                };
          await store.configs.createConnector(name, config);
        }
        await engine.enumerator.reconcileAll();
        meter.reset();
        invoker.count = 0;
        const cpu = process.cpuUsage();
        const started = performance.now();
        const reports = await engine.enumerator.reconcileAll();
        const wallMs = performance.now() - started;
        const used = process.cpuUsage(cpu);
        const failed = reports.filter((r) => r.error !== undefined);
        if (failed.length > 0) throw new Error(`enumerator failed: ${failed[0]?.error}`);
        const requests = meter.take();
        samples.push({
          ...c,
          requests: tally(requests),
          readUnits: sumUnits(requests.filter((r) => !WRITE_UNITS.has(r.kind))),
          writeUnits: sumUnits(requests.filter((r) => WRITE_UNITS.has(r.kind))),
          wallMs,
          cpuMs: (used.user + used.system) / 1000,
          dispatched: invoker.count,
        });
      } finally {
        await engine.close();
        client.destroy();
      }
    }
  } finally {
    await kafka.close();
  }
  return samples;
}
