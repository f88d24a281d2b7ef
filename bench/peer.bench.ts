/**
 * `peer`: our runtime against a real Apache Kafka Connect 4.3.1 distributed worker, on the same
 * broker, in the same run, rounds alternating between the two. See docs/benchmarks.md ("Peer
 * benchmark") for what is compared and why it is fair.
 *
 * - `peer-source-1task`, `peer-source-4tasks`: Apache's VerifiableSourceConnector on the worker
 *   (exactly.once.source.support=enabled) against our verifiable-source, the same connector JSON
 *   (bench/peer/connectors.ts), `transaction.boundary=interval`; a fresh topic per round; the
 *   clock runs from the first committed record until the topic's read_committed end offsets
 *   reach the count.
 * - `peer-replication`: Apache's MirrorSourceConnector (exactly once) against our kafka-sink,
 *   copying the same pre-filled 4-partition topic of 1 KB records; the clock runs from the first
 *   committed record in the target until its read_committed end offsets reach the count.
 *
 * Each side is one process whose CPU (user + system) and memory are read from /proc: the
 * Connect worker's JVM, and our `local/main.ts` (its DynamoDB, dynalite, runs in a process of
 * its own and is excluded, as the broker is). Workers start once per run, not per round.
 */
import { randomBytes } from 'node:crypto';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import { waitForTopicLeaders } from '../shared/adapters/kafkajs/admin.js';
import { benchRounds, median, pairedLine, pairedRatios, ratioLine, saveResult } from './harness.js';
import { kafkaSinkConfig, mirrorSourceConfig, verifiableSourceConfig } from './peer/connectors.js';
import {
  cpuSeconds,
  deleteConnector,
  memoryMb,
  rest,
  type Side,
  startApacheWorker,
  startOurRuntime,
} from './peer/processes.js';
import type { BenchServices } from './services.js';

/** Records per measured round of the source workloads (PEER_SOURCE_RECORDS overrides). */
const SOURCE_RECORDS = Number(process.env.PEER_SOURCE_RECORDS ?? 200_000);
/** Records in the replicated topic (PEER_REPLICATION_RECORDS overrides). */
const REPLICATION_RECORDS = Number(process.env.PEER_REPLICATION_RECORDS ?? 100_000);
const REPLICATION_PARTITIONS = 4;
const RECORD_BYTES = 1024;
/** A warm-up round of each side per workload, this share of the count, before the measured ones. */
const WARMUP_SHARE = 0.25;
/** The most a round may take before the benchmark gives up on it. */
const ROUND_LIMIT_MS = 10 * 60_000;
const POLL_MS = 100;
/** Measured rounds of each side: BENCH_ROUNDS when set, else 3 (a run takes ~10 minutes). */
const rounds = (): number => (process.env.BENCH_ROUNDS === undefined ? 3 : benchRounds());

/** What one round of one side measured. */
interface Round {
  /** Records committed between the first committed record and the end. */
  readonly records: number;
  readonly perSecond: number;
  /** CPU seconds of the side's process over the same span. */
  readonly cpuSeconds: number;
  /** CPU seconds of the side's state store process (ours: dynalite) over the same span. */
  readonly stateStoreCpuSeconds: number;
  /** From the connector's creation to its first committed record. */
  readonly startupSeconds: number;
}

interface SideResult {
  readonly perSecond: number[];
  readonly median: number;
  /** Per round: CPU seconds per million records; and their median. */
  readonly cpuSecondsPerMillionRounds: number[];
  readonly cpuSecondsPerMillion: number;
  /** The largest resident memory sampled during the workload's rounds (VmRSS), MB. */
  readonly rssMb: number;
  /** The process's peak resident memory since it started (VmHWM) at the workload's end, MB. */
  readonly peakRssMb: number;
  readonly startupSeconds: number[];
  /** With the state store's CPU added (ours: dynalite; Apache's keeps state on the broker). */
  readonly withStateStoreCpuSecondsPerMillion: number;
}

