import { watch } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { freePort } from '../local/services/free-port.js';
import { ensureKafkaBroker } from '../local/services/kafka-broker.js';
import { SeededRandom } from '../shared/testkit/check.js';
import type { DeliveryReport } from '../test/support/eos-checker.js';
import { flag, wholeFlag } from './check-flags.js';
import {
  committedInKafka,
  committedSeqs,
  deliveryVerdict,
  reached,
  readS3Output,
  readTopic,
  sinkPositions,
} from './local-runtime/outputs.js';
import { RuntimeProcess, sleep, until } from './local-runtime/runtime-process.js';

/**
 * `npm run check:local-crash [-- --kills N --seed S --sinks s3,kafka|none]`: the local runtime
 * (`local/main.ts`) runs as a child process with a datagen source streaming to a topic with
 * exactly-once required, and two sinks fed by that topic: the S3 sink (into the runtime's own
 * s3rver, so a kill also cuts s3rver's writes) and the exactly-once Kafka sink (to `<topic>-copy`).
 * Whenever the source and every sink have caught up after a restart, the child is killed with
 * SIGKILL at a random moment (from the second kill on, the moment s3rver next writes a file) and
 * started again on the same data folder, N times (default 5).
 * Then the source is stopped, the sinks catch up to its last record, the runtime shuts down
 * gracefully, and everything is read back: the source topic read_committed (every sequence
 * number up to the offsets committed in Kafka exactly once per source partition, nothing
 * beyond), the S3 objects (each of those records exactly once across the topic's objects, and
 * each object's lines matching its record-count metadata) and the copy topic read_committed
 * (each record exactly once). Prints how long each restart took to catch up, a line per path,
 * one line with every path's duplicates and losses, and last `duplicates=<d> losses=<l> kills=<k>`
 * over all paths; exits non-zero unless d and l are 0 (and nothing is reordered or inconsistent).
 */

type SinkPath = 's3' | 'kafka';

function sinksFlag(): SinkPath[] {
  const text = flag('sinks') ?? 's3,kafka';
  if (text === 'none') return [];
  const names = text.split(',').map((s) => s.trim());
  if (names.length === 0 || names.some((n) => n !== 's3' && n !== 'kafka')) {
    throw new Error(`--sinks takes s3, kafka, both (s3,kafka) or none (got ${text})`);
  }
  return [...new Set(names)] as SinkPath[];
}

const sinks = sinksFlag();
// Each kill costs the sinks the event-source-mapping stand-in's takeover (about 30 s).
const kills = wholeFlag('kills', 5);
const seed = wholeFlag('seed', Date.now() % 1_000_000);
const random = new SeededRandom(seed); // a failing run replays from its seed
const started = Date.now();
const broker = await ensureKafkaBroker();
const dataDir = await mkdtemp(join(tmpdir(), 'sc-local-crash-'));
const settings = {
  dataDir,
  logFile: join(dataDir, 'runtime.log'),
  brokers: broker.brokers,
  s3Port: await freePort(),
};
const name = `crash-${Date.now().toString(36)}-${seed}`;
const topic = `${name}-out`;
const sinkNames: Record<SinkPath, string> = { s3: `${name}-s3`, kafka: `${name}-kafka` };
const kafka = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING });
const log = (line: string) => console.log(`  ${line}`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const BYTES = 'org.apache.kafka.connect.converters.ByteArrayConverter';

function sinkConfig(path: SinkPath, runtime: RuntimeProcess): Record<string, string> {
  const common = {
    topics: topic,
    'key.converter': BYTES,
    'value.converter': BYTES,
    'partition.discovery.interval.ms': '1000',
  };
  if (path === 'kafka') {
    return {
      ...common,
      'connector.class': 'kafka-sink',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Connect's ${topic} placeholder
      'topic.rename.format': '${topic}-copy',
      'header.converter': BYTES,
    };
  }
  return {
    ...common,
    'connector.class': 's3-sink',
    's3.bucket.name': runtime.info.s3.bucket,
    's3.endpoint': runtime.info.s3.endpoint,
    'aws.access.key.id': runtime.info.s3.accessKeyId,
    'aws.secret.access.key': runtime.info.s3.secretAccessKey,
    'format.class': 'json',
    // Several batches fill an object: most writes append to an existing object.
    'flush.size': '1000',
  };
}

/**
 * Resolves `true` at the next change of a file under the runtime's S3 folder (an s3rver write
 * under way), or `false` after `ms` without one.
 */
function nextS3Write(ms: number): Promise<boolean> {
  const controller = new AbortController();
  return new Promise((resolve) => {
    const done = (hit: boolean) => {
      clearTimeout(timer);
      controller.abort();
      resolve(hit);
    };
    const timer = setTimeout(() => done(false), ms);
    watch(join(dataDir, 's3'), { recursive: true, signal: controller.signal }, () => done(true)).on(
      'error',
      () => done(false),
    );
  });
}

/** The source topic's end offsets (high watermarks) per partition. */
async function topicEnds(): Promise<Map<number, number>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((o) => [o.partition, Number(o.high)]));
  } finally {
    await admin.disconnect();
  }
}

