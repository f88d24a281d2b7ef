/**
 * The scale model: from what `scale-measure.ts` measured on dynalite (item sizes, capacity units
 * and requests per unit of work, read latencies, enumerator runs), what a deployment of
 * connectors × tasks × partitions costs and where it meets DynamoDB's documented limits.
 * Pure arithmetic; every figure that is not measured is named in {@link ASSUMPTIONS}.
 */
import type {
  EnumeratorSample,
  ReadSample,
  ScaleMeasurements,
  SinkStateSample,
  SourceSample,
} from './scale-measure.js';

/**
 * DynamoDB's documented limits (docs/scale.md cites the pages): a partition serves at most
 * 1,000 write units and 3,000 read units per second; an item is at most 400 KB; a Query page
 * holds at most 1 MB of items read (before any filter or projection).
 */
export const LIMITS = {
  partitionWriteUnitsPerSecond: 1000,
  partitionReadUnitsPerSecond: 3000,
  itemBytes: 400 * 1024,
  queryPageBytes: 1024 * 1024,
} as const;

/** Prices of docs/deploy.md (us-east-1 list prices, on-demand). */
export const PRICES = {
  lambdaGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  writeUnit: 0.625 / 1e6,
  readUnit: 0.125 / 1e6,
} as const;

/** The workload and deployment figures the model assumes (not measured). */
export const ASSUMPTIONS = {
  /** Source transactions per task per second (e.g. `transaction.boundary=interval`, 1 s). */
  sourceTransactionsPerTaskPerSecond: 1,
  /** A source-task invocation runs until the function's 15-minute timeout less the margin. */
  sourceInvocationSeconds: 890,
  /** Sink batches per partition per second in the grid. */
  sinkBatchesPerPartitionPerSecond: 1,
  /** Each sink invocation's batch holds one partition (the worst case: the most invocations). */
  partitionsPerSinkBatch: 1,
  /** GET …/status calls per connector per minute (a monitoring tool polling). */
  statusReadsPerConnectorPerMinute: 1,
  /** The enumerator's schedule (infra/lib/enumerator-schedule.ts) and memory (infra/lib/functions.ts). */
  enumeratorRunsPerMinute: 1,
  enumeratorMemoryMb: 512,
  enumeratorTimeoutSeconds: 120,
  /** Lambda gives one vCPU at 1,769 MB, less in proportion below (Lambda's memory docs). */
  lambdaMbPerVcpu: 1769,
  /** A DynamoDB request's round trip from Lambda, for the enumerator's latency-bound time. */
  dynamoRequestMs: 5,
  /** The enumerator's settings (DEFAULT_ENUMERATOR_SETTINGS). */
  connectorConcurrency: 4,
  dispatchConcurrency: 16,
} as const;

/** Least squares: coefficients `c` minimising Σ (y − c·x)² (x rows include a 1 for the intercept). */
export function leastSquares(rows: readonly number[][], ys: readonly number[]): number[] {
  const n = rows[0]?.length ?? 0;
  const a = Array.from({ length: n }, () => new Array<number>(n + 1).fill(0));
  rows.forEach((x, r) => {
    for (let i = 0; i < n; i += 1) {
      for (let j = 0; j < n; j += 1)
        (a[i] as number[])[j] = ((a[i] as number[])[j] ?? 0) + (x[i] ?? 0) * (x[j] ?? 0);
      (a[i] as number[])[n] = ((a[i] as number[])[n] ?? 0) + (x[i] ?? 0) * (ys[r] ?? 0);
    }
  });
  for (let col = 0; col < n; col += 1) {
    let pivot = col;
    for (let r = col + 1; r < n; r += 1) {
      if (Math.abs((a[r] as number[])[col] ?? 0) > Math.abs((a[pivot] as number[])[col] ?? 0))
        pivot = r;
    }
    [a[col], a[pivot]] = [a[pivot] as number[], a[col] as number[]];
    const p = (a[col] as number[])[col] ?? 0;
    if (Math.abs(p) < 1e-12) continue;
    for (let r = 0; r < n; r += 1) {
      if (r === col) continue;
      const f = ((a[r] as number[])[col] ?? 0) / p;
      for (let j = col; j <= n; j += 1) {
        (a[r] as number[])[j] = ((a[r] as number[])[j] ?? 0) - f * ((a[col] as number[])[j] ?? 0);
      }
    }
  }
  return a.map((row, i) => {
    const p = row[i] ?? 0;
    return Math.abs(p) < 1e-12 ? 0 : (row[n] ?? 0) / p;
  });
}

const dot = (c: readonly number[], x: readonly number[]) =>
  c.reduce((sum, ci, i) => sum + ci * (x[i] ?? 0), 0);

