import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { freePort } from '../local/services/free-port.js';
import { ensureKafkaBroker } from '../local/services/kafka-broker.js';
import { wholeFlag } from './check-flags.js';
import {
  committedInKafka,
  committedSeqs,
  deliveryVerdict,
  readS3Output,
  readTopic,
} from './local-runtime/outputs.js';
import { RuntimeProcess, sleep, until } from './local-runtime/runtime-process.js';

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

const restores = wholeFlag('restores', 2);
const removals = wholeFlag('removals', 1);
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

function start(): Promise<RuntimeProcess> {
  return RuntimeProcess.start({ dataDir, brokers: broker.brokers, logFile, s3Port });
}

/** Waits until every source partition committed past `before`; resolves the new offsets. */
function progressed(runtime: RuntimeProcess, before: ReadonlyMap<string, number>) {
  return until(
    'progress on every source partition',
    async () => {
      const now = await committedSeqs(runtime, name);
      return PARTITIONS.every((p) => (now.get(p) ?? 0) > (before.get(p) ?? 0)) ? now : undefined;
    },
    120_000,
  );
}

async function createConnectors(runtime: RuntimeProcess): Promise<void> {
  for (const [connector, config] of [
    [name, sourceConfig],
    [sinkName, sinkConfig],
  ] as const) {
    const put = await runtime.http('PUT', `/connectors/${connector}/config`, config);
    if (put.status !== 201 && put.status !== 200) {
      throw new Error(`PUT ${connector} answered ${put.status}: ${JSON.stringify(put.body)}`);
    }
  }
}

/**
 * A copy of the state as of now: the runtime is paused while its dynalite folder is copied, so
 * the copy is what a kill at that moment would leave (a restore gives a consistent table).
 */
async function copyState(runtime: RuntimeProcess): Promise<void> {
  await rm(copyDir, { recursive: true, force: true });
  await runtime.paused(() => cp(stateDir, copyDir, { recursive: true }));
}

let runtime: RuntimeProcess | undefined;
let restored = 0;
try {
  console.log(
    `check:state-restore: ${restores} restores, ${removals} removals, broker ${broker.brokers.join(',')}, data ${dataDir}`,
  );
  runtime = await start();
  await createConnectors(runtime);
  let before = await progressed(runtime, new Map());
  const steps = [
    ...Array.from({ length: restores }, () => 'restore' as const),
    ...Array.from({ length: removals }, () => 'remove' as const),
  ];
  for (const step of steps) {
    // A copy now; the connectors run on past it; then the state goes back (or away).
    await copyState(runtime);
    const copied = await committedSeqs(runtime, name);
    before = await progressed(runtime, copied);
    await sleep(quick ? 500 : 2_000);
    await runtime.terminate();
    await rm(stateDir, { recursive: true, force: true });
    if (step === 'restore') await cp(copyDir, stateDir, { recursive: true });
    runtime = await start();
    if (step === 'remove') await createConnectors(runtime);
    restored += 1;
    const after = await committedSeqs(runtime, name);
    log(
      `${step} ${restored}: copy at ${JSON.stringify(Object.fromEntries(copied))}, ran past ${JSON.stringify(Object.fromEntries(before))}, restarted with ${JSON.stringify(Object.fromEntries(after))}`,
    );
    before = await progressed(runtime, before);
  }

  // The end: stop the source, let the sink catch up with the topic, read both back.
  const live = runtime;
  await live.stop(name);
  await sleep(3_000); // the last invocations end
  const kafka = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING });
  const expected = await committedInKafka(kafka, `${name}-offsets`, name, PARTITIONS.length);
  const total = [...expected.values()].reduce((sum, n) => sum + n, 0);
  // The sink stores its position per whole object (flush.size), so the objects are what to wait for.
  const s3 = await until(
    'the S3 sink to catch up',
    async () => {
      const read = await readS3Output(live.info, topic, expected);
      return read.records >= total ? read : undefined;
    },
    120_000,
  ).catch(() => readS3Output(live.info, topic, expected));
  const source = await readTopic(kafka, topic, expected);
  await live.terminate();
  const sourceVerdict = deliveryVerdict(source, expected);
  const s3Verdict = deliveryVerdict(s3, expected);
  const duplicates = sourceVerdict.duplicates + s3Verdict.duplicates;
  const losses = sourceVerdict.losses + s3Verdict.losses;
  console.log(
    `source: records=${source.records} committed=${JSON.stringify(Object.fromEntries(expected))} duplicates=${sourceVerdict.duplicates} losses=${sourceVerdict.losses} reordered=${source.reordered}`,
  );
  console.log(
    `s3-sink: records=${s3.records} objects=${s3.objects} duplicates=${s3Verdict.duplicates} losses=${s3Verdict.losses} inconsistent=${s3.inconsistent} seconds=${Math.round((Date.now() - started) / 1000)}`,
  );
  console.log(`duplicates=${duplicates} losses=${losses} restores=${restored}`);
  process.exitCode =
    duplicates === 0 && losses === 0 && source.reordered === 0 && s3.inconsistent === 0 ? 0 : 1;
} catch (error) {
  const tail = (await readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-30);
  console.error(`check:state-restore failed: ${(error as Error).message}\n${tail.join('\n')}`);
  console.log(`duplicates=unknown losses=unknown restores=${restored}`);
  process.exitCode = 1;
} finally {
  if (runtime !== undefined) await runtime.terminate().catch(() => undefined);
  await rm(dataDir, { recursive: true, force: true });
  await broker.stop();
}
