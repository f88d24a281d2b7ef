/**
 * Arithmetic over {@link Usage}: every counter added, scaled or compared the same way, in the
 * order of {@link USAGE_COUNTERS}.
 */
import { USAGE_COUNTERS, type Usage } from '../../ports/metering.js';

/** A usage being accumulated. */
export type MutableUsage = { -readonly [K in keyof Usage]: number };

/** All counters zero. */
export function emptyUsage(): MutableUsage {
  const usage = {} as MutableUsage;
  for (const counter of USAGE_COUNTERS) usage[counter] = 0;
  return usage;
}

/** Adds the counters of `more` to `into` (mutated) and returns it. */
export function addUsage(into: MutableUsage, more: Partial<Usage>): MutableUsage {
  for (const counter of USAGE_COUNTERS) into[counter] += more[counter] ?? 0;
  return into;
}

/** The sum of `usages`. */
export function sumUsage(usages: Iterable<Usage>): Usage {
  const total = emptyUsage();
  for (const usage of usages) addUsage(total, usage);
  return total;
}

/** Every counter of `usage` times `factor`. */
export function scaleUsage(usage: Usage, factor: number): Usage {
  const scaled = emptyUsage();
  for (const counter of USAGE_COUNTERS) scaled[counter] = usage[counter] * factor;
  return scaled;
}

/** True when every counter is zero. */
export function isEmptyUsage(usage: Usage): boolean {
  return USAGE_COUNTERS.every((counter) => usage[counter] === 0);
}