/** One grid point of the model. */
export interface ScaleCase {
  readonly kind: 'source' | 'sink';
  readonly connectors: number;
  readonly tasks: number;
  /** Topic partitions (sink) or source partitions (source) per connector. */
  readonly partitions: number;
  /** Sink batches per partition per second, or source transactions per task per second. */
  readonly rate: number;
}

export interface ScaleRow extends ScaleCase {
  /** State-table requests per minute, all connectors, by kind. */
  readonly requestsPerMinute: Record<string, number>;
  /** The hottest partition key's write and read units per second. */
  readonly hotKeyWriteUnits: number;
  readonly hotKeyReadUnits: number;
  readonly status: {
    readonly kb: number;
    readonly pages: number;
    readonly readUnits: number;
    readonly p50Ms: number;
    readonly basis: 'measured' | 'extrapolated';
  };
  /** The largest item (TASKS or TASK#), bytes. */
  readonly largestItemBytes: number;
  readonly enumerator: {
    /** The run in Lambda: the larger of its CPU time at the configured memory and its round trips. */
    readonly seconds: number;
    /** Its wall time on dynalite here (two shared cores), extrapolated linearly. */
    readonly dynaliteSeconds: number;
    readonly requests: number;
    readonly dollarsPerMinute: number;
  };
  readonly dynamoDollarsPerMinute: number;
  /** The limits this case crosses, in words. */
  readonly limits: string[];
}

interface Fits {
  readonly sinkRangeBytes: number[]; // 1, T, P
  readonly sinkReadUnits: number[]; // 1, T, P
  readonly sinkReadExtraRequests: number;
  readonly sinkCommitUnits: number;
  readonly statusMs: { readonly kb: number; readonly ms: number; readonly floorMs: number };
  readonly sinkTasksItemBytes: number[]; // 1, T, P
  readonly sourceTxUnits: number[]; // 1, K
  readonly sourceTaskItemBytes: number[]; // 1, K
  readonly sourceInvocationRequests: Record<string, number>;
  readonly enumeratorRequests: Record<'source' | 'sink', Record<string, number[]>>; // per connector: 1, T, P
  readonly enumeratorUnits: Record<'source' | 'sink', { read: number[]; write: number[] }>;
  readonly enumeratorMs: Record<'source' | 'sink', number[]>; // per connector: 1, T, P
  readonly enumeratorCpuMs: Record<'source' | 'sink', number[]>; // per connector: 1, T, P
}

function fitSink(
  samples: readonly SinkStateSample[],
  pick: (s: SinkStateSample) => number,
): number[] {
  return leastSquares(
    samples.map((s) => [1, s.tasks, s.partitions]),
    samples.map(pick),
  );
}

/**
 * The status read's p50 for `kb` read where it was not measured: in proportion to the KB read,
 * from the largest read measured, and never below the fastest measured (the latencies of small
 * reads on a shared machine are too noisy for a fitted slope).
 */
function statusLatency(samples: readonly SinkStateSample[]): {
  kb: number;
  ms: number;
  floorMs: number;
} {
  const reads: ReadSample[] = samples.map((s) => s.status);
  const largest = reads.reduce((a, b) => (a.itemBytes >= b.itemBytes ? a : b));
  return {
    kb: largest.itemBytes / 1024,
    ms: largest.p50Ms,
    floorMs: Math.min(...reads.map((r) => r.p50Ms)),
  };
}

function fitEnumerator(samples: readonly EnumeratorSample[], kind: 'source' | 'sink') {
  const mine = samples.filter((s) => s.kind === kind);
  const x = mine.map((s) => [1, s.tasks, s.partitions]);
  const kinds = [...new Set(mine.flatMap((s) => Object.keys(s.requests)))];
  const requests = Object.fromEntries(
    kinds.map((k) => [
      k,
      leastSquares(
        x,
        mine.map((s) => (s.requests[k]?.count ?? 0) / s.connectors),
      ),
    ]),
  );
  return {
    requests,
    units: {
      read: leastSquares(
        x,
        mine.map((s) => s.readUnits / s.connectors),
      ),
      write: leastSquares(
        x,
        mine.map((s) => s.writeUnits / s.connectors),
      ),
    },
    ms: leastSquares(
      x,
      mine.map((s) => s.wallMs / s.connectors),
    ),
    cpuMs: leastSquares(
      x,
      mine.map((s) => s.cpuMs / s.connectors),
    ),
  };
}

