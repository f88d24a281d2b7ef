import { LOCAL_FUNCTION_MEMORY_MB } from '../local/esm/lambda-context.js';
import { DEFAULT_PRICES, type PriceTable } from '../shared/runtime/metering/prices.js';
import {
  addCounts,
  diffCounts,
  installRequestCounter,
  type RequestCounts,
  requestCounts,
} from './request-counter.js';

/**
 * What a record costs in AWS, from what the benchmarks measure: a benchmark of ours reports,
 * for its timed rounds of ours only, the records handled, the CPU time and wall time of this
 * process (which then runs ours alone: dynalite and s3rver are child processes, the broker is
 * separate, the baseline's rounds are not in the window) and the DynamoDB, S3 and Kafka
 * requests made (bench/request-counter.ts); `npm run bench` prints the table of all reports at
 * the end (bench/cost-table.ts). Prices: {@link PRICES}, the table in docs/deploy.md.
 */

/** The functions whose configured memory prices a benchmark's work. */
export type CostFunction = 'source-task' | 'sink-task' | 'api';

/**
 * The functions' memory in MB: infra's defaults, as the local runtime's contexts carry them
 * (test/unit/bench/cost.test.ts checks they agree with infra/lib/functions.ts).
 */
export const FUNCTION_MEMORY_MB: Readonly<Record<CostFunction, number>> = LOCAL_FUNCTION_MEMORY_MB;

/**
 * List prices in USD (us-east-1, on demand, no free tier): the metering's default price table
 * (shared/runtime/metering/prices.ts), as in docs/deploy.md's price table, where their sources
 * are cited.
 */
export const PRICES: PriceTable = DEFAULT_PRICES;

export type Prices = PriceTable;

/** How a benchmark's work maps onto a function. */
export interface CostSpec {
  readonly function: CostFunction;
  /** Records one invocation handles (a sink: the batch; a source: what one run produced). */
  readonly recordsPerInvocation: number;
}

/** What a benchmark measured of ours, summed over its timed rounds. */
export interface CostSample {
  readonly bench: string;
  readonly function: CostFunction;
  readonly records: number;
  readonly invocations: number;
  readonly cpuMs: number;
  readonly wallMs: number;
  /** Requests by `<service>:<operation>` (see bench/request-counter.ts). */
  readonly requests: Readonly<Record<string, number>>;
}

/** A sample's billable requests, by price class. */
export interface RequestClasses {
  readonly dynamoReads: number;
  readonly dynamoWrites: number;
  /** Control-plane calls (DescribeTable, CreateTable…): not billed per request. */
  readonly dynamoOther: number;
  readonly s3Tier1: number;
  readonly s3Tier2: number;
  readonly kafka: number;
}

const DYNAMO_READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem']);
const DYNAMO_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

/** Sorts request counts into price classes. */
export function requestClasses(requests: Readonly<Record<string, number>>): RequestClasses {
  const classes = {
    dynamoReads: 0,
    dynamoWrites: 0,
    dynamoOther: 0,
    s3Tier1: 0,
    s3Tier2: 0,
    kafka: 0,
  };
  for (const [key, n] of Object.entries(requests)) {
    const [service = '', operation = ''] = key.split(':');
    if (service === 'dynamodb') {
      if (DYNAMO_READS.has(operation)) classes.dynamoReads += n;
      else if (DYNAMO_WRITES.has(operation)) classes.dynamoWrites += n;
      else classes.dynamoOther += n;
    } else if (service === 's3') {
      const [method = '', command = ''] = operation.split(' ');
      if (method === 'DELETE') continue;
      if (method === 'PUT' || method === 'POST' || command.startsWith('List')) {
        classes.s3Tier1 += n;
      } else {
        classes.s3Tier2 += n;
      }
    } else if (service === 'kafka') {
      classes.kafka += n;
    }
  }
  return classes;
}

/** The vCPU share Lambda gives `memoryMb` (at most one: a Node function uses one thread). */
export function vcpuShare(memoryMb: number, prices: Prices = PRICES): number {
  return Math.min(1, memoryMb / prices.lambdaMbPerVcpu);
}

/** Dollars per million records, by line. */
export interface DollarsPerMillion {
  /** Lambda duration if the function ran only its CPU time, at its memory's vCPU share. */
  readonly lambdaCpu: number;
  /** Lambda duration from wall time: what ours waited here, plus its CPU at the vCPU share. */
  readonly lambdaWall: number;
  readonly lambdaRequests: number;
  /** The REST API's calls (the api function's invocations); 0 for the task functions. */
  readonly apiGateway: number;
  readonly dynamo: number;
  readonly s3: number;
  /** Everything, with the CPU-based duration. */
  readonly totalCpu: number;
  /** Everything, with the wall-based duration. */
  readonly totalWall: number;
}

/** Lambda's price of `seconds` of duration at `memoryMb`. */
export function lambdaDurationDollars(
  seconds: number,
  memoryMb: number,
  prices: Prices = PRICES,
): number {
  return seconds * (memoryMb / 1024) * prices.lambdaArmPerGbSecond;
}