/**
 * Waits until every source partition committed past `before` and then every sink's position
 * reached the topic's end as of that moment; logs how long each took since `since`.
 */
async function caughtUp(runtime: RuntimeProcess, label: string, before: Map<string, number>) {
  const since = Date.now();
  await until(
    'progress on every source partition',
    async () => {
      const now = await committedSeqs(runtime, name);
      return ['0', '1', '2'].every((p) => (now.get(p) ?? 0) > (before.get(p) ?? 0))
        ? true
        : undefined;
    },
    120_000,
  );
  const parts = [`source ${seconds(Date.now() - since)}`];
  const targets = await topicEnds();
  await Promise.all(
    sinks.map(async (path) => {
      await until(
        `the ${path} sink to catch up`,
        async () =>
          reached(await sinkPositions(runtime, sinkNames[path]), targets) ? true : undefined,
        180_000,
      );
      parts.push(`${path} sink ${seconds(Date.now() - since)}`);
    }),
  );
  log(`${label}: caught up: ${parts.join(', ')}`);
}

/** What the restarted runtimes logged about s3rver writes a kill cut (local/runtime/start.ts). */
async function s3Recoveries(): Promise<string> {
  let rolledBack = 0;
  let rolledForward = 0;
  let torn = 0;
  for (const line of (await readFile(settings.logFile, 'utf8')).split('\n')) {
    if (!line.includes('S3')) continue;
    try {
      const entry = JSON.parse(line) as { rolledBack?: number; rolledForward?: number; torn?: [] };
      rolledBack += entry.rolledBack ?? 0;
      rolledForward += entry.rolledForward ?? 0;
      torn += entry.torn?.length ?? 0;
    } catch {
      // not a JSON log line
    }
  }
  return `s3rver writes cut by kills: ${rolledBack} discarded, ${rolledForward} completed; torn objects: ${torn}`;
}