export function fitMeasurements(m: ScaleMeasurements): Fits {
  const smallest = m.sinkState.reduce((a, b) =>
    a.partitions * a.tasks <= b.partitions * b.tasks ? a : b,
  );
  const source: readonly SourceSample[] = m.source;
  const perInvocation: Record<string, number> = {};
  const first = source[0];
  if (first !== undefined) {
    for (const [kind, { count }] of Object.entries(first.requests)) {
      perInvocation[kind] = kind === 'UpdateItem' ? count - first.transactions : count;
    }
  }
  const enumSource = fitEnumerator(m.enumerator, 'source');
  const enumSink = fitEnumerator(m.enumerator, 'sink');
  return {
    sinkRangeBytes: fitSink(m.sinkState, (s) => s.status.itemBytes),
    sinkReadUnits: fitSink(m.sinkState, (s) => s.sinkRead.units),
    sinkReadExtraRequests: smallest.sinkRead.requests - 1,
    sinkCommitUnits: Math.max(...m.sinkState.map((s) => s.commitUnits)),
    statusMs: statusLatency(m.sinkState),
    sinkTasksItemBytes: fitSink(m.sinkState, (s) => s.itemBytes.TASKS ?? 0),
    sourceTxUnits: leastSquares(
      source.map((s) => [1, s.sourcePartitions]),
      source.map((s) => s.txUnits),
    ),
    sourceTaskItemBytes: leastSquares(
      source.map((s) => [1, s.sourcePartitions]),
      source.map((s) => s.taskItemBytes),
    ),
    sourceInvocationRequests: perInvocation,
    enumeratorRequests: { source: enumSource.requests, sink: enumSink.requests },
    enumeratorUnits: { source: enumSource.units, sink: enumSink.units },
    enumeratorMs: { source: enumSource.ms, sink: enumSink.ms },
    enumeratorCpuMs: { source: enumSource.cpuMs, sink: enumSink.cpuMs },
  };
}

const add = (into: Record<string, number>, kind: string, n: number) => {
  into[kind] = (into[kind] ?? 0) + n;
};

/**
 * `hotKeySinkWrites(partitions)`: the most sink-offset items (of one connector's `partitions`
 * partitions) that share a partition key, from the table schema's own key function.
 */
