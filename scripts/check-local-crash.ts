import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { readRuntimeInfo } from '../local/runtime/runtime-info.js';
import { ensureKafkaBroker } from '../local/services/kafka-broker.js';
import { parseDatagenRecordIdentity } from '../shared/plugins/connectors/datagen/quickstarts.js';
import { parseOffsetRecord } from '../shared/runtime/source/offsets-topic.js';
import { checkDelivery } from '../test/support/eos-checker.js';

/**
 * `npm run check:local-crash [-- --kills N --seed S]`: the local runtime (`local/main.ts`) runs
 * as a child process with a datagen source streaming to a topic with exactly-once required; the
 * child is killed with SIGKILL at random moments, N times (default 5), and started again on the
 * same data folder. Then the connector is stopped, the runtime shut down gracefully, and a
 * read_committed reader checks that every sequence number up to the committed offsets is in the
 * topic exactly once per source partition, and nothing beyond them.
 * Last line: `duplicates=<d> losses=<l> kills=<k>`; exits non-zero unless d and l are 0.
 */

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} takes a whole number`);
  return value;
}

/** mulberry32: seeded, so a failing run can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, read: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

interface Runtime {
  readonly child: ChildProcess;
  readonly url: string;
}

const kills = flag('kills', 5);
const seed = flag('seed', Date.now() % 1_000_000);
const next = random(seed);
const started = Date.now();
const broker = await ensureKafkaBroker();
const dataDir = await mkdtemp(join(tmpdir(), 'sc-local-crash-'));
const logFile = join(dataDir, 'runtime.log');
const name = `crash-${Date.now().toString(36)}-${seed}`;
const topic = `${name}-out`;
const log = (line: string) => console.log(`  ${line}`);

/** Starts `local/main.ts` on the data folder and waits until its REST API answers. */
async function startRuntime(): Promise<Runtime> {
  const out = await open(logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'local/main.ts',
      '--data-dir',
      dataDir,
      '--port',
      '0',
      '--s3-port',
      '0',
      '--enumerator-interval',
      '2',
      '--task-budget',
      '15',
    ],
    {
      cwd: projectRoot,
      env: { ...process.env, KAFKA_BROKERS: broker.brokers.join(','), LOG_LEVEL: 'warn' },
      stdio: ['ignore', out.fd, out.fd],
    },
  );
  await out.close();
  const info = await until('the runtime to start', async () => {
    if (child.exitCode !== null) throw new Error(`the runtime exited with ${child.exitCode}`);
    const found = await readRuntimeInfo(dataDir);
    return found?.pid === child.pid ? found : undefined;
  });
  return { child, url: info.url };
}

async function http(runtime: Runtime, method: string, path: string, body?: unknown) {
  const response = await fetch(`${runtime.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** Committed seq per datagen partition, from `GET /connectors/{c}/offsets`. */
async function committed(runtime: Runtime): Promise<Map<string, number>> {
  const { body } = await http(runtime, 'GET', `/connectors/${name}/offsets`);
  const out = new Map<string, number>();
  for (const entry of (body?.offsets ?? []) as {
    partition: Record<string, unknown>;
    offset: { seq?: number } | null;
  }[]) {
    out.set(String(entry.partition['datagen.partition']), Number(entry.offset?.seq ?? 0));
  }
  return out;
}

/** Waits until every source partition committed past `before` (recovery is done, records flow). */
async function progressed(runtime: Runtime, before: Map<string, number>): Promise<void> {
  await until(
    'progress on every source partition',
    async () => {
      const now = await committed(runtime);
      const all = ['0', '1', '2'].every((p) => (now.get(p) ?? 0) > (before.get(p) ?? 0));
      return all ? true : undefined;
    },
    120_000,
  );
}

/**
 * Committed seq per datagen partition as Kafka holds it: the connector's records on its offsets
 * topic, read read_committed (what Connect's own offsets view reads). The state store's view can
 * lag it by the last transaction of an invocation that was fenced between its commit and its
 * promotion (the stop's fencing round); the next invocation would settle that as committed.
 */
async function committedInKafka(kafka: Kafka, offsetsTopic: string): Promise<Map<string, number>> {
  const consumer = kafka.consumer({ groupId: `${name}-offsets-check`, readUncommitted: false });
  const out = new Map<string, number>();
  let lastNews = Date.now();
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: offsetsTopic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        lastNews = Date.now();
        const parsed = parseOffsetRecord(
          message.key === null ? null : new Uint8Array(message.key),
          message.value === null ? null : new Uint8Array(message.value),
        );
        if (parsed === undefined || parsed.connector !== name) return;
        const partition = String(parsed.entry.partition['datagen.partition']);
        const seq = Number((parsed.entry.offset as { seq?: number } | null)?.seq ?? 0);
        out.set(partition, Math.max(out.get(partition) ?? 0, seq));
      },
    });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (out.size < 3 || Date.now() - lastNews < 2_000)) {
      await sleep(100);
    }
  } finally {
    await consumer.disconnect();
  }
  return out;
}

