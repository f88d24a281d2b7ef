import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CostMeter, type CostSpec, reportCost } from './cost.js';

/**
 * Benchmark helper: runs a case and its baseline alternately, several rounds in one process,
 * so both see the same machine noise; reports medians and their ratio.
 *
 * A round runs a function that performs `operations` units of work (records, requests…) and
 * returns how many it did; the harness times it. Throughput compares operations per second
 * (higher is better, ratio = ours / baseline); a `lowerIsBetter` comparison takes latencies
 * in milliseconds returned by the functions instead (ratio = ours / baseline, lower is better).
 */

export interface ThroughputComparison {
  /** The benchmark's name: the first word of its line and the results file name. */
  readonly name: string;
  /**
   * Rounds of each side (default {@link benchRounds}). A warm-up round of each runs first and is
   * discarded.
   */
  readonly rounds?: number;
  /** Unit of work, for the JSON results (default `ops`). */
  readonly unit?: string;
  /** Our implementation: performs some work and returns how many units it did. */
  readonly ours: () => Promise<number>;
  /** The raw client doing the same work: returns how many units it did. */
  readonly baseline: () => Promise<number>;
  /**
   * Reports ours' cost (bench/cost.ts): its timed rounds (not the warm-up) are measured and
   * added to the run's cost table under `name`.
   */
  readonly cost?: CostSpec;
}

export interface ThroughputResult {
  readonly name: string;
  readonly unit: string;
  readonly rounds: number;
  readonly ours: { readonly perSecond: number[]; readonly median: number };
  readonly baseline: { readonly perSecond: number[]; readonly median: number };
  readonly ratio: number;
  /** Each round's ours over the baseline round run next to it (see {@link pairedRatios}). */
  readonly pairedRatios: number[];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The `p`-th percentile (0..100) by nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

function formatRate(value: number): string {
  return value >= 100 ? String(Math.round(value)) : value.toFixed(2);
}

/** The line every benchmark prints: `<name>: ratio=<x> ours=<n>/s baseline=<n>/s`. */
export function ratioLine(name: string, ours: number, baseline: number): string {
  const ratio = baseline === 0 ? Number.NaN : ours / baseline;
  return `${name}: ratio=${ratio.toFixed(2)} ours=${formatRate(ours)}/s baseline=${formatRate(baseline)}/s`;
}

/** The line for a lower-is-better figure (latency in ms). */
export function lowerIsBetterLine(
  name: string,
  ours: number,
  baseline: number,
  unit = 'ms',
): string {
  const ratio = baseline === 0 ? Number.NaN : ours / baseline;
  return `${name}: ratio=${ratio.toFixed(2)} ours=${ours.toFixed(2)}${unit} baseline=${baseline.toFixed(2)}${unit} (lower is better)`;
}

/**
 * Round i of ours over round i of the baseline, which ran right before or after it. On a shared
 * machine whose load drifts over seconds, these pairs see nearly the same load, so their spread
 * shows how far the medians' ratio can be trusted.
 */
export function pairedRatios(ours: readonly number[], baseline: readonly number[]): number[] {
  if (ours.length !== baseline.length) throw new Error('paired ratios need as many rounds each');
  return ours.map((value, i) => value / (baseline[i] as number));
}

/** The line after the ratio line: the per-round ratios' median and range. */
export function pairedLine(name: string, ratios: readonly number[]): string {
  const sorted = [...ratios].sort((a, b) => a - b);
  const low = (sorted[0] ?? Number.NaN).toFixed(2);
  const high = (sorted[sorted.length - 1] ?? Number.NaN).toFixed(2);
  return `${name}: per-round ratios median=${median(ratios).toFixed(2)} range=${low}-${high} (${ratios.length} rounds, each against the baseline round next to it)`;
}

async function timed(work: () => Promise<number>): Promise<number> {
  const started = process.hrtime.bigint();
  const operations = await work();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return operations / seconds;
}

/**
 * Rounds of each comparison: `BENCH_ROUNDS` when set (`BENCH_ROUNDS=1 npm run bench -- <name>`
 * checks that a benchmark runs, in one short round), else 5.
 */
export function benchRounds(): number {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('BENCH_ROUNDS takes a count');
  return rounds;
}

/** Alternates `ours` and `baseline` for `rounds` rounds, prints the ratio line, saves JSON. */
export async function compareThroughput(spec: ThroughputComparison): Promise<ThroughputResult> {
  const rounds = spec.rounds ?? benchRounds();
  await spec.baseline();
  await spec.ours();
  const meter = spec.cost === undefined ? undefined : new CostMeter(spec.cost);
  const oursRound = () => timed(meter === undefined ? spec.ours : () => meter.measure(spec.ours));
  const ours: number[] = [];
  const baseline: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    // Alternate which side goes first so neither always runs on a warmer machine.
    if (round % 2 === 0) {
      baseline.push(await timed(spec.baseline));
      ours.push(await oursRound());
    } else {
      ours.push(await oursRound());
      baseline.push(await timed(spec.baseline));
    }
  }
  if (meter !== undefined) reportCost(meter.sample(spec.name));
  const result: ThroughputResult = {
    name: spec.name,
    unit: spec.unit ?? 'ops',
    rounds,
    ours: { perSecond: ours, median: median(ours) },
    baseline: { perSecond: baseline, median: median(baseline) },
    ratio: median(ours) / median(baseline),
    pairedRatios: pairedRatios(ours, baseline),
  };
  console.log(ratioLine(spec.name, result.ours.median, result.baseline.median));
  console.log(pairedLine(spec.name, result.pairedRatios));
  await saveResult(spec.name, result);
  return result;
}

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');

/** Writes `bench/results/<name>.json` (git-ignored; copy into a release's notes to keep). */
export async function saveResult(name: string, result: unknown): Promise<void> {
  await mkdir(resultsDir, { recursive: true });
  const body = { name, measuredAt: new Date().toISOString(), node: process.version, result };
  await writeFile(join(resultsDir, `${name}.json`), `${JSON.stringify(body, null, 2)}\n`);
}
