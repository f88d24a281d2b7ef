import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { freePort } from '../local/services/free-port.js';
import { ensureKafkaBroker } from '../local/services/kafka-broker.js';
import { parseDatagenRecordIdentity } from '../shared/plugins/connectors/datagen/quickstarts.js';
import { checkDelivery } from '../test/support/eos-checker.js';
import {
  committedInKafka,
  committedSeqs,
  flag,
  http,
  progressed,
  type RuntimeProcess,
  sleep,
  startRuntimeProcess,
  stopRuntime,
  until,
} from './local-runtime-process.js';

/**
 * `npm run check:state-restore [-- --restores N --removals M --quick]`: the local runtime
 * (`local/main.ts`) runs an exactly-once datagen source and an S3 sink of its topic. While they
 * run, a copy of the state (the dynalite folder, taken with the process paused: what a kill
 * would leave, as a point-in-time restore gives a consistent table) is taken; they run on; the
 * runtime is stopped, the old copy put back (N times), or the state removed and the connectors
 * created again with the same configs (M times), and the runtime started again. At the end an
 * independent read_committed reader checks the source topic (every sequence number up to the
 * offsets Kafka holds, once, nothing beyond) and the S3 objects (every record of the topic
 * exactly once). Last line: `duplicates=<d> losses=<l> restores=<n>`; non-zero exit unless 0/0.
 */

const restores = flag('restores', 2);
const removals = flag('removals', 1);
const quick = process.argv.includes('--quick');
const started = Date.now();
const broker = await ensureKafkaBroker();
const dataDir = await mkdtemp(join(tmpdir(), 'sc-state-restore-'));
const stateDir = join(dataDir, 'dynamodb');
const copyDir = join(dataDir, 'state-copy');
const logFile = join(dataDir, 'runtime.log');
const s3Port = await freePort();
const name = `restore-${Date.now().toString(36)}`;
const sinkName = `${name}-s3`;
const topic = `${name}-out`;
const bucket = 'serverless-connect';
const PARTITIONS = ['0', '1', '2'];
const log = (line: string) => console.log(`  ${line}`);

const sourceConfig = {
  'connector.class': 'datagen',
  'kafka.topic': topic,
  quickstart: 'sequence',
  'source.partitions': String(PARTITIONS.length),
  'tasks.max': '2',
  'records.per.poll': '100',
  'rate.per.second': quick ? '600' : '1500',
  'exactly.once.support': 'required',
  'offsets.storage.topic': `${name}-offsets`,
  'topic.creation.default.partitions': '3',
  'topic.creation.default.replication.factor': '1',
  'value.converter.schemas.enable': 'false',
};
const sinkConfig = {
  'connector.class': 's3-sink',
  topics: topic,
  's3.bucket.name': bucket,
  's3.endpoint': `http://127.0.0.1:${s3Port}`,
  'aws.access.key.id': 'S3RVER',
  'aws.secret.access.key': 'S3RVER',
  'format.class': 'json',
  'flush.size': '250',
  'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
  'value.converter.schemas.enable': 'false',
};

async function start(): Promise<RuntimeProcess> {
  return startRuntimeProcess({
    dataDir,
    brokers: broker.brokers,
    logFile,
    s3Port,
    args: ['--enumerator-interval', '2', '--task-budget', '10'],
  });
}

async function createConnectors(runtime: RuntimeProcess): Promise<void> {
  for (const [connector, config] of [
    [name, sourceConfig],
    [sinkName, sinkConfig],
  ] as const) {
    const put = await http(runtime, 'PUT', `/connectors/${connector}/config`, config);
    if (put.status !== 201 && put.status !== 200) {
      throw new Error(`PUT ${connector} answered ${put.status}: ${JSON.stringify(put.body)}`);
    }
  }
}

/**
 * A copy of the state as of now: the runtime is paused (SIGSTOP) while its dynalite folder is
 * copied, so the copy is what a kill at that moment would leave.
 */
async function copyState(runtime: RuntimeProcess): Promise<void> {
  await rm(copyDir, { recursive: true, force: true });
  runtime.child.kill('SIGSTOP');
  try {
    await cp(stateDir, copyDir, { recursive: true });
  } finally {
    runtime.child.kill('SIGCONT');
  }
}

/** Every S3 object's JSON lines for the topic: (partition, seq) per record, in object order. */
async function s3Records(): Promise<{ partition: string; seq: number }[]> {
  const root = join(dataDir, 's3', bucket, 'topics', topic);
  const files: string[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.endsWith('._S3rver_object')) files.push(path);
    }
  };
  await walk(root);
  const out: { partition: string; seq: number }[] = [];
  for (const file of files.sort()) {
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      if (line.trim() === '') continue;
      const id = parseDatagenRecordIdentity(new TextEncoder().encode(line));
      out.push({ partition: String(id.partition), seq: id.seq });
    }
  }
  return out;
}