/** Samples a process's resident memory while a workload runs. */
class MemorySampler {
  #max = 0;
  #timer: NodeJS.Timeout;
  constructor(readonly pid: number) {
    this.#timer = setInterval(() => {
      memoryMb(pid).then(
        (m) => {
          this.#max = Math.max(this.#max, m.rss);
        },
        () => undefined,
      );
    }, 250);
  }
  async stop(): Promise<{ rss: number; peak: number }> {
    clearInterval(this.#timer);
    const now = await memoryMb(this.pid);
    return { rss: Math.max(this.#max, now.rss), peak: now.peak };
  }
}

/** The sum of a topic's read_committed end offsets (0 while it does not exist). */
async function committedEnd(admin: Admin, topic: string): Promise<number> {
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((sum, p) => sum + Number(p.offset), 0);
  } catch {
    return 0;
  }
}

/**
 * Waits until `topic` holds `count` committed records; measures from the first committed record.
 * End offsets count each transaction's commit marker too (one per transaction and partition),
 * so the clock stops up to that many records early, on both sides alike.
 */
async function timeUntilCommitted(
  side: Side,
  admin: Admin,
  topic: string,
  count: number,
  createdAt: number,
  /** False for the record check: its few records may all land before the first look. */
  measured = true,
): Promise<Round> {
  const deadline = Date.now() + ROUND_LIMIT_MS;
  let first: { at: number; sum: number; cpu: number; store: number } | undefined;
  const storeCpu = () =>
    side.stateStorePid === undefined ? Promise.resolve(0) : cpuSeconds(side.stateStorePid);
  for (;;) {
    const sum = await committedEnd(admin, topic);
    const at = performance.now();
    if (first === undefined && sum > 0) {
      first = { at, sum, cpu: await cpuSeconds(side.pid), store: await storeCpu() };
    }
    if (first !== undefined && sum >= count) {
      if (measured && sum === first.sum) {
        throw new Error(
          `${side.name}: all ${count} records of ${topic} were committed before the clock's first look; raise the record count (PEER_SOURCE_RECORDS / PEER_REPLICATION_RECORDS) for a measurable round`,
        );
      }
      const cpu = await cpuSeconds(side.pid);
      const store = await storeCpu();
      const records = sum - first.sum;
      return {
        records,
        perSecond: records / ((at - first.at) / 1000),
        cpuSeconds: cpu - first.cpu,
        stateStoreCpuSeconds: store - first.store,
        startupSeconds: (first.at - createdAt) / 1000,
      };
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${side.name}: ${topic} holds ${sum} of ${count} records after ${ROUND_LIMIT_MS / 1000} s`,
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Waits until a topic's end offsets stop moving (the deleted connector's tasks are gone). */
async function settle(admin: Admin, topic: string): Promise<void> {
  let last = -1;
  for (let i = 0; i < 100; i++) {
    const sum = await committedEnd(admin, topic);
    if (sum === last) return;
    last = sum;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** The first committed record of a topic: partition, key, value (bytes as hex) and headers. */
async function firstRecord(kafka: Kafka, topic: string): Promise<string> {
  const consumer = kafka.consumer({ groupId: `peer-check-${randomBytes(4).toString('hex')}` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no record in ${topic} within 60 s`)),
        60_000,
      );
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          if (message.offset !== '0') return;
          clearTimeout(timer);
          resolve(
            JSON.stringify({
              partition,
              key: message.key?.toString('hex') ?? null,
              value: message.value?.toString('hex') ?? null,
              headers: Object.keys(message.headers ?? {}),
            }),
          );
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
}

function summarize(rounds: readonly Round[], memory: { rss: number; peak: number }): SideResult {
  const perSecond = rounds.map((r) => r.perSecond);
  const cpu = rounds.map((r) => (r.cpuSeconds / r.records) * 1e6);
  return {
    perSecond,
    median: median(perSecond),
    cpuSecondsPerMillionRounds: cpu,
    cpuSecondsPerMillion: median(cpu),
    rssMb: Math.round(memory.rss),
    peakRssMb: Math.round(memory.peak),
    startupSeconds: rounds.map((r) => r.startupSeconds),
    withStateStoreCpuSecondsPerMillion: median(
      rounds.map((r) => ((r.cpuSeconds + r.stateStoreCpuSeconds) / r.records) * 1e6),
    ),
  };
}

/** One side's round of a workload: `tag` names its topics and connector uniquely. */
type RoundRunner = (side: Side, tag: string, count: number, measured?: boolean) => Promise<Round>;

/** Warm-up, then alternating measured rounds; prints the two lines and saves the JSON. */
async function compareSides(
  name: string,
  ours: Side,
  apache: Side,
  count: number,
  round: RoundRunner,
  extra: Record<string, unknown>,
): Promise<void> {
  const warmup = Math.max(1, Math.round(count * WARMUP_SHARE));
  // Warm-up rounds are not measured: a small one may land before the clock's first look.
  await round(apache, 'wa', warmup, false);
  await round(ours, 'wo', warmup, false);
  const samplers = { ours: new MemorySampler(ours.pid), apache: new MemorySampler(apache.pid) };
  const measured: { ours: Round[]; apache: Round[] } = { ours: [], apache: [] };
  for (let i = 0; i < rounds(); i++) {
    // Alternate which side goes first so neither always runs on a warmer machine.
    const order = i % 2 === 0 ? [apache, ours] : [ours, apache];
    for (const side of order)
      measured[side.name].push(await round(side, `r${i}${side.name[0]}`, count));
  }
  const result = {
    unit: 'records',
    rounds: measured.ours.length,
    records: count,
    ours: summarize(measured.ours, await samplers.ours.stop()),
    apache: summarize(measured.apache, await samplers.apache.stop()),
    ...extra,
  };
  const ratio = result.ours.median / result.apache.median;
  const paired = pairedRatios(result.ours.perSecond, result.apache.perSecond);
  console.log(
    ratioLine(name, result.ours.median, result.apache.median).replace('baseline=', 'apache='),
  );
  console.log(
    `${name}: cpu-s/M ours=${result.ours.cpuSecondsPerMillion.toFixed(1)} apache=${result.apache.cpuSecondsPerMillion.toFixed(1)} rss-MB ours=${result.ours.rssMb} apache=${result.apache.rssMb}`,
  );
  console.log(
    `${name}: cpu-s/M with the state store ours+dynalite=${result.ours.withStateStoreCpuSecondsPerMillion.toFixed(1)} apache=${result.apache.withStateStoreCpuSecondsPerMillion.toFixed(1)} (Apache's state is on the broker, excluded)`,
  );
  console.log(pairedLine(name, paired).replace('baseline round', 'apache round'));
  await saveResult(name, { name, ...result, ratio, pairedRatios: paired });
}

