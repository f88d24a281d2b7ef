/**
 * Metering an invocation from end to end: measure it, then add what it consumed to the hourly
 * sums (one atomic write per owner, after the work: never on the record path) and publish each
 * owner's estimated cost as a metric.
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
import { isEmptyUsage } from './usage.js';
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
}

/** The start of the UTC hour `at` falls in. */
export function hourOf(at: number): number {
  return Math.floor(at / HOUR_MS) * HOUR_MS;
}

/**
 * Meters invocations. {@link Metering.run} runs one in its scope; when it ends (however it
 * ends: a failed invocation is billed too) its usage and whatever the container carried are
 * added to the hour's sums, each owner with one `addUsage`, and `EstimatedCost` is published
 * per owner. A write that fails retriably is carried to the next invocation; any other failure
 * is logged and the usage dropped. The metering never fails the invocation.
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

  constructor(deps: MeteringDeps) {
    this.#deps = deps;
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
      const usage = new UsageLedger();
      usage.addAll(scopes.takeCarry());
      usage.addAll(meter.finish(clock.now()));
      const started = clock.now();
      await this.#write(usage.take(), hourOf(started));
      // The write's own time is billed too: carried to the container's next invocation.
      const ms = clock.now() - started;
      scopes.carry(meter.assigned, { lambdaMs: ms, lambdaMbMs: ms * invocation.memoryMb });
    }
  }

  async #write(byOwner: ReadonlyMap<UsageOwner, Usage>, hour: number): Promise<void> {
    const { store, scopes, logger } = this.#deps;
    const owners = [...byOwner].filter(([, usage]) => !isEmptyUsage(usage));
    await mapLimit(owners, WRITE_CONCURRENCY, async ([owner, usage]) => {
      try {
        await scopes.carrying(owner, () => store.addUsage(owner, hour, usage));
      } catch (error) {
        if (isRetriable(error)) scopes.carry(owner, usage);
        logger.warn(
          isRetriable(error)
            ? 'could not record usage; carried to the next invocation'
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
