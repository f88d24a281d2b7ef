/**
 * Metering an invocation from end to end: measure it, hold what it consumed in the container,
 * and add what the container held to the hourly sums (one atomic write per owner and hour, after
 * the work: never on the record path) when the hold rule says so (usage-hold.ts), publishing
 * each owner's estimated cost as a metric.
 */
import { isRetriable } from '../../connect/errors.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { Usage, UsageOwner, UsageStore } from '../../ports/metering.js';
import type { MetricsSink } from '../../ports/metrics.js';
import { mapLimit } from '../task/concurrency.js';
import { costOf } from './cost-model.js';
import { InvocationMeter, type MeteredInvocation, UsageLedger } from './invocation-meter.js';
import type { PriceTable } from './prices.js';
import { emptyUsage, isEmptyUsage, sumUsage } from './usage.js';
import { DEFAULT_USAGE_HOLD, HeldUsage, type UsageHoldSettings } from './usage-hold.js';
import type { UsageScopes } from './usage-scopes.js';

/** One UTC hour in ms: the granularity of the stored sums. */
export const HOUR_MS = 3_600_000;

/** The metric each owner's estimated cost is published as (US dollars, unit `None`). */
export const ESTIMATED_COST_METRIC = 'EstimatedCost';

/** The dimensions of the shared line's metric (a connector's are `{Connector}`). */
export const SHARED_COST_DIMENSIONS = { CostLine: 'shared' } as const;

/** Owners written at once when an invocation ends (the enumerator's run touches them all). */
const WRITE_CONCURRENCY = 16;

export interface MeteringDeps {
  readonly scopes: UsageScopes;
  readonly store: UsageStore;
  readonly prices: PriceTable;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where `EstimatedCost` goes. @default none */
  readonly metrics?: MetricsSink;
  /** How long a container may hold usage before writing it. @default DEFAULT_USAGE_HOLD */
  readonly hold?: UsageHoldSettings;
}

/** The start of the UTC hour `at` falls in. */
export function hourOf(at: number): number {
  return Math.floor(at / HOUR_MS) * HOUR_MS;
}

/**
 * Meters invocations, one per container (process). {@link Metering.run} runs one in its scope;
 * when it ends (however it ends: a failed invocation is billed too) its usage joins what the
 * container holds, at the hour the invocation ended in. When the hold is due ({@link HeldUsage.due}: at once for most
 * functions, after 5 minutes for the enumerator, at an hour's change, past $0.0001) everything
 * held is added to the sums, each owner and hour with one `addUsage` (with the metering's own
 * usage for that owner, carried from its earlier writes), and `EstimatedCost` is published per
 * owner. A write that fails retriably stays held for the next invocation; any
 * other failure is logged and the usage dropped. The metering never fails the invocation.
 * {@link Metering.flush} writes what is held (a process that stops: the local runtime, tests).
 *
 * @example
 * ```ts
 * const result = await metering.run({ function: 'sink-task', memoryMb: 1024 }, () =>
 *   runSinkInvocation(deps, invocation),
 * );
 * ```
 */
export class Metering {
  readonly #deps: MeteringDeps;
  readonly #hold: UsageHoldSettings;
  readonly #held = new HeldUsage();
  /** The metering's own usage (its writes' requests and time): added to the next invocation's. */
  readonly #carry = new UsageLedger();

  constructor(deps: MeteringDeps) {
    this.#deps = deps;
    this.#hold = deps.hold ?? DEFAULT_USAGE_HOLD;
  }

  /** The prices the metering estimates costs with. */
  get prices(): PriceTable {
    return this.#deps.prices;
  }

  async run<T>(invocation: MeteredInvocation, work: () => Promise<T>): Promise<T> {
    const { scopes, clock } = this.#deps;
    const meter = new InvocationMeter(invocation, clock.now());
    try {
      return await scopes.within(meter, work);
    } finally {
      const ended = clock.now();
      const hour = hourOf(ended);
      // Held since the invocation started: a run a minute holds 5 runs, not 4 or 5 by jitter.
      this.#held.add(hour, meter.finish(ended), meter.startedAt);
      if (this.#held.due(invocation.function, ended, hour, this.#hold, this.#deps.prices)) {
        const started = clock.now();
        await this.#writeHeld(hour, false);
        // The write's own time is billed too: carried to the owner's next write.
        const ms = clock.now() - started;
        this.#carry.add(meter.assigned, { lambdaMs: ms, lambdaMbMs: ms * invocation.memoryMb });
      }
    }
  }

  /**
   * Writes everything the container holds and carries, now (a process that stops). The requests
   * of this write are carried, and so not written unless another invocation follows.
   */
  async flush(): Promise<void> {
    await this.#writeHeld(hourOf(this.#deps.clock.now()), true);
  }

  /**
   * Writes what is held. The metering's own usage (its earlier writes' units and time) rides
   * with its owner's write in `hour`: an owner with nothing else to write keeps it carried (with
   * `all`, everything is written), so a write never causes another (each write's units would
   * otherwise call for a write of their own, every owner a container ever wrote, every time).
   */
  async #writeHeld(hour: number, all: boolean): Promise<void> {
    const held = this.#held.take();
    const current = new Map(held.get(hour));
    for (const [owner, usage] of this.#carry.take()) {
      if (all || current.has(owner))
        current.set(owner, sumUsage([current.get(owner) ?? emptyUsage(), usage]));
      else this.#carry.add(owner, usage);
    }
    if (current.size > 0) held.set(hour, current);
    for (const [at, byOwner] of held) await this.#write(byOwner, at);
  }

  async #write(byOwner: ReadonlyMap<UsageOwner, Usage>, hour: number): Promise<void> {
    const { store, scopes, logger, clock } = this.#deps;
    const owners = [...byOwner].filter(([, usage]) => !isEmptyUsage(usage));
    await mapLimit(owners, WRITE_CONCURRENCY, async ([owner, usage]) => {
      try {
        await scopes.carrying(this.#carry, owner, () => store.addUsage(owner, hour, usage));
      } catch (error) {
        if (isRetriable(error)) this.#held.add(hour, new Map([[owner, usage]]), clock.now());
        logger.warn(
          isRetriable(error)
            ? 'could not record usage; held for the next invocation'
            : 'could not record usage; dropped',
          { connector: owner ?? null, error },
        );
        return;
      }
      this.#publish(owner, usage);
    });
  }

  #publish(owner: UsageOwner, usage: Usage): void {
    const { metrics, prices } = this.#deps;
    metrics?.publish(owner === undefined ? SHARED_COST_DIMENSIONS : { Connector: owner }, {
      [ESTIMATED_COST_METRIC]: { value: costOf(usage, prices).total, unit: 'None' },
    });
  }
}