async function kill(runtime: Runtime): Promise<void> {
  if (runtime.child.exitCode !== null) return;
  const exited = once(runtime.child, 'exit');
  runtime.child.kill('SIGKILL');
  await exited;
}

let runtime: Runtime | undefined;
let killed = 0;
try {
  console.log(
    `check:local-crash: ${kills} kills, seed ${seed}, broker ${broker.brokers.join(',')}, data ${dataDir}`,
  );
  runtime = await startRuntime();
  const created = await http(runtime, 'POST', '/connectors', {
    name,
    config: {
      'connector.class': 'datagen',
      'kafka.topic': topic,
      quickstart: 'sequence',
      'source.partitions': '3',
      'tasks.max': '2',
      'records.per.poll': '100',
      'rate.per.second': '2000',
      'exactly.once.support': 'required',
      'offsets.storage.topic': `${name}-offsets`,
      'topic.creation.default.partitions': '3',
      'topic.creation.default.replication.factor': '1',
      'value.converter.schemas.enable': 'false',
    },
  });
  if (created.status !== 201) throw new Error(`create answered ${created.status}`);
  let before = new Map<string, number>();
  while (killed < kills) {
    await progressed(runtime, before);
    await sleep(200 + Math.floor(next() * 3_000)); // a random moment of the protocol
    await kill(runtime);
    killed += 1;
    runtime = await startRuntime();
    before = await committed(runtime);
    log(`kill ${killed}: committed ${JSON.stringify(Object.fromEntries(before))}, restarted`);
  }
  await progressed(runtime, before);
  const stop = await http(runtime, 'PUT', `/connectors/${name}/stop`);
  if (stop.status !== 204) throw new Error(`stop answered ${stop.status}`);
  const live = runtime;
  await until('the connector to stop', async () => {
    const { body } = await http(live, 'GET', `/connectors/${name}/status`);
    return body?.connector?.state === 'STOPPED' ? true : undefined;
  });
  await sleep(3_000); // the last invocations end
  const inStore = await committed(runtime);
  const exited = once(runtime.child, 'exit');
  runtime.child.kill('SIGTERM');
  await exited;

  const kafka = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING });
  const expected = await committedInKafka(kafka, `${name}-offsets`);
  const report = await checkDelivery({
    kafka,
    topic,
    expected,
    identify: (value) => {
      const id = parseDatagenRecordIdentity(value === null ? null : new Uint8Array(value));
      return { partition: String(id.partition), seq: id.seq };
    },
  });
  // Records beyond the committed offsets would be produced again by the next invocation.
  let beyond = 0;
  for (const [partition, top] of report.highest) {
    beyond += Math.max(0, top - (expected.get(partition) ?? 0));
  }
  const duplicates = report.duplicates + beyond;
  console.log(
    `records=${report.records} committed=${JSON.stringify(Object.fromEntries(expected))} store=${JSON.stringify(Object.fromEntries(inStore))} repeated=${report.duplicates} beyond=${beyond} reordered=${report.reordered} seconds=${Math.round((Date.now() - started) / 1000)}`,
  );
  console.log(`duplicates=${duplicates} losses=${report.losses} kills=${killed}`);
  process.exitCode = duplicates === 0 && report.losses === 0 && report.reordered === 0 ? 0 : 1;
} catch (error) {
  const tail = (await readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-30);
  console.error(`check:local-crash failed: ${(error as Error).message}\n${tail.join('\n')}`);
  console.log(`duplicates=unknown losses=unknown kills=${killed}`);
  process.exitCode = 1;
} finally {
  if (runtime !== undefined) await kill(runtime);
  await rm(dataDir, { recursive: true, force: true });
  await broker.stop();
}
