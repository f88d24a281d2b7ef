import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { createDynamoDbStateStore } from '../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';
import { MemorySinkMappings } from '../shared/adapters/memory/memory-sink-mappings.js';
import { meterS3Requests } from '../shared/adapters/s3/s3-request-meter.js';
import { createEngine, DEFAULT_ENGINE_SETTINGS } from '../shared/engine/engine.js';
import { LOGGERS } from '../shared/ports/logger.js';
import type { UsageStore } from '../shared/ports/metering.js';
import { costOf } from '../shared/runtime/metering/cost-model.js';
import type { MeteredFunction } from '../shared/runtime/metering/invocation-meter.js';
import { HOUR_MS, hourOf, Metering } from '../shared/runtime/metering/metering.js';
import { DEFAULT_PRICES } from '../shared/runtime/metering/prices.js';
import { sumUsage } from '../shared/runtime/metering/usage.js';
import {
  DEFAULT_USAGE_HOLD,
  type UsageHoldSettings,
} from '../shared/runtime/metering/usage-hold.js';
import { UsageScopes } from '../shared/runtime/metering/usage-scopes.js';
import {
  DEFAULT_IDLE_BACKOFF,
  type IdleBackoffSettings,
} from '../shared/runtime/task/idle-backoff.js';
import { ARRIVAL_SOURCE_CLASS, arrivalSourceDescriptor } from '../test/support/arrival-source.js';
import { testPlugins } from '../test/support/plugin-modules.js';
import { SEQUENCE_CONVERTERS } from '../test/support/sequence-source.js';
import { SimulatedClock } from '../test/support/simulated-clock.js';
import { queueInvoker, runSchedule } from '../test/support/simulated-schedule.js';
import { dynaliteClient } from '../test/support/sink-campaign/dynamodb-target.js';
import { saveResult } from './harness.js';
import { type FunctionTime, RestCaller, SINK_BATCH, SinkFeeder } from './idle-floor-workload.js';
import type { BenchServices } from './services.js';

/**
 * `npm run bench -- idle-floor`: what docs/deploy.md's small workload costs a month, every line
 * from the metering's own sums, with and without the idle back-off of source dispatch, and with
 * the enumerator's usage written every run or held by its container (usage-hold.ts).
 *
 * The workload: one source task whose data arrives in hourly bursts (10 million records a month:
 * 13,699 an hour, at a different minute each hour), one S3 sink connector of its topic, 10,000
 * REST calls a month. The deployment runs on a simulated clock (test/support/simulated-clock.ts:
 * real time while code runs, skipped time between schedule ticks and during idle waits): every
 * minute one enumerator run over every connector and each source invocation it dispatched,
 * through the same code the functions run (`enumerate`, `runSourceInvocation` on a warm
 * container's producers); then, in the same minute, the records the source delivered fed to the
 * sink-task function's handler in the mapping's batches of 500, and the minute's share of the
 * REST calls through the api function's handler (idle-floor-workload.ts). Every invocation is
 * metered as the function's at its default memory; the state table is on dynalite, the records
 * on the broker, the sink's objects on s3rver. `IDLE_FLOOR_HOURS` simulated hours (default 24)
 * per variant; the sums read back from the state table are scaled to 730 hours.
 */

const RECORDS_PER_MONTH = 10_000_000;
const REST_CALLS_PER_MONTH = 10_000;
const MONTH_HOURS = 730;
const BURST = Math.round(RECORDS_PER_MONTH / MONTH_HOURS);
const MINUTE = 60_000;
const MEMORY_MB = { 'source-task': 1024, 'sink-task': 1024, api: 512, enumerator: 512 } as const;

/** Every function writes its usage when each invocation ends (the metering before holding). */
const WRITE_EVERY_INVOCATION: UsageHoldSettings = {
  ...DEFAULT_USAGE_HOLD,
  holdMs: { enumerator: 0, 'source-task': 0, 'sink-task': 0, api: 0 },
};

interface Variant {
  readonly name: string;
  readonly idleBackoff: IdleBackoffSettings;
  readonly maxIdleMs: number;
  readonly usageHold: UsageHoldSettings;
}