/**
 * A sample in dollars per million records. DynamoDB: one write unit per write and one read
 * unit per read (items under 1 KB, strongly consistent reads under 4 KB, as the state table's
 * and the DynamoDB sink's items here are); batch calls count as one unit.
 */
export function dollarsPerMillion(sample: CostSample, prices: Prices = PRICES): DollarsPerMillion {
  if (sample.records <= 0) throw new Error(`${sample.bench}: no records to price`);
  const perMillion = 1_000_000 / sample.records;
  const memoryMb = FUNCTION_MEMORY_MB[sample.function];
  const share = vcpuShare(memoryMb, prices);
  const cpuSeconds = sample.cpuMs / 1000;
  const waitSeconds = Math.max(0, sample.wallMs - sample.cpuMs) / 1000;
  const lambdaCpu = lambdaDurationDollars(cpuSeconds / share, memoryMb, prices) * perMillion;
  const lambdaWall =
    lambdaDurationDollars(waitSeconds + cpuSeconds / share, memoryMb, prices) * perMillion;
  const lambdaRequests = sample.invocations * prices.lambdaPerRequest * perMillion;
  const apiGateway =
    sample.function === 'api' ? sample.invocations * prices.apiGatewayPerCall * perMillion : 0;
  const r = requestClasses(sample.requests);
  const dynamo =
    (r.dynamoWrites * prices.dynamoPerWriteUnit + r.dynamoReads * prices.dynamoPerReadUnit) *
    perMillion;
  const s3 =
    (r.s3Tier1 * prices.s3PerTier1Request + r.s3Tier2 * prices.s3PerTier2Request) * perMillion;
  const services = lambdaRequests + apiGateway + dynamo + s3;
  return {
    lambdaCpu,
    lambdaWall,
    lambdaRequests,
    apiGateway,
    dynamo,
    s3,
    totalCpu: lambdaCpu + services,
    totalWall: lambdaWall + services,
  };
}

/**
 * One MSK Connect worker of one MCU, in dollars per million records: kept busy at `perSecond`
 * records/s (the worker's hours at that rate), and from CPU seconds per million records (one
 * MCU-second per CPU-second: workers packed full).
 */
export function mskConnectDollarsPerMillion(
  perSecond: number,
  cpuSecondsPerMillion: number,
  prices: Prices = PRICES,
): { readonly busyWorker: number; readonly cpu: number } {
  if (perSecond <= 0) throw new Error('MSK Connect: no throughput to price');
  const workerHours = 1_000_000 / perSecond / 3600;
  return {
    busyWorker: workerHours * prices.mskConnectPerMcuHour,
    cpu: (cpuSecondsPerMillion / 3600) * prices.mskConnectPerMcuHour,
  };
}

/** Lambda duration for `cpuSecondsPerMillion` at `fn`'s memory (CPU-based, as above). */
export function lambdaCpuDollarsPerMillion(
  cpuSecondsPerMillion: number,
  fn: CostFunction,
  prices: Prices = PRICES,
): number {
  const memoryMb = FUNCTION_MEMORY_MB[fn];
  return lambdaDurationDollars(
    cpuSecondsPerMillion / vcpuShare(memoryMb, prices),
    memoryMb,
    prices,
  );
}

const reports: CostSample[] = [];

/** Adds a benchmark's sample to this run's cost table. */
export function reportCost(sample: CostSample): void {
  reports.push(sample);
}

/** The samples reported in this run so far. */
export function reportedCosts(): readonly CostSample[] {
  return [...reports];
}

/**
 * Measures rounds of ours for a {@link CostSample}: CPU (user + system) and wall time of this
 * process and the requests counted, between `start` and `stop`.
 */
export class CostMeter {
  readonly #spec: CostSpec;
  #records = 0;
  #cpuMicros = 0;
  #wallNanos = 0n;
  #requests: RequestCounts = new Map();

  constructor(spec: CostSpec) {
    this.#spec = spec;
    installRequestCounter();
  }

  /** Runs `work` (returning the records it handled) inside the measurement window. */
  async measure(work: () => Promise<number>): Promise<number> {
    const counts = requestCounts();
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    const records = await work();
    this.#wallNanos += process.hrtime.bigint() - started;
    const used = process.cpuUsage(cpu);
    this.#cpuMicros += used.user + used.system;
    this.#requests = addCounts(this.#requests, diffCounts(counts, requestCounts()));
    this.#records += records;
    return records;
  }

  /** What was measured so far, as `bench`'s sample. */
  sample(bench: string): CostSample {
    return {
      bench,
      function: this.#spec.function,
      records: this.#records,
      invocations: this.#records / this.#spec.recordsPerInvocation,
      cpuMs: this.#cpuMicros / 1000,
      wallMs: Number(this.#wallNanos) / 1e6,
      requests: Object.fromEntries([...this.#requests].sort(([a], [b]) => a.localeCompare(b))),
    };
  }
}
