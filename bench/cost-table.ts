import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type CostFunction,
  type CostSample,
  dollarsPerMillion,
  FUNCTION_MEMORY_MB,
  lambdaCpuDollarsPerMillion,
  mskConnectDollarsPerMillion,
  PRICES,
  type Prices,
  requestClasses,
  vcpuShare,
} from './cost.js';

/**
 * The cost table `npm run bench` prints after its benchmarks (bench/run.ts): what each
 * benchmark of ours reported (bench/cost.ts) per 1,000 records and in dollars per million
 * records, next to one MSK Connect worker at the peer benchmark's measured throughput (read
 * from `bench/results/peer-<workload>.json`, written by `npm run bench -- peer`).
 */

/** The peer benchmark's workloads, and the function that runs ours in each. */
export const PEER_WORKLOADS: Readonly<Record<string, CostFunction>> = {
  'peer-source-1task': 'source-task',
  'peer-source-4tasks': 'source-task',
  'peer-replication': 'sink-task',
};

/** One side of a peer result: records/s (median) and CPU seconds per million records. */
export interface PeerSide {
  readonly median: number;
  readonly cpuSecondsPerMillion: number;
}

export interface PeerResult {
  readonly workload: string;
  readonly apache: PeerSide;
  readonly ours: PeerSide;
}

function peerSide(value: unknown): PeerSide | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { median, cpuSecondsPerMillion } = value as Record<string, unknown>;
  return typeof median === 'number' && typeof cpuSecondsPerMillion === 'number'
    ? { median, cpuSecondsPerMillion }
    : undefined;
}

/** A saved peer result (`{ result: { apache, ours } }`), or undefined when it has not that shape. */
export function parsePeerResult(workload: string, body: unknown): PeerResult | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const result = (body as { result?: unknown }).result;
  if (typeof result !== 'object' || result === null) return undefined;
  const apache = peerSide((result as { apache?: unknown }).apache);
  const ours = peerSide((result as { ours?: unknown }).ours);
  return apache === undefined || ours === undefined ? undefined : { workload, apache, ours };
}

/** The peer results saved in `dir` (missing or unreadable files are left out). */
export async function readPeerResults(dir: string): Promise<PeerResult[]> {
  const results: PeerResult[] = [];
  for (const workload of Object.keys(PEER_WORKLOADS)) {
    let text: string;
    try {
      text = await readFile(join(dir, `${workload}.json`), 'utf8');
    } catch {
      continue;
    }
    const parsed = parsePeerResult(workload, JSON.parse(text));
    if (parsed !== undefined) results.push(parsed);
  }
  return results;
}

/** A Markdown table, columns padded to their widest cell. */
export function markdownTable(head: readonly string[], rows: readonly (readonly string[])[]) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Dollars with five decimals (the figures here run from a hundredth of a cent up). */
export function dollars(value: number): string {
  return `$${value.toFixed(5)}`;
}

function perThousand(value: number, records: number): string {
  const v = (value * 1000) / records;
  return v >= 100 ? v.toFixed(0) : v.toFixed(2);
}

/** The assumptions, printed above the table. */
export function costAssumptions(prices: Prices = PRICES): string[] {
  const memory = (fn: CostFunction) =>
    `${fn} ${FUNCTION_MEMORY_MB[fn]} MB (${vcpuShare(FUNCTION_MEMORY_MB[fn], prices).toFixed(2)} vCPU)`;
  return [
    `Prices: ${prices.region} list prices read ${prices.readOn} (docs/deploy.md, "Prices"): Lambda arm64 $${prices.lambdaArmPerGbSecond}/GB-s and $${(prices.lambdaPerRequest * 1e6).toFixed(2)}/M requests; API Gateway REST $${(prices.apiGatewayPerCall * 1e6).toFixed(2)}/M calls; DynamoDB on demand $${(prices.dynamoPerWriteUnit * 1e6).toFixed(3)}/M write units, $${(prices.dynamoPerReadUnit * 1e6).toFixed(3)}/M read units; S3 $${(prices.s3PerTier1Request * 1e3).toFixed(4)}/1,000 PUT/POST/LIST, $${(prices.s3PerTier2Request * 1e3).toFixed(4)}/1,000 GET/HEAD; MSK Connect $${prices.mskConnectPerMcuHour}/MCU-hour.`,
    `Measured: this process during ours' timed rounds only (CPU = user + system; dynalite and s3rver run in child processes, the broker apart, the baselines outside the window); for rest-* rows (per 1,000 REST requests, one client at a time, as one Lambda container serves them) the API server's own process, and its store calls' requests counted on the same calls made from this process. Functions at their configured memory: ${memory('source-task')}, ${memory('sink-task')}, ${memory('api')}; ${prices.lambdaMbPerVcpu} MB = 1 vCPU.`,
    `Assumption (CPU-based Lambda): duration = the CPU time measured here / the function's vCPU share, i.e. a function that never waits on the network and a core here as fast as a Graviton core. It is a lower bound: in AWS a function also waits on DynamoDB, S3 and Kafka. Taking duration = CPU time (as if the function had a whole vCPU at its memory) would divide the column by ${prices.lambdaMbPerVcpu} / memory (${(prices.lambdaMbPerVcpu / FUNCTION_MEMORY_MB['sink-task']).toFixed(2)} at ${FUNCTION_MEMORY_MB['sink-task']} MB).`,
    "Assumption (wall-based Lambda): duration = (wall - CPU) measured here + CPU / vCPU share: the time ours waited on dynalite, s3rver and the broker on this machine (shared cores, so also waits for a core) stands for AWS's round trips.",
    'Assumption (requests): one DynamoDB write unit per write and one read unit per read (items under 1 KB, strongly consistent reads under 4 KB; a sink BatchGetItem of the batch offsets costs one unit per partition, counted as one); Kafka requests are counted but not priced (MSK provisioned has no per-request price; the cluster is left out of both sides); a source invocation is one benchmark round, an upper bound on its request price (in AWS a run lasts until its deadline).',
  ];
}

