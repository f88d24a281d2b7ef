import type { TaskConfigSet } from '../../ports/config-store.js';
import { mapLimit } from '../concurrency.js';
import { transactionalIdOf } from '../source/source-task-runner.js';
import type { EnumeratorDeps } from './enumerator-types.js';

/**
 * The KIP-618 fencing round: before any task of a new generation runs, every invocation and
 * transactional producer of a task whose config changed or that is gone is fenced. Revoking
 * the lease makes the old invocation's next pending-offsets write fail (so it commits nothing
 * more); initialising a producer with the task's transactional id aborts its open transaction.
 * A transaction it committed without promoting its offsets is found by the next owner of its
 * source partitions (see source-task-context.ts).
 */
export async function fenceReplacedTasks(
  deps: Pick<EnumeratorDeps, 'store' | 'kafka' | 'settings'>,
  name: string,
  before: TaskConfigSet,
  after: TaskConfigSet,
): Promise<void> {
  if (before.version === after.version) return;
  const { store, kafka, settings } = deps;
  const replaced = before.tasks.filter(
    (old) => after.tasks[old.task]?.generation !== old.generation,
  );
  await mapLimit(replaced, settings.dispatchConcurrency, async ({ task }) => {
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
