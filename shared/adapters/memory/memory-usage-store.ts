import type {
  HourlyUsage,
  HourRange,
  Usage,
  UsageOwner,
  UsageStore,
} from '../../ports/metering.js';
import { USAGE_COUNTERS } from '../../ports/metering.js';

/** UsageStore in memory: one sum per owner and hour, apart from the connectors' items. */
export class MemoryUsageStore implements UsageStore {
  readonly #hours = new Map<UsageOwner, Map<number, Record<string, number>>>();

  async addUsage(owner: UsageOwner, hour: number, usage: Usage): Promise<void> {
    const hours = this.#hours.get(owner) ?? new Map<number, Record<string, number>>();
    this.#hours.set(owner, hours);
    const sums = hours.get(hour) ?? {};
    for (const name of USAGE_COUNTERS) sums[name] = (sums[name] ?? 0) + usage[name];
    hours.set(hour, sums);
  }

  async readUsage(owner: UsageOwner, range: HourRange): Promise<HourlyUsage[]> {
    return [...(this.#hours.get(owner) ?? new Map<number, Record<string, number>>())]
      .filter(([hour]) => hour >= range.fromHour && hour <= range.toHour)
      .sort(([a], [b]) => a - b)
      .map(([hour, sums]) => ({ hour, usage: { ...sums } as unknown as Usage }));
  }
}
