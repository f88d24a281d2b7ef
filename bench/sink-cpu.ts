/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: Connect's ${topic} placeholder */
/**
 * CPU per record of the S3 and Kafka sinks through the sink runtime, measured in this process
 * alone (`process.cpuUsage`: the broker, dynalite and s3rver run in processes of their own), on
 * the same input and settings as `s3-sink` and `kafka-sink` (bench/*-sink.bench.ts). Less
 * noisy than their wall-clock throughput on a shared machine: it counts the runtime's own work
 * (decode, convert, transform, format, the clients' encoding and the AWS SDK), not the waits.
 *
 *   KAFKA_BROKERS=127.0.0.1:9092 npx tsx bench/sink-cpu.ts [s3-sink] [kafka-sink]
 *   SINK_CPU_PROFILE=.prof npx tsx bench/sink-cpu.ts s3-sink   # + a V8 profile of ours
 *
 * Prints `<name>-cpu: ours=<ms> per 1,000 records (median of n rounds, range a-b) user=<ms>
 * wall=<n>/s` (user+system CPU, then user CPU alone: system time is mostly the sockets' writes),
 * and the same for the floor (the protocol's own calls with no runtime: the state read, the
 * baseline's writes, the offset writes; see sink-runner.ts), so that the difference is the
 * runtime's own CPU. `SINK_CPU_ROUNDS` sets the rounds (default 9).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { Kafka, logLevel, type Message } from 'kafkajs';
import { S3RVER_CREDENTIALS } from '../local/services/s3rver.js';
import { createDynamoDbStateStore } from '../shared/adapters/dynamodb/dynamodb-state-store.js';
import { retry } from '../shared/adapters/kafkajs/records.js';
import { KAFKA_SINK_CLASS } from '../shared/plugins/connectors/kafka-sink/descriptor.js';
import { systemClock } from '../shared/ports/clock.js';
import { dynaliteClient } from '../test/support/sink-campaign/dynamodb-target.js';
import { createTopic } from '../test/support/sink-campaign/input.js';
import { pathStyleS3Client } from '../test/support/sink-campaign/s3-target.js';
import { median } from './harness.js';
import { BenchServices } from './services.js';
import type { SinkBench, Slice } from './sink-runner.js';

const ROUNDS = Number(process.env.SINK_CPU_ROUNDS ?? 9);
// The sink bench holds one slice per round (plus the warm-up), counted when it loads.
process.env.BENCH_ROUNDS = String(ROUNDS);
const { forEachLimited, prepareSinkBench } = await import('./sink-runner.js');

interface Side {
  /** Writes one slice; resolves the records written. */
  run(slice: Slice): Promise<number>;
}

/** With `SINK_CPU_PROFILE=<dir>`: a V8 CPU profile of ours' timed rounds (the floor skipped). */
const PROFILE_DIR = process.env.SINK_CPU_PROFILE;

async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (PROFILE_DIR === undefined) return work();
  const session = new Session();
  session.connect();
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post('Profiler.enable');
  await post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    await mkdir(PROFILE_DIR, { recursive: true });
    const file = join(PROFILE_DIR, `${name}-${Date.now()}.cpuprofile`);
    await writeFile(file, JSON.stringify(profile));
    console.log(`${name}-cpu: profile of ours in ${file}`);
    session.disconnect();
  }
}

async function measure(name: string, bench: SinkBench, all: Record<string, Side>) {
  const sides = PROFILE_DIR === undefined ? all : { ours: all.ours as Side };
  const next = { ours: 0, floor: 0 } as Record<string, number>;
  const samples: Record<string, { cpu: number[]; user: number[]; rate: number[] }> = {};
  // Slice 0 is the warm-up of each side; then the sides alternate, one slice each per round.
  const rounds = async (from: number, to: number) => {
    for (let round = from; round <= to; round += 1) {
      for (const [side, work] of Object.entries(sides)) {
        const slice = bench.slices[next[side] ?? 0];
        next[side] = (next[side] ?? 0) + 1;
        if (slice === undefined) throw new Error(`no slice ${round} for ${side}`);
        const cpu = process.cpuUsage();
        const started = performance.now();
        const n = await work.run(slice);
        const wall = performance.now() - started;
        const used = process.cpuUsage(cpu);
        if (round === 0) continue;
        const list = samples[side] ?? { cpu: [], user: [], rate: [] };
        samples[side] = list;
        list.cpu.push(((used.user + used.system) / 1000 / n) * 1000);
        list.user.push((used.user / 1000 / n) * 1000);
        list.rate.push(n / (wall / 1000));
      }
    }
  };
  await rounds(0, 0);
  await profiled(name, () => rounds(1, ROUNDS));
  for (const [side, { cpu, user, rate }] of Object.entries(samples)) {
    const sorted = [...cpu].sort((a, b) => a - b);
    console.log(
      `${name}-cpu: ${side}=${median(cpu).toFixed(1)}ms per 1,000 records ` +
        `(median of ${cpu.length} rounds, range ${sorted[0]?.toFixed(1)}-${sorted.at(-1)?.toFixed(1)}) ` +
        `user=${median(user).toFixed(1)}ms wall=${Math.round(median(rate))}/s`,
    );
  }
}