/** Fills `topic` with `count` records of `RECORD_BYTES` random bytes, keyed by their number. */
async function fillTopic(kafka: Kafka, topic: string, count: number): Promise<void> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    const batch = 1_000;
    for (let start = 0; start < count; start += batch) {
      const messages = Array.from({ length: Math.min(batch, count - start) }, (_, i) => ({
        key: String(start + i),
        value: randomBytes(RECORD_BYTES),
      }));
      await producer.send({ topic, acks: -1, messages });
    }
  } finally {
    await producer.disconnect();
  }
}

export async function run(services: BenchServices): Promise<void> {
  const broker = await services.kafka();
  const brokers = broker.brokers.join(',');
  const dynamo = await services.dynamo();
  const runId = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const kafka = new Kafka({ brokers: [...broker.brokers], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const sides: Side[] = [];
  try {
    const [apache, ours] = await Promise.all([
      startApacheWorker(brokers, runId),
      startOurRuntime(brokers, dynamo),
    ]);
    sides.push(apache, ours);
    const topics: string[] = [];

    const sourceTopic = (tasks: number, tag: string) => `peer-src-${runId}-${tasks}t-${tag}`;
    const sourceRound =
      (tasks: number): RoundRunner =>
      async (side, tag, count, measured = true) => {
        const topic = sourceTopic(tasks, tag);
        const connector = `peer-vs-${runId}-${tasks}t-${tag}`;
        await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: false });
        await waitForTopicLeaders(admin, [topic]);
        topics.push(topic);
        const createdAt = performance.now();
        await rest(
          side,
          'PUT',
          `/connectors/${connector}/config`,
          verifiableSourceConfig(topic, tasks),
        );
        const round = await timeUntilCommitted(side, admin, topic, count, createdAt, measured);
        await deleteConnector(side, connector);
        await settle(admin, topic);
        return round;
      };

    // The records must be the same bytes on both sides: checked once per run, loudly.
    for (const side of [apache, ours]) {
      await sourceRound(1)(side, `check-${side.name}`, 10, false);
    }
    const [apacheFirst, oursFirst] = await Promise.all([
      firstRecord(kafka, sourceTopic(1, 'check-apache')),
      firstRecord(kafka, sourceTopic(1, 'check-ours')),
    ]);
    if (apacheFirst !== oursFirst) {
      throw new Error(
        `the verifiable sources' records differ:\n  apache ${apacheFirst}\n  ours   ${oursFirst}`,
      );
    }
    console.log(`peer: first records identical (partition, key, value, headers): ${oursFirst}`);

    await compareSides('peer-source-1task', ours, apache, SOURCE_RECORDS, sourceRound(1), {});
    await compareSides('peer-source-4tasks', ours, apache, 2 * SOURCE_RECORDS, sourceRound(4), {});
    await admin.deleteTopics({ topics: topics.splice(0) }).catch(() => undefined);

    const source = `peer-repl-${runId}`;
    await admin.createTopics({
      topics: [{ topic: source, numPartitions: REPLICATION_PARTITIONS }],
      waitForLeaders: false,
    });
    await waitForTopicLeaders(admin, [source]);
    await fillTopic(kafka, source, REPLICATION_RECORDS);
    const replicationRound: RoundRunner = async (side, tag, count, measured = true) => {
      const connector = `peer-copy-${runId}-${tag}`;
      const alias = `a${tag}`;
      const target = side.name === 'apache' ? `${alias}.${source}` : `${source}.o${tag}`;
      const config =
        side.name === 'apache'
          ? mirrorSourceConfig(source, alias, brokers, REPLICATION_PARTITIONS)
          : kafkaSinkConfig(source, `o${tag}`, REPLICATION_PARTITIONS);
      const createdAt = performance.now();
      await rest(side, 'PUT', `/connectors/${connector}/config`, config);
      const round = await timeUntilCommitted(side, admin, target, count, createdAt, measured);
      await deleteConnector(side, connector);
      await settle(admin, target);
      await admin.deleteTopics({ topics: [target] }).catch(() => undefined);
      return round;
    };
    await compareSides('peer-replication', ours, apache, REPLICATION_RECORDS, replicationRound, {
      recordBytes: RECORD_BYTES,
      partitions: REPLICATION_PARTITIONS,
    });
    await admin.deleteTopics({ topics: [source] }).catch(() => undefined);
  } finally {
    await admin.disconnect();
    await Promise.allSettled(sides.map((side) => side.stop()));
  }
}
