import type { Engine } from '../../shared/engine/engine.js';
import type { Logger } from '../../shared/ports/logger.js';
import type { StateStore } from '../../shared/ports/state-store.js';
import type { ProducerPool } from '../../shared/runtime/source/producer-pool.js';
import type { SourceRunOutcome } from '../../shared/runtime/source/source-task-runner.js';
import { InProcessSourceInvoker } from '../dispatch/in-process-invoker.js';

/**
 * Source tasks in the local runtime: Lambda's asynchronous invocations become
 * `InProcessSourceInvoker` runs with a time budget, the next invocation of a task is asked for
 * as soon as one ends (in AWS the one-minute schedule does it), and a shutdown ends every
 * invocation the way a pause does.
 */

/** A state store whose connectors read PAUSED to the source runtime once `drain` is called. */
export interface DrainableStore {
  readonly store: StateStore;
  /** From now on every source invocation stops at its next assignment check. */
  drain(): void;
}

/**
 * `store` as the source runtime sees it during a local shutdown: once `drain()` is called,
 * `configs.getConnector` answers with target state PAUSED. A running invocation re-reads the
 * target state between batches (the lease store's contract), so it ends at its next check as a
 * pause ends it: the transaction in flight (whole poll batches) commits, or aborts when its
 * commit fails, nothing partial is committed, and the lease is released. An invocation that is
 * just starting ends at once (`not-running`). Nothing is written: the stored target state is
 * untouched, so the next start runs the connector again.
 */
export function drainableStore(store: StateStore): DrainableStore {
  let draining = false;
  const configs = new Proxy(store.configs, {
    get(target, property) {
      if (property === 'getConnector') {
        return async (name: string) => {
          const record = await target.getConnector(name);
          return draining && record !== undefined ? { ...record, targetState: 'PAUSED' } : record;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    store: { ...store, configs },
    drain: () => {
      draining = true;
    },
  };
}

/** How soon after an invocation ends its task is dispatched again; undefined: leave it to the schedule. */
export function redispatchDelayMs(outcome: SourceRunOutcome): number | undefined {
  switch (outcome) {
    case 'completed':
      return 0;
    case 'interrupted':
    case 'outcome-unknown':
    case 'awaiting-fencing':
    case 'fenced':
      return 1_000;
    default:
      // failed, not-running, lease-held, stale-generation: the enumerator decides on its next run.
      return undefined;
  }
}

export interface LocalSourceDispatchOptions {
  /** How long one invocation may run (a Lambda timeout minus the safety margin). */
  readonly budgetMs: number;
  readonly logger: Logger;
  /** Asks the enumerator to reconcile a connector (the local reconciler's `nudge`). */
  readonly nudge: (connector: string) => void;
}

/** The local source-task invoker and its shutdown. */
export interface LocalSourceDispatch {
  readonly invoker: InProcessSourceInvoker;
  /** Ends every invocation at its next assignment check and waits for all of them. */
  drain(): Promise<void>;
}

export function localSourceDispatch(
  engine: () => Engine,
  options: LocalSourceDispatchOptions,
): LocalSourceDispatch {
  let drainable: DrainableStore | undefined;
  const store = () => {
    drainable ??= drainableStore(engine().store);
    return drainable;
  };
  let draining = false;
  const services = (producers: ProducerPool) => ({
    source: { ...engine().sourceWith(producers), store: store().store },
    loggers: engine().loggers,
    metering: engine().metering,
  });
  const invoker = new InProcessSourceInvoker(services, () => engine().kafka, {
    budgetMs: options.budgetMs,
    logger: options.logger,
    // The handler logs each invocation's end; here it only decides when the task runs again.
    onResult: (invocation, result) => {
      const delay = redispatchDelayMs(result.outcome);
      if (delay === undefined || draining) return;
      setTimeout(() => {
        if (!draining) options.nudge(invocation.connector);
      }, delay).unref();
    },
  });
  return {
    invoker,
    drain: async () => {
      draining = true;
      store().drain();
      await invoker.drain();
    },
  };
}

/**
 * Takes back the task leases an earlier local process left behind. One local runtime owns its
 * state (dynalite keeps the data folder locked), so an unexpired lease found at start-up belongs
 * to a process that died (SIGKILL, a crash): revoking it bumps the epoch, exactly as a
 * restart request does, so its tasks are dispatched at once instead of after the lease expires.
 * The next invocation's producer initialisation aborts what the dead one left open, and its
 * recovery settles a pending transaction.
 *
 * @returns the tasks whose leases were revoked.
 */
export async function revokeLeftoverLeases(
  store: StateStore,
  now: () => number,
): Promise<{ connector: string; task: number }[]> {
  const revoked: { connector: string; task: number }[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.configs.listConnectors(cursor === undefined ? {} : { cursor });
    for (const connector of page.names) {
      const { tasks } = await store.configs.getTaskConfigs(connector);
      for (const { task } of tasks) {
        const lease = await store.leases.getLease({ connector, task });
        if (lease === undefined || lease.expiresAt <= now()) continue;
        await store.leases.revokeLease({ connector, task });
        revoked.push({ connector, task });
      }
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return revoked;
}