/** The floor of one batch: the state read, `write`, each partition's offset write. */
function floorSide(
  bench: SinkBench,
  connector: string,
  write: (slice: Slice, batch: number) => Promise<unknown>,
): Side {
  const store = createDynamoDbStateStore({
    client: dynaliteClient(bench.dynamoEndpoint),
    tableName: `${bench.prefix}-state`,
    clock: systemClock,
  });
  return {
    async run(slice) {
      for (let b = 0; b < slice.batches.length; b += 1) {
        const partitions = [...new Set((slice.batches[b] ?? []).map((r) => r.partition))].map(
          (partition) => ({ topic: bench.topic, partition }),
        );
        if ((await store.status.getSinkSnapshot(connector, partitions)) === undefined) {
          throw new Error(`${connector} is missing`);
        }
        await write(slice, b);
        const next = new Map<number, number>();
        for (const r of slice.batches[b] ?? []) next.set(r.partition, r.offset + 1);
        await Promise.all(
          [...next].map(([partition, nextOffset]) =>
            store.offsets.commitSinkOffset(connector, {
              topic: bench.topic,
              partition,
              nextOffset,
            }),
          ),
        );
      }
      return slice.count;
    },
  };
}

async function s3Sink(services: BenchServices): Promise<void> {
  const flushSize = 250;
  const bench = await prepareSinkBench(services, {
    name: 's3-sink-cpu',
    partitions: 2,
    perRound: 5_000,
    batch: 500,
  });
  const s3 = pathStyleS3Client(bench.s3Endpoint, S3RVER_CREDENTIALS);
  const bucket = bench.prefix.toLowerCase();
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  const engine = bench.container();
  const connector = `${bench.prefix}-ours`;
  await bench.createConnector(connector, {
    name: connector,
    'connector.class': 'io.confluent.connect.s3.S3SinkConnector',
    topics: bench.topic,
    's3.bucket.name': bucket,
    's3.endpoint': bench.s3Endpoint,
    's3.path.style.access': 'true',
    'aws.access.key.id': 'S3RVER',
    'aws.secret.access.key': 'S3RVER',
    'topics.dir': 'ours',
    'flush.size': String(flushSize),
    'format.class': 'io.confluent.connect.s3.format.json.JsonFormat',
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
    'value.converter.schemas.enable': 'false',
  });
  const newline = new TextEncoder().encode('\n');
  const objects = bench.slices.map((slice) =>
    slice.batches.map((batch) => {
      const byKey = new Map<string, Uint8Array[]>();
      for (const r of batch) {
        const start = String(Math.floor(r.offset / flushSize) * flushSize).padStart(20, '0');
        const key = `floor/${r.topic}/partition=${r.partition}/${r.topic}+${r.partition}+${start}.json`;
        const lines = byKey.get(key) ?? [];
        byKey.set(key, lines);
        lines.push(r.value ?? new Uint8Array(), newline);
      }
      return [...byKey].map(([key, parts]) => ({ key, body: Buffer.concat(parts) }));
    }),
  );
  try {
    await measure('s3-sink', bench, {
      ours: { run: (slice) => bench.runOurs(engine, connector, slice) },
      floor: floorSide(bench, `${bench.prefix}-floor`, (slice, b) =>
        forEachLimited(objects[slice.index]?.[b] ?? [], 4, (o) =>
          s3.send(
            new PutObjectCommand({
              Bucket: bucket,
              Key: o.key,
              Body: o.body,
              ContentType: 'application/x-ndjson',
            }),
          ),
        ),
      ),
    });
  } finally {
    await bench.close();
    s3.destroy();
  }
}

async function kafkaSink(services: BenchServices): Promise<void> {
  const bench = await prepareSinkBench(services, {
    name: 'kafka-sink-cpu',
    partitions: 1,
    perRound: 10_000,
    batch: 500,
  });
  const engine = bench.container();
  const connector = `${bench.prefix}-ours`;
  await bench.createConnector(connector, {
    name: connector,
    'connector.class': KAFKA_SINK_CLASS,
    topics: bench.topic,
    'topic.rename.format': '${topic}.ours',
    'key.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
    'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
    'header.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
  });
  const kafka = new Kafka({ brokers: bench.brokers, logLevel: logLevel.NOTHING, retry });
  const bareTopic = `${bench.topic}.bare`;
  await createTopic(kafka, bareTopic, 1);
  const producer = kafka.producer({
    transactionalId: `${bench.prefix}-bare`,
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
  const batches = bench.slices.map((slice) =>
    slice.batches.map((batch) => ({
      messages: batch.map(
        (r): Message => ({
          partition: r.partition,
          key: r.key === null ? null : Buffer.from(r.key),
          value: r.value === null ? null : Buffer.from(r.value),
          timestamp: String(r.timestamp),
          headers: Object.fromEntries(
            r.headers.map((h) => [h.key, h.value === null ? '' : Buffer.from(h.value)]),
          ),
        }),
      ),
      next: String((batch[batch.length - 1]?.offset ?? -1) + 1),
    })),
  );
  try {
    await measure('kafka-sink', bench, {
      ours: { run: (slice) => bench.runOurs(engine, connector, slice) },
      floor: floorSide(bench, `${bench.prefix}-floor`, async (slice, b) => {
        const work = batches[slice.index]?.[b];
        if (work === undefined) return;
        const tx = await producer.transaction();
        await tx.send({ topic: bareTopic, messages: work.messages });
        await tx.sendOffsets({
          consumerGroupId: `${bench.prefix}-bare`,
          topics: [{ topic: bench.topic, partitions: [{ partition: 0, offset: work.next }] }],
        });
        await tx.commit();
      }),
    });
  } finally {
    await producer.disconnect();
    await bench.close();
  }
}

const wanted = process.argv.slice(2);
const services = new BenchServices();
try {
  if (wanted.length === 0 || wanted.includes('s3-sink')) await s3Sink(services);
  if (wanted.length === 0 || wanted.includes('kafka-sink')) await kafkaSink(services);
} finally {
  await services.close();
}