/** The cost table's lines for this run's samples and the saved peer results. */
export function costTable(
  samples: readonly CostSample[],
  peers: readonly PeerResult[],
  prices: Prices = PRICES,
): string[] {
  const lines = [
    '# cost: per 1,000 records measured, then dollars per million records',
    ...costAssumptions(prices),
    '',
  ];
  lines.push(
    markdownTable(
      [
        'bench',
        'function',
        'records',
        'CPU ms/1k',
        'wall ms/1k',
        'invocations/1k',
        'DynamoDB reads/1k',
        'DynamoDB writes/1k',
        'S3 PUT-class/1k',
        'S3 GET-class/1k',
        'Kafka requests/1k',
      ],
      samples.map((s) => {
        const r = requestClasses(s.requests);
        const k = (v: number) => perThousand(v, s.records);
        return [
          s.bench,
          s.function,
          String(s.records),
          k(s.cpuMs),
          k(s.wallMs),
          k(s.invocations),
          k(r.dynamoReads),
          k(r.dynamoWrites),
          k(r.s3Tier1),
          k(r.s3Tier2),
          k(r.kafka),
        ];
      }),
    ),
    '',
    markdownTable(
      [
        'bench ($/M records)',
        'Lambda CPU-based',
        'Lambda wall-based',
        'Lambda requests',
        'API Gateway',
        'DynamoDB',
        'S3',
        'total CPU-based',
        'total wall-based',
      ],
      samples.map((s) => {
        const d = dollarsPerMillion(s, prices);
        return [
          s.bench,
          dollars(d.lambdaCpu),
          dollars(d.lambdaWall),
          dollars(d.lambdaRequests),
          dollars(d.apiGateway),
          dollars(d.dynamo),
          dollars(d.s3),
          dollars(d.totalCpu),
          dollars(d.totalWall),
        ];
      }),
    ),
    '',
  );
  const missing = Object.keys(PEER_WORKLOADS).filter((w) => !peers.some((p) => p.workload === w));
  if (missing.length > 0) {
    lines.push(
      `MSK Connect: no saved ${missing.map((w) => `bench/results/${w}.json`).join(', ')}; run \`npm run bench -- peer\` for the MSK Connect column.`,
    );
  }
  if (peers.length === 0) return lines;
  lines.push(
    "MSK Connect, one worker of 1 MCU (the peer benchmark, last saved): busy = the worker kept busy at Apache's measured rate; by CPU = MCU-seconds = Apache's CPU seconds (workers packed full). Ours on the same workload: Lambda CPU-based from its CPU seconds (no requests counted there).",
    markdownTable(
      [
        'workload ($/M records)',
        'Apache records/s',
        'MSK Connect busy',
        'MSK Connect by CPU',
        'ours records/s',
        'ours Lambda CPU-based',
      ],
      peers.map((p) => {
        const msk = mskConnectDollarsPerMillion(
          p.apache.median,
          p.apache.cpuSecondsPerMillion,
          prices,
        );
        const fn = PEER_WORKLOADS[p.workload] ?? 'source-task';
        return [
          p.workload,
          p.apache.median.toFixed(0),
          dollars(msk.busyWorker),
          dollars(msk.cpu),
          p.ours.median.toFixed(0),
          dollars(lambdaCpuDollarsPerMillion(p.ours.cpuSecondsPerMillion, fn, prices)),
        ];
      }),
    ),
  );
  return lines;
}
