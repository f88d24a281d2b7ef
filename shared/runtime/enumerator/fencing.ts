import type { TaskConfigSet } from '../../ports/config-store.js';
import { StaleVersionError } from '../../ports/errors.js';
import { mapLimit } from '../concurrency.js';
import { transactionalIdOf } from '../source/source-task-runner.js';
import type { EnumeratorDeps } from './enumerator-types.js';

const STALE_RETRIES = 5;

/**
 * The KIP-618 fencing round, completed from the state rather than from what this run wrote.
 * Every task-config write lists the tasks it replaced (changed or removed) in the set's
 * `fencing` list, atomically with the new configs; no task of the connector starts while the
 * list is non-empty (the source runner checks it after taking its lease). This round fences
 * each listed task, then empties the list if no newer write landed meanwhile (a newer write
 * keeps the listed tasks and adds its own, so the round runs again on what it reads).
 *
 * Fencing a source task revokes its lease, so the old invocation's next pending-offsets write
 * fails and it commits nothing more, and initialises a producer with the task's transactional
 * id, which aborts its open transaction (or waits for a commit already under way). A
 * transaction it committed without promoting its offsets is found by the next owner of its
 * source partitions (see source-task-context.ts).
 *
 * Because the list lives in the state, a run that dies between writing configs and fencing, or
 * a concurrent run that reads the new configs before the writer fenced, cannot start new tasks
 * early: whichever run comes next completes the round first.
 */
export async function completeFencing(
  deps: Pick<EnumeratorDeps, 'store' | 'kafka' | 'settings'>,
  name: string,
  initial: TaskConfigSet,
  kind: 'source' | 'sink',
): Promise<TaskConfigSet> {
  const { store, kafka, settings } = deps;
  let current = initial;
  for (let attempt = 0; (current.fencing ?? []).length > 0; attempt += 1) {
    // Sink tasks hold no producer or lease of their own: their list only has to be emptied.
    if (kind === 'source') {
      await mapLimit(current.fencing ?? [], settings.dispatchConcurrency, async (task) => {
        await store.leases.revokeLease({ connector: name, task });
        const producer = kafka.transactionalProducer(
          transactionalIdOf(settings.transactionalIdPrefix, name, task),
        );
        try {
          await producer.connect();
        } finally {
          await producer.close();
        }
      });
    }
    try {
      current = await store.configs.clearFencing(name, current.version);
    } catch (error) {
      if (!(error instanceof StaleVersionError) || attempt >= STALE_RETRIES) throw error;
      current = await store.configs.getTaskConfigs(name);
    }
  }
  return current;
}