let runtime: RuntimeProcess | undefined;
let killed = 0;
try {
  console.log(
    `check:local-crash: ${kills} kills, sinks ${sinks.join(',') || 'none'}, seed ${seed}, broker ${broker.brokers.join(',')}, data ${dataDir}`,
  );
  runtime = await RuntimeProcess.start(settings);
  await runtime.create(name, {
    'connector.class': 'datagen',
    'kafka.topic': topic,
    quickstart: 'sequence',
    'source.partitions': '3',
    'tasks.max': '2',
    'records.per.poll': '100',
    // Without sinks, as fast as the source goes; with them, what the sinks keep up with on a
    // busy laptop, so that each restart's backlog drains in seconds.
    'rate.per.second': sinks.length === 0 ? '2000' : '300',
    'exactly.once.support': 'required',
    'offsets.storage.topic': `${name}-offsets`,
    'topic.creation.default.partitions': '3',
    'topic.creation.default.replication.factor': '1',
    'value.converter.schemas.enable': 'false',
  });
  for (const path of sinks) await runtime.create(sinkNames[path], sinkConfig(path, runtime));
  let before = new Map<string, number>();
  let label = 'start';
  while (killed < kills) {
    await caughtUp(runtime, label, before);
    await sleep(200 + random.int(0, 3_000)); // a random moment of the protocol
    // Every kill but the first lands as s3rver starts writing a file (an S3 sink object).
    const aimed = killed > 0 && sinks.includes('s3') && (await nextS3Write(10_000));
    const killedAt = Date.now();
    await runtime.kill();
    killed += 1;
    runtime = await RuntimeProcess.start(settings);
    before = await committedSeqs(runtime, name);
    label = `kill ${killed} (restart ${seconds(Date.now() - killedAt)})`;
    log(
      `kill ${killed}${aimed ? ' (as s3rver wrote)' : ''}: committed ${JSON.stringify(Object.fromEntries(before))}, restarted`,
    );
  }
  await caughtUp(runtime, label, before);
  await runtime.stop(name);
  await sleep(3_000); // the last invocations end
  const inStore = await committedSeqs(runtime, name);
  const expected = await committedInKafka(kafka, `${name}-offsets`, name, 3);
  const source = await readTopic(kafka, topic, expected);
  const lastRecords = new Map([...source.lastOffsets].map(([p, offset]) => [p, offset + 1]));
  const live = runtime;
  const draining = Date.now();
  await Promise.all(
    sinks.map((path) =>
      until(
        `the ${path} sink to reach the source's last records`,
        async () =>
          reached(await sinkPositions(live, sinkNames[path]), lastRecords) ? true : undefined,
        180_000,
      ),
    ),
  );
  const drained = seconds(Date.now() - draining);
  for (const path of sinks) await runtime.stop(sinkNames[path]);
  const s3 = sinks.includes('s3') ? await readS3Output(runtime.info, topic, expected) : undefined;
  await runtime.terminate();
  const copy = sinks.includes('kafka')
    ? await readTopic(kafka, `${topic}-copy`, expected)
    : undefined;

  const paths: [string, DeliveryReport, string][] = [
    [
      'source',
      source,
      `committed=${JSON.stringify(Object.fromEntries(expected))} store=${JSON.stringify(Object.fromEntries(inStore))}`,
    ],
  ];
  if (s3 !== undefined) {
    paths.push(['s3-sink', s3, `objects=${s3.objects} inconsistent=${s3.inconsistent}`]);
  }
  if (copy !== undefined) paths.push(['kafka-sink', copy, `topic=${topic}-copy`]);
  let duplicates = 0;
  let losses = 0;
  let clean = (s3?.inconsistent ?? 0) === 0;
  const byPath: string[] = [];
  for (const [path, report, detail] of paths) {
    const v = deliveryVerdict(report, expected);
    duplicates += v.duplicates;
    losses += v.losses;
    clean &&= report.reordered === 0;
    byPath.push(`${path} duplicates=${v.duplicates} losses=${v.losses}`);
    log(
      `${path}: records=${report.records} repeated=${report.duplicates} beyond=${v.beyond} reordered=${report.reordered} ${detail}`,
    );
  }
  if (sinks.length > 0) {
    log(`${await s3Recoveries()}; sinks drained in ${drained} after the source stopped`);
  }
  console.log(`${byPath.join(' | ')} | seconds=${Math.round((Date.now() - started) / 1000)}`);
  console.log(`duplicates=${duplicates} losses=${losses} kills=${killed}`);
  process.exitCode = duplicates === 0 && losses === 0 && clean ? 0 : 1;
} catch (error) {
  const tail = (await readFile(settings.logFile, 'utf8').catch(() => '')).split('\n').slice(-30);
  console.error(`check:local-crash failed: ${(error as Error).message}\n${tail.join('\n')}`);
  console.log(`duplicates=unknown losses=unknown kills=${killed}`);
  process.exitCode = 1;
} finally {
  if (runtime !== undefined) await runtime.kill();
  await rm(dataDir, { recursive: true, force: true });
  await broker.stop();
}
