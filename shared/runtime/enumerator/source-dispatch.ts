/**
 * Source-task dispatch, the enumerator's last step for a running source connector: one
 * asynchronous invocation per task that may run now.
 */
import type { ConnectorRecord, TaskConfigSet } from '../../ports/config-store.js';
import { mapLimit } from '../task/concurrency.js';
import { idleDispatch } from '../task/idle-backoff.js';
import type { EnumeratorDeps } from './enumerator-types.js';

/** What a dispatch round did: the tasks invoked and the ones left to their idle back-off. */
export interface SourceDispatch {
  readonly dispatched: number[];
  readonly deferred: number[];
}

/**
 * Invokes every source task that is not FAILED, not held by a live invocation and not idle
 * within its back-off (unless `immediate`: the run answers an event for the connector). One
 * read per task (its lease item: lease and idle streak) besides the connector's statuses.
 */
export async function dispatchSourceTasks(
  deps: Pick<EnumeratorDeps, 'store' | 'invoker' | 'clock' | 'settings'>,
  record: ConnectorRecord,
  taskSet: TaskConfigSet,
  immediate: boolean,
): Promise<SourceDispatch> {
  const { store, invoker, clock, settings } = deps;
  const name = record.name;
  // Tasks still to be fenced: nothing starts until a run completes the zombie-fencing round.
  if ((taskSet.fencing ?? []).length > 0) return { dispatched: [], deferred: [] };
  const stateOf = new Map(
    (await store.status.listTaskStatuses(name)).map((s) => [s.task, s.state]),
  );
  const now = clock.now();
  const deferred: number[] = [];
  const dispatched = await mapLimit(
    taskSet.tasks.filter((t) => stateOf.get(t.task) !== 'FAILED'),
    settings.dispatchConcurrency,
    async ({ task, generation }) => {
      const { lease, idle } = await store.leases.getLeaseState({ connector: name, task });
      if (lease !== undefined && lease.expiresAt > now) return undefined;
      const decision = idleDispatch(
        { idle, state: stateOf.get(task), version: record.version, generation, now, immediate },
        settings.idleBackoff,
      );
      if (!decision.dispatch) {
        deferred.push(task);
        return undefined;
      }
      await invoker.invoke({
        connector: name,
        task,
        generation,
        ...(decision.idleStreak === 0 ? {} : { idleStreak: decision.idleStreak }),
      });
      return task;
    },
  );
  return {
    dispatched: dispatched.filter((t): t is number => t !== undefined),
    deferred: deferred.sort((a, b) => a - b),
  };
}
