import { createDynamoDbStateStore } from '../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';
import { MemorySinkMappings } from '../shared/adapters/memory/memory-sink-mappings.js';
import { createEngine, DEFAULT_ENGINE_SETTINGS } from '../shared/engine/engine.js';
import type { Usage } from '../shared/ports/metering.js';
import { costOf } from '../shared/runtime/metering/cost-model.js';
import { HOUR_MS, hourOf } from '../shared/runtime/metering/metering.js';
import { DEFAULT_PRICES } from '../shared/runtime/metering/prices.js';
import { sumUsage } from '../shared/runtime/metering/usage.js';
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
import type { BenchServices } from './services.js';

/**
 * `npm run bench -- idle-floor`: what docs/deploy.md's small workload costs a month, from the
 * metering's own sums, with and without the idle back-off of source dispatch.
 *
 * The workload: one source task whose data arrives in hourly bursts (10 million records a month:
 * 13,699 an hour, at a different minute each hour), one S3 sink connector beside it (reconciled by every enumerator run; its
 * batches are priced from docs/deploy.md's line, not run here). The deployment runs on a
 * simulated clock (test/support/simulated-clock.ts: real time while code runs, skipped time
 * between schedule ticks and during idle waits): every minute one enumerator run over every
 * connector and each source invocation it dispatched, through the same code the functions run
 * (`enumerate`, `runSourceInvocation` on a warm container's producers), each metered as the
 * function's invocation at its default memory, the state table on dynalite and the records on the
 * broker. `IDLE_FLOOR_HOURS` simulated hours (default 24) per variant; the sums read back from
 * the state table are scaled to 730 hours.
 */

const RECORDS_PER_MONTH = 10_000_000;
const MONTH_HOURS = 730;
const BURST = Math.round(RECORDS_PER_MONTH / MONTH_HOURS);
const MINUTE = 60_000;

interface Variant {
  readonly name: string;
  readonly idleBackoff: IdleBackoffSettings;
  readonly maxIdleMs: number;
}

const VARIANTS: readonly Variant[] = [
  {
    name: 'before (no back-off)',
    idleBackoff: { ...DEFAULT_IDLE_BACKOFF, maxMs: 0 },
    maxIdleMs: 2_000,
  },
  { name: 'after (back-off, 10 min bound)', idleBackoff: DEFAULT_IDLE_BACKOFF, maxIdleMs: 2_000 },
  {
    name: 'after, idle wait 500 ms',
    idleBackoff: DEFAULT_IDLE_BACKOFF,
    maxIdleMs: 500,
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
  /** Minutes from a burst's arrival to the invocation that delivered it: mean and max. */
  readonly burstDelayMinutes: { readonly mean: number; readonly max: number };
  /** Dollars a month by line: the source connector's and the shared (enumerator) line. */
  readonly month: {
    readonly sourceIdle: number;
    readonly sourceWork: number;
    readonly enumerator: number;
    readonly lambdaRequests: number;
    readonly dynamodb: number;
    readonly total: number;
  };
}

async function runVariant(bench: BenchServices, variant: Variant, hours: number) {
  const clock = new SimulatedClock();
  const { invoker, queue } = queueInvoker();
  const client = dynaliteClient((await bench.dynamo()).endpoint);
  const tableName = `idle-floor-${Date.now()}`;
  await ensureTable(client, tableName);
  const usage = new UsageScopes(clock);
  const store = createDynamoDbStateStore({ client, tableName, clock, usage });
  const kafka = new KafkaJsClientFactory({ brokers: (await bench.kafka()).brokers });
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
      pluginModules: testPlugins(arrivalSourceDescriptor(arrivals, () => clock.now())),
    },
    {
      ...DEFAULT_ENGINE_SETTINGS,
      source: { maxIdleMs: variant.maxIdleMs },
      enumerator: { idleBackoff: variant.idleBackoff },
    },
  );
  const suffix = Date.now().toString(36);
  const source = `idle-floor-source-${suffix}`;
  const sink = `idle-floor-sink-${suffix}`;
  const topic = `${source}-out`;
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
    's3.bucket.name': 'idle-floor',
    'flush.size': '500',
  });
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
    });
    const end = clock.now();
    const range = { fromHour: hourOf(start), toHour: hourOf(end) };
    const read = async (owner: string | undefined) =>
      sumUsage((await store.usage.readUsage(owner, range)).map((h) => h.usage));
    const [sourceUsage, sinkUsage, shared] = await Promise.all([
      read(source),
      read(sink),
      read(undefined),
    ]);
    const scale = MONTH_HOURS / hours;
    const idle = ran.filter((r) => r.result.records === 0);
    const busy = ran.filter((r) => r.result.records > 0);
    const idleMs = idle.reduce((ms, r) => ms + r.ms, 0);
    const delays = arrivalTimes.slice(1).flatMap((arrived) => {
      const delivered = busy.find((r) => r.at >= arrived);
      return delivered === undefined ? [] : [(delivered.at - arrived) / MINUTE];
    });
    const enumeratorUsage = sumUsage([shared, sinkUsage]);
    const price = (u: Usage) => costOf(u, DEFAULT_PRICES);
    const sourceCost = price(sourceUsage);
    // The source connector's compute split into idle and delivering invocations by their
    // metered durations; the enumerator's spans for it are in its usage too.
    const sourceMs = idleMs + busy.reduce((ms, r) => ms + r.ms, 0);
    const lambdaGbSecondPrice = DEFAULT_PRICES.lambdaArmPerGbSecond;
    const idleCompute = (idleMs / 1000) * (1024 / 1024) * lambdaGbSecondPrice;
    const workCompute = ((sourceMs - idleMs) / 1000) * lambdaGbSecondPrice;
    const enumeratorCost = price(enumeratorUsage);
    const all = price(sumUsage([sourceUsage, enumeratorUsage]));
    const result: VariantResult = {
      name: variant.name,
      hours,
      sourceInvocations: ran.length,
      idleInvocations: idle.length,
      idleInvocationMs: idle.length === 0 ? 0 : idleMs / idle.length,
      enumeratorRuns: hours * 60,
      burstDelayMinutes: {
        mean: delays.reduce((a, b) => a + b, 0) / Math.max(1, delays.length),
        max: Math.max(0, ...delays),
      },
      month: {
        sourceIdle: idleCompute * scale,
        sourceWork: workCompute * scale,
        enumerator:
          (enumeratorCost.lambdaCompute + (sourceCost.lambdaCompute - idleCompute - workCompute)) *
          scale,
        lambdaRequests: all.lambdaRequests * scale,
        dynamodb: all.dynamodb * scale,
        total: all.total * scale,
      },
    };
    return result;
  } finally {
    await engine.close();
    await kafka.close();
    client.destroy();
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
    console.log(
      `idle-floor ${result.name}: ${result.sourceInvocations} source invocations in ${hours} h ` +
        `(${result.idleInvocations} idle, ${result.idleInvocationMs.toFixed(0)} ms billed each), ` +
        `burst delay mean ${result.burstDelayMinutes.mean.toFixed(1)} min max ${result.burstDelayMinutes.max.toFixed(0)} min; ` +
        `a month: source idle ${usd(m.sourceIdle)}, source work ${usd(m.sourceWork)}, ` +
        `enumerator ${usd(m.enumerator)}, requests ${usd(m.lambdaRequests)}, DynamoDB ${usd(m.dynamodb)}, ` +
        `total ${usd(m.total)}`,
    );
  }
  await saveResult('idle-floor', { burst: BURST, results });
}
