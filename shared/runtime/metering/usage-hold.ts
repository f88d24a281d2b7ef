/**
 * What a container holds of its usage between writes, and when it must write it: the rule that
 * bounds the metering's own writes (docs/deploy.md, "What each connector costs: the metering").
 */
import type { Usage, UsageOwner } from '../../ports/metering.js';
import { costOf } from './cost-model.js';
import { type MeteredFunction, type UsageByOwner, UsageLedger } from './invocation-meter.js';
import type { PriceTable } from './prices.js';
import { isEmptyUsage, sumUsage } from './usage.js';

/** How long a container may hold its usage before writing it. */
export interface UsageHoldSettings {
  /**
   * Per function: the longest a container holds usage after the invocation that first held it
   * (0: every invocation writes its usage when it ends). Usage is written at the end of an
   * invocation, so a container holds at most this long plus the gap to its next invocation.
   */
  readonly holdMs: Readonly<Record<MeteredFunction, number>>;
  /** The most a container holds, in dollars at the metering's prices; beyond it, it writes. */
  readonly maxHeldDollars: number;
}

/**
 * The enumerator holds up to 5 minutes: EventBridge invokes it every minute, so its container is
 * warm and its usage is written every 5 runs, not every run (3 writes a run with two connectors:
 * each one's share and the shared line). The other functions write at the end of each
 * invocation: their invocations come in bursts or minutes apart, and a container reclaimed
 * while idle would take what it held with it. A container never holds more than $0.0001 (160
 * write units' worth), which bounds what a reclaimed container loses.
 */
export const DEFAULT_USAGE_HOLD: UsageHoldSettings = {
  holdMs: { enumerator: 300_000, 'source-task': 0, 'sink-task': 0, api: 0 },
  maxHeldDollars: 0.0001,
};

/**
 * A container's unwritten usage, by hour and owner (each invocation's goes to the hour it ended
 * in), and since when it has held any.
 */
export class HeldUsage {
  readonly #hours = new Map<number, UsageLedger>();
  #since: number | undefined;

  /**
   * Adds `byOwner` to `hour`'s, held since `at` (the start of the invocation that consumed it)
   * if nothing was held before.
   */
  add(hour: number, byOwner: UsageByOwner, at: number): void {
    const some = [...byOwner].filter(([, usage]) => !isEmptyUsage(usage));
    if (some.length === 0) return;
    const ledger = this.#hours.get(hour) ?? new UsageLedger();
    ledger.addAll(new Map(some));
    this.#hours.set(hour, ledger);
    this.#since ??= at;
  }

  /**
   * True when what is held must be written at `now` by an invocation of `fn`: it was held for
   * `fn`'s hold or longer, or belongs to an hour before `now`'s, or is worth the most a container
   * may hold.
   */
  due(
    fn: MeteredFunction,
    now: number,
    currentHour: number,
    hold: UsageHoldSettings,
    prices: PriceTable,
  ): boolean {
    if (this.#since === undefined) return false;
    if (now - this.#since >= hold.holdMs[fn]) return true;
    if ([...this.#hours.keys()].some((hour) => hour < currentHour)) return true;
    return costOf(this.#total(), prices).total >= hold.maxHeldDollars;
  }

  /** Everything held, by hour then owner, and the hold emptied. */
  take(): Map<number, Map<UsageOwner, Usage>> {
    const taken = new Map<number, Map<UsageOwner, Usage>>();
    for (const [hour, ledger] of this.#hours) taken.set(hour, ledger.take());
    this.#hours.clear();
    this.#since = undefined;
    return taken;
  }

  #total(): Usage {
    return sumUsage([...this.#hours.values()].flatMap((ledger) => [...ledger.peek().values()]));
  }
}
