import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import {
  type EsmSourceRecord,
  parseEsmEvent,
  toEsmEvent,
} from '../../../shared/adapters/lambda/esm-event.js';
import { RetriableError } from '../../../shared/connect/errors.js';
import type { Engine } from '../../../shared/engine/engine.js';
import { systemClock } from '../../../shared/ports/clock.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { runSinkInvocation } from '../../../shared/runtime/sink/sink-task-runner.js';
import { TASK_PARTITIONS_KEY } from '../../../shared/runtime/task/task-split.js';
import { testEngine } from '../../support/engine.js';
import { testPlugins } from '../../support/plugin-modules.js';
import {
  coordinatesOf,
  RECORDING_SINK_CLASS,
  RECORDING_SYSTEM_CONFIG,
  recordingSinkDescriptor,
  recordingSystem,
} from '../../support/recording-sink.js';
import { testDynamo, testKafka, uniqueName } from '../../support/services.js';
import { createTestTopic, readTopicRecords } from '../../support/topic-reader.js';

const decoder = new TextDecoder();
const text = (bytes: Uint8Array | Buffer | null | undefined) =>
  bytes === null || bytes === undefined ? null : decoder.decode(bytes);

/** Produces `perPartition` records to each partition, then reads them back as raw records. */
async function produceAndRead(
  topic: string,
  partitions: number,
  perPartition: number,
  valueAt: (partition: number, i: number) => string,
): Promise<EsmSourceRecord[]> {
  const producer = testKafka().producer();
  await producer.connect();
  for (let p = 0; p < partitions; p += 1) {
    await producer.send({
      topic,
      messages: Array.from({ length: perPartition }, (_, i) => ({
        partition: p,
        key: `k-${p}-${i}`,
        value: valueAt(p, i),
        headers: { seq: String(i), trace: ['a', 'b'] },
      })),
    });
  }
  await producer.disconnect();
  const read = await readTopicRecords(topic, partitions * perPartition);
  return read.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

/** The records of `partition` with offsets `from..to`. */
const slice = (all: readonly EsmSourceRecord[], partition: number, from: number, to: number) =>
  all.filter((r) => r.partition === partition && r.offset >= from && r.offset <= to);

describe('sink runner (real broker + dynalite)', () => {
  let store: StateStore;
  let factory: KafkaJsClientFactory;
  const engines: { close(): Promise<void> }[] = [];

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

  /** A warm container: an engine of its own over the shared state, with the recording sink. */
  async function container(): Promise<Engine> {
    const built = await testEngine({
      store,
      kafka: factory,
      pluginModules: testPlugins(recordingSinkDescriptor),
    });
    engines.push(built);
    return built.engine;
  }

  async function createSink(topic: string, partitions: number, extra: Record<string, string>) {
    const name = uniqueName('sink');
    const system = uniqueName('system');
    const config = {
      name,
      'connector.class': RECORDING_SINK_CLASS,
      topics: topic,
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
      [RECORDING_SYSTEM_CONFIG]: system,
      ...extra,
    };
    await store.configs.createConnector(name, config);
    const ids = Array.from({ length: partitions }, (_, p) => `${topic}-${p}`).join(',');
    await store.configs.putTaskConfigs(name, [{ ...config, [TASK_PARTITIONS_KEY]: ids }], 0);
    return { name, system: recordingSystem(system) };
  }

  const deliver = (engine: Engine, connector: string, batch: EsmSourceRecord[]) =>
    runSinkInvocation(engine.sink, {
      connector,
      records: () =>
        parseEsmEvent(JSON.parse(JSON.stringify(toEsmEvent(batch, { eventSource: 'aws:kafka' })))),
      deadline: Date.now() + 30_000,
      workerId: 'it-worker',
    });

  it('writes every record exactly once across a crash mid-put and redeliveries with other boundaries', async () => {
    const topic = uniqueName('orders');
    await createTestTopic(topic, 2);
    const all = await produceAndRead(topic, 2, 30, (p, i) => `value-${p}-${i}`);
    const { name, system } = await createSink(topic, 2, {});
    const warm = await container();

    await deliver(warm, name, [...slice(all, 0, 0, 9), ...slice(all, 1, 0, 4)]);
    system.failNextPut = {
      partition: `${topic}-0`,
      offset: 15,
      error: new RetriableError('connection reset by the external system'),
    };
    await expect(deliver(warm, name, slice(all, 0, 10, 19))).rejects.toMatchObject({
      retriable: true,
    });
    // The container is recycled; the mapping redelivers from its committed positions, with
    // other batch boundaries, then once more from the start (a lost group commit).
    const cold = await container();
    await deliver(cold, name, [...slice(all, 0, 10, 29), ...slice(all, 1, 5, 17)]);
    await deliver(cold, name, slice(all, 1, 18, 29));
    const stale = await deliver(cold, name, all);

    expect(stale).toMatchObject({ written: 0, skipped: 60 });
    const committed = coordinatesOf(system.committed);
    expect(new Set(committed).size).toBe(committed.length);
    expect([...committed].sort()).toEqual(
      all.map((r) => `${r.topic}-${r.partition}@${r.offset}`).sort(),
    );
    for (const p of [0, 1]) {
      const rows = system.rows.get(`${topic}-${p}`);
      expect(rows?.size).toBe(30);
      expect(rows?.get(slice(all, p, 0, 99)[29]?.offset ?? -1)?.value).toBe(`value-${p}-29`);
    }
    const stored = await store.offsets.getSinkOffsets(name);
    // The next offset to read: the one after each partition's last record.
    expect(stored.map((o) => [o.partition, o.nextOffset])).toEqual([
      [0, (slice(all, 0, 0, 99)[29]?.offset ?? Number.NaN) + 1],
      [1, (slice(all, 1, 0, 99)[29]?.offset ?? Number.NaN) + 1],
    ]);
    const header = system.committed[0]?.headers.allWithName('trace').map((h) => h.value);
    expect(header).toEqual(['a', 'b']);
  });

  it('writes a bad record to the DLQ topic with context headers under errors.tolerance=all', async () => {
    const topic = uniqueName('events');
    const dlqTopic = `${topic}-dlq`;
    await createTestTopic(topic, 1);
    const all = await produceAndRead(topic, 1, 5, (_p, i) => (i === 2 ? '{oops' : `{"n":${i}}`));
    const { name, system } = await createSink(topic, 1, {
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': dlqTopic,
      'errors.deadletterqueue.topic.replication.factor': '1',
      'errors.deadletterqueue.context.headers.enable': 'true',
    });
    const sink = await container();

    const summary = await deliver(sink, name, all);

    expect(summary).toMatchObject({ written: 4, dlq: 1 });
    expect(system.committed.map((r) => r.originalKafkaOffset)).toEqual(
      all.filter((r) => r.offset !== all[2]?.offset).map((r) => r.offset),
    );
    const [dead] = await readTopicRecords(dlqTopic, 1);
    expect(text(dead?.value)).toBe('{oops');
    expect(text(dead?.key)).toBe('k-0-2');
    // A header with several values (trace) as an array, as kafkajs shows it.
    const headers: Record<string, string | null | (string | null)[]> = {};
    for (const { key, value } of dead?.headers ?? []) {
      const previous = headers[key];
      headers[key] =
        previous === undefined
          ? text(value)
          : [...(Array.isArray(previous) ? previous : [previous]), text(value)];
    }
    expect(headers).toMatchObject({
      seq: '2',
      trace: ['a', 'b'],
      '__connect.errors.topic': topic,
      '__connect.errors.partition': '0',
      '__connect.errors.offset': String(all[2]?.offset),
      '__connect.errors.connector.name': name,
      '__connect.errors.task.id': '0',
      '__connect.errors.stage': 'VALUE_CONVERTER',
      '__connect.errors.exception.class.name': 'DataError',
    });
  });
});
