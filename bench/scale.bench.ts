import { readFile } from 'node:fs/promises';
import { KEYS } from '../shared/adapters/dynamodb/table-schema.js';
import { saveResult } from './harness.js';
import {
  type EnumeratorCase,
  measureEnumerator,
  measureSinkState,
  measureSource,
  type ScaleMeasurements,
} from './scale-measure.js';
import {
  ASSUMPTIONS,
  fitMeasurements,
  LIMITS,
  model,
  PRICES,
  type ScaleCase,
  type ScaleRow,
} from './scale-model.js';
import { BenchServices } from './services.js';

/**
 * `scale`: how the state table's cost and latency grow with connectors × tasks × partitions
 * (docs/scale.md). First it measures, on dynalite through the real store code with a metering
 * SDK middleware: the items a sink connector keeps and its two reads (the status read and the
 * sink invocation's state read) for growing partitions and tasks; a real exactly-once source
 * invocation's requests and write units for growing offsets; the enumerator's scheduled run for
 * growing connectors and tasks. Then the model (scale-model.ts) carries those per-unit figures to
 * connectors × tasks × partitions up to 1,000 × 100 × 1,000 and prints, per case, requests per
 * minute, the hottest partition key's units per second against DynamoDB's per-partition limits,
 * the status read, the enumerator's run and the cost per minute. `BENCH_ROUNDS=1` measures the
 * small sizes only (a check that it runs); `SCALE_FROM=bench/results/scale.json` recomputes the
 * model from a run's saved measurements.
 */

const quick = process.env.BENCH_ROUNDS === '1';

const SINK_PARTITIONS = quick ? [1, 10] : [1, 10, 100, 1000];
const SINK_TASKS = quick ? [1, 10] : [1, 10, 100];
const SOURCE_PARTITIONS = quick ? [1, 10] : [1, 100];
const ENUMERATOR_CASES: EnumeratorCase[] = quick
  ? [
      { kind: 'source', connectors: 1, tasks: 1, partitions: 1 },
      { kind: 'source', connectors: 2, tasks: 4, partitions: 4 },
      { kind: 'source', connectors: 4, tasks: 2, partitions: 2 },
      { kind: 'sink', connectors: 1, tasks: 1, partitions: 1 },
      { kind: 'sink', connectors: 2, tasks: 4, partitions: 8 },
      { kind: 'sink', connectors: 4, tasks: 2, partitions: 16 },
    ]
  : [
      { kind: 'source', connectors: 1, tasks: 1, partitions: 1 },
      { kind: 'source', connectors: 1, tasks: 100, partitions: 100 },
      { kind: 'source', connectors: 10, tasks: 10, partitions: 10 },
      { kind: 'source', connectors: 100, tasks: 10, partitions: 10 },
      { kind: 'sink', connectors: 1, tasks: 1, partitions: 10 },
      { kind: 'sink', connectors: 1, tasks: 100, partitions: 1000 },
      { kind: 'sink', connectors: 10, tasks: 10, partitions: 100 },
      { kind: 'sink', connectors: 50, tasks: 10, partitions: 100 },
    ];

/** The model's cases: the grid up to 1,000 × 100 × 1,000, and one busy sink connector. */
const CASES: ScaleCase[] = [
  { kind: 'sink', connectors: 1, tasks: 1, partitions: 1, rate: 1 },
  { kind: 'sink', connectors: 10, tasks: 10, partitions: 100, rate: 1 },
  { kind: 'sink', connectors: 100, tasks: 10, partitions: 100, rate: 1 },
  { kind: 'sink', connectors: 1000, tasks: 10, partitions: 100, rate: 1 },
  { kind: 'sink', connectors: 1000, tasks: 100, partitions: 1000, rate: 1 },
  { kind: 'sink', connectors: 1, tasks: 100, partitions: 1000, rate: 5 },
  { kind: 'sink', connectors: 1, tasks: 100, partitions: 10000, rate: 1 },
  { kind: 'source', connectors: 1, tasks: 1, partitions: 1, rate: 1 },
  { kind: 'source', connectors: 100, tasks: 10, partitions: 10, rate: 1 },
  { kind: 'source', connectors: 1000, tasks: 10, partitions: 10, rate: 1 },
  { kind: 'source', connectors: 1000, tasks: 100, partitions: 100, rate: 1 },
  { kind: 'source', connectors: 1, tasks: 100, partitions: 10000, rate: 1 },
  { kind: 'source', connectors: 1, tasks: 100, partitions: 100, rate: 20 },
];

/** How many of a connector's sink-offset items share the busiest partition key. */
function hotKeySinkWrites(partitions: number): number {
  const perKey = new Map<string, number>();
  for (let p = 0; p < partitions; p += 1) {
    const pk = KEYS.sinkOffsetPk('c', 'orders', p);
    perKey.set(pk, (perKey.get(pk) ?? 0) + 1);
  }
  return Math.max(0, ...perKey.values());
}

