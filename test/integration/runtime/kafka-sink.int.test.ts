/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: Connect's ${topic} placeholder */
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
import { KAFKA_SINK_CLASS } from '../../../shared/plugins/connectors/kafka-sink/descriptor.js';
import type {
  KafkaSinkPartitionCounts,
  KafkaSinkTask,
} from '../../../shared/plugins/connectors/kafka-sink/kafka-sink-task.js';
import { systemClock } from '../../../shared/ports/clock.js';
import type {
  KafkaAdminPort,
  KafkaClientFactory,
  TransactionalProducer,
} from '../../../shared/ports/kafka.js';
import type { OffsetStore } from '../../../shared/ports/offset-store.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { runSinkInvocation } from '../../../shared/runtime/sink/sink-task-runner.js';
import { TASK_PARTITIONS_KEY } from '../../../shared/runtime/task/task-split.js';
import { testEngine } from '../../support/engine.js';
import { testDynamo, testKafka, uniqueName } from '../../support/services.js';
import { createTestTopic, readTopicRecords } from '../../support/topic-reader.js';

const BYTES = 'org.apache.kafka.connect.converters.ByteArrayConverter';
const decoder = new TextDecoder();

/** mulberry32: the randomized schedule is reproducible from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Produces `perPartition` records to each partition and reads them back, by partition. */
async function produce(
  topic: string,
  partitions: number,
  perPartition: number,
  valueAt: (p: number, i: number) => string,
): Promise<EsmSourceRecord[][]> {
  await createTestTopic(topic, partitions);
  const producer = testKafka().producer();
  await producer.connect();
  for (let p = 0; p < partitions; p += 1) {
    await producer.send({
      topic,
      messages: Array.from({ length: perPartition }, (_, i) => ({
        partition: p,
        key: `k-${p}-${i % 17}`,
        value: valueAt(p, i),
        timestamp: String(1_700_000_000_000 + p * 1_000 + i),
        headers: { seq: String(i), trace: ['a', `b${i}`] },
      })),
    });
  }
  await producer.disconnect();
  const read = await readTopicRecords(topic, partitions * perPartition, 500);
  return Array.from({ length: partitions }, (_, p) =>
    read.filter((r) => r.partition === p).sort((a, b) => a.offset - b.offset),
  );
}

/** What a record is, wherever it is: key, value, headers and timestamp. */
const content = (r: EsmSourceRecord) => ({
  key: r.key === null ? null : decoder.decode(r.key),
  value: r.value === null ? null : decoder.decode(r.value),
  headers: r.headers.map((h) => [h.key, h.value === null ? null : decoder.decode(h.value)]),
  timestamp: r.timestamp,
});

/** `inner`, whose next transaction commit can be held until the test releases it. */
function holdingFactory(inner: KafkaClientFactory) {
  let held: { reached: () => void; release: Promise<void> } | undefined;
  const factory: KafkaClientFactory = {
    idempotentProducer: (options) => inner.idempotentProducer(options),
    admin: (options) => inner.admin(options),
    transactionalProducer: (id, options): TransactionalProducer => {
      const producer = inner.transactionalProducer(id, options);
      return {
        transactionalId: producer.transactionalId,
        connect: () => producer.connect(),
        close: () => producer.close(),
        begin: async () => {
          const tx = await producer.begin();
          return {
            send: (records) => tx.send(records),
            sendOffsets: (group, offsets) => tx.sendOffsets(group, offsets),
            abort: () => tx.abort(),
            commit: async () => {
              const hold = held;
              held = undefined;
              if (hold !== undefined) {
                hold.reached();
                await hold.release;
              }
              await tx.commit();
            },
          };
        },
      };
    },
  };
  return {
    factory,
    /** Holds the next commit: `reached` resolves when it is held, `release` lets it go. */
    holdNextCommit() {
      let release = () => {};
      let reached = () => {};
      const reachedPromise = new Promise<void>((resolve) => {
        reached = resolve;
      });
      held = { reached, release: new Promise<void>((resolve) => (release = resolve)) };
      return { reached: reachedPromise, release: () => release() };
    },
  };
}