const VARIANTS: readonly Variant[] = [
  {
    name: 'before (no back-off, usage written every invocation)',
    idleBackoff: { ...DEFAULT_IDLE_BACKOFF, maxMs: 0 },
    maxIdleMs: 2_000,
    usageHold: WRITE_EVERY_INVOCATION,
  },
  {
    name: 'back-off, usage written every invocation',
    idleBackoff: DEFAULT_IDLE_BACKOFF,
    maxIdleMs: 2_000,
    usageHold: WRITE_EVERY_INVOCATION,
  },
  {
    name: 'after (back-off, enumerator usage held 5 min)',
    idleBackoff: DEFAULT_IDLE_BACKOFF,
    maxIdleMs: 2_000,
    usageHold: DEFAULT_USAGE_HOLD,
  },
];

/** A month of one variant, from the simulated hours. */
interface VariantResult {
  readonly name: string;
  readonly hours: number;
  readonly sourceInvocations: number;
  readonly idleInvocations: number;
  /** Mean billed ms of an idle source invocation (start, idle wait, release). */
  readonly idleInvocationMs: number;
  readonly enumeratorRuns: number;
  readonly sinkInvocations: number;
  readonly sinkInvocationMs: number;
  readonly apiCalls: number;
  readonly apiCallMs: number;
  /** The S3 sink's requests per batch, by price class (PUT/LIST; GET/HEAD). */
  readonly s3RequestsPerBatch: { readonly tier1: number; readonly tier2: number };
  /** The metering's usage writes (UpdateItems) in the simulated hours, by function. */
  readonly usageWrites: Readonly<Record<MeteredFunction, number>>;
  /** Minutes from a burst's arrival to the invocation that delivered it: mean and max. */
  readonly burstDelayMinutes: { readonly mean: number; readonly max: number };
  /** Dollars a month by line. */
  readonly month: {
    readonly sourceIdle: number;
    readonly sourceWork: number;
    readonly sinkCompute: number;
    readonly apiCompute: number;
    /** The enumerator's runs, and the time of the metering's own writes (carried). */
    readonly enumerator: number;
    readonly lambdaRequests: number;
    readonly dynamodb: number;
    /** The metering's own writes (one write unit each: its items are under 1 KB). */
    readonly meteringWrites: number;
    readonly s3: number;
    readonly apiGateway: number;
    readonly total: number;
  };
}

/** `store`, counting its usage writes in `writes`. */
function countingWrites(store: UsageStore, writes: { count: number }): UsageStore {
  return {
    addUsage: (owner, hour, usage) => {
      writes.count += 1;
      return store.addUsage(owner, hour, usage);
    },
    readUsage: (owner, range) => store.readUsage(owner, range),
  };
}

const FUNCTIONS = ['enumerator', 'source-task', 'sink-task', 'api'] as const;