const fmt = (n: number, digits = 0) =>
  n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(0)}k` : n.toFixed(digits);

function printMeasured(m: ScaleMeasurements): void {
  console.log('scale: measured on dynalite (real store code; units by DynamoDB rules)');
  console.log(
    '  sink state: partitions tasks | commit WU | status: requests RU KB p50/p99 ms | sink read: requests RU KB p50 ms',
  );
  for (const s of m.sinkState) {
    console.log(
      `  ${String(s.partitions).padStart(5)} ${String(s.tasks).padStart(4)} | ${s.commitUnits} | ` +
        `${s.status.requests} ${s.status.units} ${(s.status.itemBytes / 1024).toFixed(1)} ${s.status.p50Ms.toFixed(1)}/${s.status.p99Ms.toFixed(1)} | ` +
        `${s.sinkRead.requests} ${s.sinkRead.units} ${(s.sinkRead.itemBytes / 1024).toFixed(1)} ${s.sinkRead.p50Ms.toFixed(1)}` +
        `  (item bytes ${JSON.stringify(s.itemBytes)})`,
    );
  }
  for (const s of m.source) {
    console.log(
      `  source invocation, ${s.sourcePartitions} source partitions: ${s.transactions} transactions, requests ${JSON.stringify(
        Object.fromEntries(Object.entries(s.requests).map(([k, v]) => [k, v.count])),
      )}, ${s.txUnits} WU per transaction write, TASK# item ${s.taskItemBytes} B`,
    );
  }
  for (const e of m.enumerator) {
    const total = Object.values(e.requests).reduce((n, r) => n + r.count, 0);
    console.log(
      `  enumerator ${e.kind} ${e.connectors} × ${e.tasks} tasks × ${e.partitions} partitions: ${total} requests ` +
        `${JSON.stringify(Object.fromEntries(Object.entries(e.requests).map(([k, v]) => [k, v.count])))}, ` +
        `${e.readUnits} RU ${e.writeUnits} WU, ${e.wallMs.toFixed(0)} ms wall, ${e.cpuMs.toFixed(0)} ms CPU, ${e.dispatched} dispatched`,
    );
  }
}

function printModel(rows: readonly ScaleRow[]): void {
  console.log(
    `scale: model (assumptions ${JSON.stringify(ASSUMPTIONS)}; limits per partition key ${LIMITS.partitionWriteUnitsPerSecond} WU/s, ${LIMITS.partitionReadUnitsPerSecond} RU/s)`,
  );
  console.log(
    '  kind   conn × tasks × parts @rate | req/min (Query Update Get BatchGet) | hot key WU/s RU/s | status KB pages p50 ms | enum s (dynalite s) $/min | DynamoDB $/min | limits',
  );
  for (const r of rows) {
    const q = r.requestsPerMinute;
    console.log(
      `  ${r.kind.padEnd(6)} ${String(r.connectors).padStart(4)} × ${String(r.tasks).padStart(3)} × ${String(r.partitions).padStart(5)} @${r.rate} | ` +
        `${fmt(q.Query ?? 0)} ${fmt(q.UpdateItem ?? 0)} ${fmt(q.GetItem ?? 0)} ${fmt(q.BatchGetItem ?? 0)} | ` +
        `${fmt(r.hotKeyWriteUnits)} ${fmt(r.hotKeyReadUnits)} | ` +
        `${r.status.kb.toFixed(1)} ${r.status.pages} ${r.status.p50Ms.toFixed(1)}${r.status.basis === 'extrapolated' ? '*' : ''} | ` +
        `${r.enumerator.seconds.toFixed(1)} (${r.enumerator.dynaliteSeconds.toFixed(0)}) ${r.enumerator.dollarsPerMinute.toFixed(5)} | ${r.dynamoDollarsPerMinute.toFixed(4)} | ` +
        `${r.limits.length === 0 ? 'ok' : r.limits.join('; ')}`,
    );
  }
  console.log(
    '  (* extrapolated: in proportion to the KB read from the largest status read measured, at least the fastest measured)',
  );
  console.log(
    '  (enum s: the run in Lambda, the larger of its CPU time measured here scaled to the configured memory and its round trips at the assumed request latency; dynalite s: its wall time on dynalite here, extrapolated)',
  );
}

/** `SCALE_FROM=<scale.json>`: the model again over an earlier run's measurements, nothing measured. */
const from = process.env.SCALE_FROM;

async function measuredBefore(path: string): Promise<ScaleMeasurements> {
  const saved = JSON.parse(await readFile(path, 'utf8')) as {
    result: { measured: ScaleMeasurements };
  };
  return saved.result.measured;
}

async function measure(services: BenchServices): Promise<ScaleMeasurements> {
  const { endpoint } = await services.dynamo();
  return {
    sinkState: await measureSinkState(endpoint, SINK_PARTITIONS, SINK_TASKS),
    source: await measureSource(services, SOURCE_PARTITIONS),
    enumerator: await measureEnumerator(services, ENUMERATOR_CASES),
  };
}

export async function run(services?: BenchServices): Promise<void> {
  const owned = services === undefined ? new BenchServices() : undefined;
  const active = services ?? (owned as BenchServices);
  try {
    const started = performance.now();
    const measured: ScaleMeasurements =
      from === undefined ? await measure(active) : await measuredBefore(from);
    printMeasured(measured);
    const fits = fitMeasurements(measured);
    const rows = CASES.map((c) => model(c, fits, measured, hotKeySinkWrites));
    printModel(rows);
    console.log(`scale: measured in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    await saveResult('scale', {
      measured,
      fits,
      assumptions: ASSUMPTIONS,
      limits: LIMITS,
      prices: PRICES,
      rows,
    });
  } finally {
    await owned?.close();
  }
}