/** The offset store, whose next sink offset write fails once (after the Kafka commit). */
function crashingOffsets(offsets: OffsetStore) {
  const state = { crashNext: false };
  const wrapped = new Proxy(offsets, {
    get(target, prop) {
      if (prop === 'commitSinkOffset') {
        return async (...args: Parameters<OffsetStore['commitSinkOffset']>) => {
          if (state.crashNext) {
            state.crashNext = false;
            throw new RetriableError('the container died before the sink offset was written');
          }
          return target.commitSinkOffset(...args);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { offsets: wrapped, state };
}

describe('Kafka sink (real broker + dynalite)', () => {
  let store: StateStore;
  let factory: KafkaJsClientFactory;
  let admin: KafkaAdminPort;
  const prefix = uniqueName('it');

  beforeAll(async () => {
    const client = testDynamo();
    const tableName = uniqueName('state');
    await ensureTable(client, tableName);
    store = createDynamoDbStateStore({ client, tableName, clock: systemClock });
    factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
    admin = factory.admin();
  });

  afterAll(async () => {
    for (const built of engines) await built.close();
    await admin.close();
    await factory.close();
  });

  const engines: { close(): Promise<void> }[] = [];

  /**
   * One warm container: an engine of its own over the shared state, whose sink offset writes
   * can be made to crash, and over `kafka` (the shared clients by default).
   */
  async function container(options: { kafka?: KafkaClientFactory } = {}) {
    const crash = crashingOffsets(store.offsets);
    const built = await testEngine({
      store: { ...store, offsets: crash.offsets },
      kafka: options.kafka ?? factory,
      settings: { transactionalIdPrefix: prefix },
    });
    engines.push(built);
    return { engine: built.engine, crash };
  }

  /** Stores a Kafka sink connector: task 0 owns partitions 0 and 1, task 1 the others. */
  async function createSink(topic: string, partitions: number, extra: Record<string, string>) {
    const name = uniqueName('mirror');
    const config = {
      name,
      'connector.class': KAFKA_SINK_CLASS,
      topics: topic,
      'key.converter': BYTES,
      'value.converter': BYTES,
      'header.converter': BYTES,
      ...extra,
    };
    await store.configs.createConnector(name, config);
    const ids = Array.from({ length: partitions }, (_, p) => `${topic}-${p}`);
    await store.configs.putTaskConfigs(
      name,
      [
        { ...config, [TASK_PARTITIONS_KEY]: ids.slice(0, 2).join(',') },
        { ...config, [TASK_PARTITIONS_KEY]: ids.slice(2).join(',') },
      ],
      0,
    );
    return name;
  }

  const deliver = (engine: Engine, connector: string, batch: readonly EsmSourceRecord[]) =>
    runSinkInvocation(engine.sink, {
      connector,
      records: () =>
        parseEsmEvent(JSON.parse(JSON.stringify(toEsmEvent(batch, { eventSource: 'aws:kafka' })))),
      deadline: Date.now() + 60_000,
      workerId: 'it-worker',
    });

  const countsOf = (engine: Engine, connector: string, task: number, partition: string) =>
    (engine.sink.tasks.peek({ connector, task })?.task as KafkaSinkTask | undefined)
      ?.counts()
      .get(partition) as KafkaSinkPartitionCounts | undefined;

  it('mirrors every record exactly once across crashes, other batch boundaries and overlapping invocations', async () => {
    // Prepare
    const topic = uniqueName('orders');
    const output = `${topic}.replica`;
    const perPartition = 100;
    const input = await produce(topic, 3, perPartition, (p, i) => `value-${p}-${i}`);
    const name = await createSink(topic, 3, { 'topic.rename.format': '${topic}.replica' });
    const at = (p: number, from: number, to: number) =>
      (input[p] ?? []).slice(from, Math.min(to, perPartition - 1) + 1);

    // Act (c): two overlapping invocations of partition 0. A holds its commit while B, in
    // another container, initialises the same transactional id (fencing A) and commits.
    const holding = holdingFactory(factory);
    const a = await container({ kafka: holding.factory });
    const b = await container();
    const hold = holding.holdNextCommit();
    const first = deliver(a.engine, name, at(0, 0, 19));
    await hold.reached;
    await deliver(b.engine, name, at(0, 0, 29));
    hold.release();
    await expect(first).rejects.toBeInstanceOf(RetriableError);
    await expect(first).rejects.toMatchObject({
      cause: { message: expect.stringMatching(/fenced by a newer invocation/) },
    });
    await deliver(a.engine, name, at(0, 0, 19)); // redelivered: the runner skips it (stored offset)
    expect(countsOf(b.engine, name, 0, `${topic}-0`)).toMatchObject({ written: 30 });

    // Act (a): a crash after the Kafka commit but before the sink offset write; the redelivery
    // in another container, with other boundaries, skips what the group committed.
    a.crash.state.crashNext = true;
    await expect(deliver(a.engine, name, at(1, 0, 24))).rejects.toBeInstanceOf(RetriableError);
    const cold = await container();
    await deliver(cold.engine, name, [...at(1, 10, 39), ...at(2, 0, 4)]);
    expect(countsOf(cold.engine, name, 0, `${topic}-1`)).toEqual({
      written: 15,
      skipped: 15,
      transactions: 1,
    });

    // Act (b): randomized batches, redeliveries from earlier positions, crashes and recycled
    // containers, until every partition was delivered to its end.
    const seed = 20_240_611;
    const random = prng(seed);
    const position = [30, 40, 5];
    let current = cold;
    const schedule = { crashes: 0, rewinds: 0, recycled: 0 };
    for (let step = 0; step < 200 && position.some((p) => p < perPartition); step += 1) {
      if (random() < 0.15) {
        current = await container();
        schedule.recycled += 1;
      }
      const batch: EsmSourceRecord[] = [];
      const ends = new Map<number, number>();
      for (const p of [0, 1, 2]) {
        const pos = position[p] ?? perPartition;
        if (pos >= perPartition || random() < 0.3) continue;
        const from = random() < 0.2 ? Math.floor(random() * pos) : pos;
        if (from < pos) schedule.rewinds += 1;
        const to = from + Math.floor(random() * 40);
        batch.push(...at(p, from, to));
        ends.set(p, Math.min(to, perPartition - 1) + 1);
      }
      if (batch.length === 0) continue;
      const crash = random() < 0.25;
      current.crash.state.crashNext = crash;
      if (crash) schedule.crashes += 1;
      try {
        await deliver(current.engine, name, batch);
        for (const [p, end] of ends) position[p] = Math.max(position[p] ?? 0, end);
      } catch (error) {
        expect(crash, `seed ${seed}, step ${step}: ${String(error)}`).toBe(true);
      }
    }
    const stale = await deliver((await container()).engine, name, input.flat());

    // Assess
    expect(position).toEqual([perPartition, perPartition, perPartition]);
    expect(schedule.crashes * schedule.rewinds * schedule.recycled).toBeGreaterThan(0);
    expect(stale).toMatchObject({ written: 0, skipped: 3 * perPartition });
    const mirrored = await readTopicRecords(output, 3 * perPartition, 500);
    expect(mirrored).toHaveLength(3 * perPartition);
    for (const p of [0, 1, 2]) {
      const got = mirrored.filter((r) => r.partition === p).sort((x, y) => x.offset - y.offset);
      expect(got.map(content)).toEqual((input[p] ?? []).map(content));
    }
    const group = await admin.committedOffsets(`connect-${name}`, topic);
    const ends = await admin.endOffsets(topic);
    expect(group.sort((x, y) => x.partition - y.partition)).toEqual(
      ends.sort((x, y) => x.partition - y.partition),
    );
  });

  it('writes a renamed topic, created with the input’s partitions, through the JSON converter', async () => {
    // Prepare
    const topic = uniqueName('events');
    const output = `mirror.${topic}`;
    const input = await produce(topic, 2, 20, (p, i) =>
      JSON.stringify({ partition: p, n: i, tags: ['x', `t${i}`], nested: { ok: i % 2 === 0 } }),
    );
    const name = await createSink(topic, 2, {
      'topic.rename.format': 'mirror.${topic}',
      'output.partition': 'key',
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
      'header.converter': 'org.apache.kafka.connect.storage.StringConverter',
    });
    const { engine } = await container();

    // Act
    await deliver(engine, name, [...(input[0] ?? []).slice(0, 12), ...(input[1] ?? [])]);
    await deliver(engine, name, (input[0] ?? []).slice(8));

    // Assess
    expect((await admin.partitionCounts([output])).get(output)).toBe(2);
    const mirrored = await readTopicRecords(output, 40, 500);
    expect(mirrored).toHaveLength(40);
    const parsed = (records: readonly EsmSourceRecord[]) =>
      records
        .map((r) => ({ ...content(r), value: JSON.parse(content(r).value ?? 'null') }))
        .sort((x, y) => x.timestamp - y.timestamp);
    expect(parsed(mirrored)).toEqual(parsed(input.flat()));
    // Per key, records keep their input order.
    for (const key of new Set(mirrored.map((r) => content(r).key))) {
      const ofKey = mirrored.filter((r) => content(r).key === key);
      expect(new Set(ofKey.map((r) => r.partition)).size).toBe(1);
      const times = ofKey.sort((x, y) => x.offset - y.offset).map((r) => r.timestamp);
      expect(times).toEqual([...times].sort((x, y) => x - y));
    }
  });
});