async function runVariant(bench: BenchServices, variant: Variant, hours: number) {
  const clock = new SimulatedClock();
  const { invoker, queue } = queueInvoker();
  const client = dynaliteClient((await bench.dynamo()).endpoint);
  const s3Endpoint = (await bench.s3()).endpoint;
  const brokers = (await bench.kafka()).brokers;
  const tableName = `idle-floor-${Date.now()}`;
  await ensureTable(client, tableName);
  const usage = new UsageScopes(clock);
  const store = createDynamoDbStateStore({ client, tableName, clock, usage });
  const kafka = new KafkaJsClientFactory({ brokers });
  // One burst of BURST records an hour, at a minute that varies from hour to hour (the first at
  // the start), 30 s after a scheduled run.
  const start = clock.now();
  const arrivalTimes = Array.from(
    { length: hours },
    (_, h) => start + h * HOUR_MS + (h === 0 ? 0 : ((h * 37 + 13) % 60) * MINUTE + 30_000),
  );
  const arrivals = (now: number) => arrivalTimes.filter((at) => at <= now).length * BURST;
  const engine = createEngine(
    {
      store,
      kafka,
      clock,
      sleep: clock.sleep,
      usage,
      invoker,
      mappings: new MemorySinkMappings(),
      s3ClientHook: (s3) => meterS3Requests(s3, usage),
      pluginModules: testPlugins(arrivalSourceDescriptor(arrivals, () => clock.now())),
    },
    {
      ...DEFAULT_ENGINE_SETTINGS,
      source: { maxIdleMs: variant.maxIdleMs },
      enumerator: { idleBackoff: variant.idleBackoff },
    },
  );
  // Each function's containers are its own: one metering each (one warm container), its usage
  // writes counted.
  const writes = Object.fromEntries(FUNCTIONS.map((fn) => [fn, { count: 0 }])) as Record<
    MeteredFunction,
    { count: number }
  >;
  const metering = Object.fromEntries(
    FUNCTIONS.map((fn) => [
      fn,
      new Metering({
        scopes: usage,
        store: countingWrites(store.usage, writes[fn]),
        prices: DEFAULT_PRICES,
        clock,
        logger: engine.loggers(LOGGERS.metrics),
        hold: variant.usageHold,
      }),
    ]),
  ) as Record<MeteredFunction, Metering>;
  const suffix = Date.now().toString(36);
  const source = `idle-floor-source-${suffix}`;
  const sink = `idle-floor-sink-${suffix}`;
  const topic = `${source}-out`;
  const bucket = `idle-floor-${suffix}`;
  const s3 = new S3Client({
    endpoint: s3Endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await engine.admin.createTopics([{ topic, partitions: 1 }]);
  await store.configs.createConnector(source, {
    name: source,
    'connector.class': ARRIVAL_SOURCE_CLASS,
    ...SEQUENCE_CONVERTERS,
    topic,
    batch: '500',
  });
  await store.configs.createConnector(sink, {
    name: sink,
    'connector.class': 'S3SinkConnector',
    topics: topic,
    's3.bucket.name': bucket,
    's3.endpoint': s3Endpoint,
    's3.path.style.access': 'true',
    'aws.access.key.id': 'S3RVER',
    'aws.secret.access.key': 'S3RVER',
    'flush.size': String(SINK_BATCH),
    'format.class': 'io.confluent.connect.s3.format.json.JsonFormat',
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
    'value.converter.schemas.enable': 'false',
  });
  const feeder = await SinkFeeder.start(engine, metering['sink-task'], brokers, topic, sink, clock);
  const rest = new RestCaller(
    engine,
    metering.api,
    [source, sink],
    REST_CALLS_PER_MONTH / (MONTH_HOURS * 60),
    clock,
  );
  let delivered = 0;
  try {
    const ran = await runSchedule({
      engine,
      clock,
      queue,
      periodMs: MINUTE,
      ticks: hours * 60,
      beforeTick: (tick) => {
        if (tick % 60 === 0) process.stdout.write(`  ${variant.name}: hour ${tick / 60}\r`);
      },
      metering: (fn) => metering[fn],
      afterTick: async (tick, invocations) => {
        delivered += invocations.reduce((n, r) => n + r.result.records, 0);
        await feeder.feed(delivered);
        await rest.tick(tick);
      },
    });
    // What the enumerator's container still holds, written as a stopping process writes it.
    await metering.enumerator.flush();
    const end = clock.now();
    const range = { fromHour: hourOf(start), toHour: hourOf(end) };
    const read = async (owner: string | undefined) =>
      sumUsage((await store.usage.readUsage(owner, range)).map((h) => h.usage));
    const all = sumUsage(await Promise.all([read(source), read(sink), read(undefined)]));
    const scale = MONTH_HOURS / hours;
    const idle = ran.filter((r) => r.result.records === 0);
    const busy = ran.filter((r) => r.result.records > 0);
    const idleMs = idle.reduce((ms, r) => ms + r.ms, 0);
    const busyMs = busy.reduce((ms, r) => ms + r.ms, 0);
    const delays = arrivalTimes.slice(1).flatMap((arrived) => {
      const deliveredBy = busy.find((r) => r.at >= arrived);
      return deliveredBy === undefined ? [] : [(deliveredBy.at - arrived) / MINUTE];
    });
    const cost = costOf(all, DEFAULT_PRICES);
    // Each function's compute from its invocations' measured durations at its memory; the
    // enumerator's is the rest of the metered compute (with the metering writes' own time).
    const compute = (time: FunctionTime | number, mb: number) =>
      ((typeof time === 'number' ? time : time.ms) / 1000) *
      (mb / 1024) *
      DEFAULT_PRICES.lambdaArmPerGbSecond;
    const sourceIdle = compute(idleMs, MEMORY_MB['source-task']);
    const sourceWork = compute(busyMs, MEMORY_MB['source-task']);
    const sinkCompute = compute(feeder.time, MEMORY_MB['sink-task']);
    const apiCompute = compute(rest.time, MEMORY_MB.api);
    const usageWrites = Object.fromEntries(FUNCTIONS.map((fn) => [fn, writes[fn].count])) as Record<
      MeteredFunction,
      number
    >;
    const allWrites = Object.values(usageWrites).reduce((a, b) => a + b, 0);
    const result: VariantResult = {
      name: variant.name,
      hours,
      sourceInvocations: ran.length,
      idleInvocations: idle.length,
      idleInvocationMs: idle.length === 0 ? 0 : idleMs / idle.length,
      enumeratorRuns: hours * 60,
      sinkInvocations: feeder.time.invocations,
      sinkInvocationMs: feeder.time.ms / Math.max(1, feeder.time.invocations),
      apiCalls: rest.time.invocations,
      apiCallMs: rest.time.ms / Math.max(1, rest.time.invocations),
      s3RequestsPerBatch: {
        tier1: all.s3Tier1Requests / Math.max(1, feeder.time.invocations),
        tier2: all.s3Tier2Requests / Math.max(1, feeder.time.invocations),
      },
      usageWrites,
      burstDelayMinutes: {
        mean: delays.reduce((a, b) => a + b, 0) / Math.max(1, delays.length),
        max: Math.max(0, ...delays),
      },
      month: {
        sourceIdle: sourceIdle * scale,
        sourceWork: sourceWork * scale,
        sinkCompute: sinkCompute * scale,
        apiCompute: apiCompute * scale,
        enumerator:
          (cost.lambdaCompute - sourceIdle - sourceWork - sinkCompute - apiCompute) * scale,
        lambdaRequests: cost.lambdaRequests * scale,
        dynamodb: cost.dynamodb * scale,
        meteringWrites: allWrites * DEFAULT_PRICES.dynamoPerWriteUnit * scale,
        s3: cost.s3 * scale,
        apiGateway: cost.apiGateway * scale,
        total: cost.total * scale,
      },
    };
    return result;
  } finally {
    await feeder.close();
    await engine.close();
    await kafka.close();
    client.destroy();
    s3.destroy();
  }
}

const usd = (n: number) => `$${n.toFixed(2)}`;

export async function run(bench: BenchServices): Promise<void> {
  const hours = Number(process.env.IDLE_FLOOR_HOURS ?? '24');
  const results: VariantResult[] = [];
  for (const variant of VARIANTS) {
    const result = await runVariant(bench, variant, hours);
    results.push(result);
    const m = result.month;
    const w = result.usageWrites;
    console.log(
      `idle-floor ${result.name}: ${result.sourceInvocations} source invocations in ${hours} h ` +
        `(${result.idleInvocations} idle, ${result.idleInvocationMs.toFixed(0)} ms billed each), ` +
        `${result.sinkInvocations} sink batches (${result.sinkInvocationMs.toFixed(0)} ms each, ` +
        `S3 requests ${result.s3RequestsPerBatch.tier1.toFixed(2)} tier 1 and ` +
        `${result.s3RequestsPerBatch.tier2.toFixed(2)} tier 2 each), ` +
        `${result.apiCalls} REST calls (${result.apiCallMs.toFixed(0)} ms each), ` +
        `burst delay mean ${result.burstDelayMinutes.mean.toFixed(1)} min max ${result.burstDelayMinutes.max.toFixed(0)} min; ` +
        `usage writes: ${(w.enumerator / result.enumeratorRuns).toFixed(2)} per enumerator run, ` +
        `${w['source-task']} source, ${w['sink-task']} sink, ${w.api} api; ` +
        `a month: source idle ${usd(m.sourceIdle)}, source work ${usd(m.sourceWork)}, ` +
        `sink ${usd(m.sinkCompute)}, api ${usd(m.apiCompute)}, enumerator ${usd(m.enumerator)}, ` +
        `requests ${usd(m.lambdaRequests)}, DynamoDB ${usd(m.dynamodb)} ` +
        `(metering writes ${usd(m.meteringWrites)}), S3 ${usd(m.s3)}, ` +
        `API Gateway ${usd(m.apiGateway)}, total ${usd(m.total)}`,
    );
  }
  await saveResult('idle-floor', { burst: BURST, results });
}