export function model(
  c: ScaleCase,
  f: Fits,
  measured: ScaleMeasurements,
  hotKeySinkWrites: (partitions: number) => number,
): ScaleRow {
  const a = ASSUMPTIONS;
  const perMinute: Record<string, number> = {};
  const limits: string[] = [];
  const x = [1, c.tasks, c.partitions];
  let hotWrite = 0;
  let hotRead = 0;
  let writeUnitsPerMinute = 0;
  let readUnitsPerMinute = 0;
  let statusBytes: number;
  let largest: number;
  if (c.kind === 'sink') {
    const invocationsPerSecond = (c.partitions * c.rate) / a.partitionsPerSinkBatch;
    const rangeBytes = Math.max(0, dot(f.sinkRangeBytes, x));
    const pages = Math.max(1, Math.ceil(rangeBytes / LIMITS.queryPageBytes));
    const readUnits = Math.max(0.5, dot(f.sinkReadUnits, x));
    add(perMinute, 'Query', c.connectors * invocationsPerSecond * 60 * pages);
    if (f.sinkReadExtraRequests > 0) {
      add(
        perMinute,
        'BatchGetItem',
        c.connectors * invocationsPerSecond * 60 * f.sinkReadExtraRequests,
      );
    }
    add(perMinute, 'UpdateItem', c.connectors * c.partitions * c.rate * 60);
    writeUnitsPerMinute += c.connectors * c.partitions * c.rate * 60 * f.sinkCommitUnits;
    readUnitsPerMinute += c.connectors * invocationsPerSecond * 60 * readUnits;
    hotWrite = hotKeySinkWrites(c.partitions) * c.rate * f.sinkCommitUnits;
    hotRead = invocationsPerSecond * readUnits;
    statusBytes = rangeBytes;
    largest = dot(f.sinkTasksItemBytes, x);
  } else {
    const k = c.partitions / c.tasks;
    const txUnits = Math.max(1, Math.ceil(dot(f.sourceTxUnits, [1, k]) - 1e-6));
    const taskItem = Math.max(0, dot(f.sourceTaskItemBytes, [1, k]));
    const txPerMinute = c.connectors * c.tasks * c.rate * 60;
    add(perMinute, 'UpdateItem', txPerMinute);
    writeUnitsPerMinute += txPerMinute * txUnits;
    const invocationsPerMinute = (c.connectors * c.tasks * 60) / a.sourceInvocationSeconds;
    for (const [kind, n] of Object.entries(f.sourceInvocationRequests)) {
      add(perMinute, kind, invocationsPerMinute * n);
    }
    hotWrite = c.tasks * c.rate * txUnits;
    // The status Query reads each TASK# item whole (projections do not reduce what is read).
    statusBytes = 600 + c.tasks * taskItem;
    largest = taskItem;
  }
  // Status reads: the CONNECTOR..TASKS range of each connector.
  const statusPages = Math.max(1, Math.ceil(statusBytes / LIMITS.queryPageBytes));
  const statusUnits = Math.max(1, Math.ceil(statusBytes / 4096));
  add(perMinute, 'Query', c.connectors * a.statusReadsPerConnectorPerMinute * statusPages);
  readUnitsPerMinute += c.connectors * a.statusReadsPerConnectorPerMinute * statusUnits;
  const measuredStatus = measured.sinkState.find(
    (s) => c.kind === 'sink' && s.tasks === c.tasks && s.partitions === c.partitions,
  );
  const status = {
    kb: statusBytes / 1024,
    pages: statusPages,
    readUnits: statusUnits,
    p50Ms:
      measuredStatus?.status.p50Ms ??
      Math.max(f.statusMs.floorMs, (f.statusMs.ms * statusBytes) / 1024 / f.statusMs.kb),
    basis: measuredStatus === undefined ? ('extrapolated' as const) : ('measured' as const),
  };
  // The enumerator's scheduled run over every connector.
  const enumRequests = f.enumeratorRequests[c.kind];
  let enumerated = 0;
  for (const [kind, coeffs] of Object.entries(enumRequests)) {
    const n = Math.max(0, dot(coeffs, x)) * c.connectors * a.enumeratorRunsPerMinute;
    add(perMinute, kind, n);
    enumerated += n;
  }
  const enumUnits = f.enumeratorUnits[c.kind];
  readUnitsPerMinute +=
    Math.max(0, dot(enumUnits.read, x)) * c.connectors * a.enumeratorRunsPerMinute;
  writeUnitsPerMinute +=
    Math.max(0, dot(enumUnits.write, x)) * c.connectors * a.enumeratorRunsPerMinute;
  const dynaliteSeconds = (Math.max(0, dot(f.enumeratorMs[c.kind], x)) * c.connectors) / 1000;
  const cpuSeconds =
    ((Math.max(0, dot(f.enumeratorCpuMs[c.kind], x)) * c.connectors) / 1000) *
    (a.lambdaMbPerVcpu / a.enumeratorMemoryMb);
  // Round trips: per connector its fixed requests one after another, its per-task requests
  // `dispatchConcurrency` at a time; `connectorConcurrency` connectors at once.
  const totalOf = (coeffs: readonly number[][]) => coeffs.reduce((sum, k) => sum + (k[1] ?? 0), 0);
  const fixed = Object.values(enumRequests).reduce((sum, k) => sum + (k[0] ?? 0), 0);
  const perTask = totalOf(Object.values(enumRequests));
  const latencySeconds =
    ((c.connectors / a.connectorConcurrency) *
      (fixed + (perTask * c.tasks) / a.dispatchConcurrency) *
      a.dynamoRequestMs) /
    1000;
  const enumSeconds = Math.max(cpuSeconds, latencySeconds);
  const enumDollars =
    a.enumeratorRunsPerMinute *
    (enumSeconds * (a.enumeratorMemoryMb / 1024) * PRICES.lambdaGbSecond + PRICES.lambdaRequest);

  if (hotWrite > LIMITS.partitionWriteUnitsPerSecond) {
    limits.push(
      `hot key writes ${Math.round(hotWrite)} WU/s > ${LIMITS.partitionWriteUnitsPerSecond}`,
    );
  }
  if (hotRead > LIMITS.partitionReadUnitsPerSecond) {
    limits.push(
      `hot key reads ${Math.round(hotRead)} RU/s > ${LIMITS.partitionReadUnitsPerSecond}`,
    );
  }
  if (statusPages > 1) limits.push(`status read ${statusPages} pages (> 1 MB)`);
  if (largest > LIMITS.itemBytes) limits.push(`item ${Math.round(largest / 1024)} KB > 400 KB`);
  if (enumSeconds > 60 / a.enumeratorRunsPerMinute)
    limits.push(`enumerator run ${enumSeconds.toFixed(0)} s > schedule`);
  if (enumSeconds > a.enumeratorTimeoutSeconds) limits.push('enumerator run > its timeout');
  return {
    ...c,
    requestsPerMinute: Object.fromEntries(
      Object.entries(perMinute).map(([k, v]) => [k, Math.round(v)]),
    ),
    hotKeyWriteUnits: hotWrite,
    hotKeyReadUnits: hotRead,
    status,
    largestItemBytes: largest,
    enumerator: {
      seconds: enumSeconds,
      dynaliteSeconds,
      requests: Math.round(enumerated),
      dollarsPerMinute: enumDollars,
    },
    dynamoDollarsPerMinute:
      writeUnitsPerMinute * PRICES.writeUnit + readUnitsPerMinute * PRICES.readUnit,
    limits,
  };
}