let runtime: RuntimeProcess | undefined;
let restored = 0;
try {
  console.log(
    `check:state-restore: ${restores} restores, ${removals} removals, broker ${broker.brokers.join(',')}, data ${dataDir}`,
  );
  runtime = await start();
  await createConnectors(runtime);
  let before = await progressed(runtime, name, new Map(), PARTITIONS);
  const steps = [
    ...Array.from({ length: restores }, () => 'restore' as const),
    ...Array.from({ length: removals }, () => 'remove' as const),
  ];
  for (const step of steps) {
    // A copy now; the connectors run on past it; then the state goes back (or away).
    await copyState(runtime);
    const copied = await committedSeqs(runtime, name);
    before = await progressed(runtime, name, copied, PARTITIONS);
    await sleep(quick ? 500 : 2_000);
    await stopRuntime(runtime);
    await rm(stateDir, { recursive: true, force: true });
    if (step === 'restore') await cp(copyDir, stateDir, { recursive: true });
    runtime = await start();
    if (step === 'remove') await createConnectors(runtime);
    restored += 1;
    const after = await committedSeqs(runtime, name);
    log(
      `${step} ${restored}: copy at ${JSON.stringify(Object.fromEntries(copied))}, ran past ${JSON.stringify(Object.fromEntries(before))}, restarted with ${JSON.stringify(Object.fromEntries(after))}`,
    );
    before = await progressed(runtime, name, before, PARTITIONS);
  }

  // The end: stop the source, let the sink catch up with the topic, shut down.
  const live = runtime;
  const stop = await http(live, 'PUT', `/connectors/${name}/stop`);
  if (stop.status !== 204) throw new Error(`stop answered ${stop.status}`);
  await until('the source to stop', async () => {
    const { body } = await http(live, 'GET', `/connectors/${name}/status`);
    return body?.connector?.state === 'STOPPED' ? true : undefined;
  });
  await sleep(3_000); // the last invocations end
  const kafka = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING });
  const expected = await committedInKafka(kafka, `${name}-offsets`, name, PARTITIONS.length);
  const total = [...expected.values()].reduce((a, b) => a + b, 0);
  const inS3 = await until(
    'the S3 sink to catch up',
    async () => {
      const records = await s3Records();
      return records.length >= total ? records : undefined;
    },
    120_000,
  ).catch(async () => s3Records());
  await stopRuntime(live);

  const report = await checkDelivery({
    kafka,
    topic,
    expected,
    identify: (value) => {
      const id = parseDatagenRecordIdentity(value === null ? null : new Uint8Array(value));
      return { partition: String(id.partition), seq: id.seq };
    },
  });
  let beyond = 0;
  for (const [partition, top] of report.highest) {
    beyond += Math.max(0, top - (expected.get(partition) ?? 0));
  }
  const sourceDuplicates = report.duplicates + beyond;
  const seen = new Set<string>();
  let s3Duplicates = 0;
  for (const { partition, seq } of inS3) {
    const id = `${partition}:${seq}`;
    if (seen.has(id)) s3Duplicates += 1;
    seen.add(id);
  }
  let s3Losses = 0;
  for (const [partition, top] of expected) {
    for (let seq = 1; seq <= top; seq += 1) if (!seen.has(`${partition}:${seq}`)) s3Losses += 1;
  }
  const duplicates = sourceDuplicates + s3Duplicates;
  const losses = report.losses + s3Losses;
  console.log(
    `source: records=${report.records} committed=${JSON.stringify(Object.fromEntries(expected))} duplicates=${sourceDuplicates} losses=${report.losses} reordered=${report.reordered}`,
  );
  console.log(
    `s3-sink: records=${inS3.length} duplicates=${s3Duplicates} losses=${s3Losses} seconds=${Math.round((Date.now() - started) / 1000)}`,
  );
  console.log(`duplicates=${duplicates} losses=${losses} restores=${restored}`);
  process.exitCode = duplicates === 0 && losses === 0 && report.reordered === 0 ? 0 : 1;
} catch (error) {
  const tail = (await readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-30);
  console.error(`check:state-restore failed: ${(error as Error).message}\n${tail.join('\n')}`);
  console.log(`duplicates=unknown losses=unknown restores=${restored}`);
  process.exitCode = 1;
} finally {
  if (runtime !== undefined) await stopRuntime(runtime).catch(() => undefined);
  await rm(dataDir, { recursive: true, force: true });
  await broker.stop();
}
