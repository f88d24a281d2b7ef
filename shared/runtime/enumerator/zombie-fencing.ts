import type { TaskConfigSet } from '../../ports/config-store.js';
import { StaleVersionError } from '../../ports/errors.js';
import type { TaskRef } from '../../ports/lease-store.js';
import { mapLimit } from '../task/concurrency.js';
import { pendingFate, transactionalIdOf } from '../task/source-transaction-fate.js';
import type { EnumeratorDeps, EnumeratorSettings } from './enumerator-types.js';

const STALE_RETRIES = 5;

/** The settings the round reads (the enumerator's, or the REST API's for a stop). */
export type ZombieFencingSettings = Pick<
  EnumeratorSettings,
  'transactionalIdPrefix' | 'dispatchConcurrency'
>;

/** What the round needs: the enumerator runs it with its own deps, the REST API with its own. */
export type ZombieFencingDeps = Pick<
  EnumeratorDeps,
  'store' | 'kafka' | 'admin' | 'clock' | 'logger'
> & {
  readonly settings: ZombieFencingSettings;
};

/**
 * The round, completed from the state rather than from what this run wrote. Every task-config
 * write lists the tasks it replaced (changed or removed) in the set's `fencing` list, atomically
 * with the new configs; no task of the connector starts while the list is non-empty (the source
 * runner checks it after taking its lease: `awaiting-fencing`). This round fences each listed
 * task, then empties the list if no newer write landed meanwhile (a newer write keeps the listed
 * tasks and adds its own, so the round runs again on what it reads).
 *
 * Fencing a source task raises both of its fences: it revokes its lease (a new epoch), so the old
 * invocation's next lease-fenced store write fails and it commits nothing more, and it
 * initialises a producer with the task's transactional id (the producer fence), which aborts its
 * open transaction (or waits for a commit already under way). The round then settles what the
 * fenced invocation left pending (a running task always has its last transaction pending:
 * transaction N is promoted only with N+1's pending entry), so the offsets a stopped connector
 * shows are those committed to Kafka: the pending transaction's fate (its first offset record,
 * as recovery decides it) promotes or discards it, in one write conditional on
 * the task staying unleased at the revoked epoch. A fate not decided yet, a task leased again
 * meanwhile, or a failure of this step (logged, never failing the round) leaves the entry to the
 * next start's recovery, or to the next owner of its source partitions (see
 * source-task-context.ts).
 *
 * Because the list lives in the state, a run that dies between writing configs and fencing, or
 * a concurrent run that reads the new configs before the writer fenced, cannot start new tasks
 * early: whichever run comes next completes the round first.
 *
 * Two rounds may run at once (two enumerator runs, or an enumerator run and a REST offsets
 * request): every step is idempotent or conditional, so the one that loses a race finds the work
 * done. A second revocation only bumps the epoch again; a second InitProducerId fences the
 * first round's throwaway producer, which is closed anyway; the promote-or-discard write of the
 * round whose epoch was overtaken does nothing (the round that revoked last settles); and
 * emptying the list is a conditional REMOVE on the set's version, which succeeds again on an
 * already empty list (only a newer task-config write makes it stale, and then the round reads
 * and fences again).
 *
 * Sink tasks hold no lease or producer of their own: their list is only emptied.
 */
export async function fenceZombies(
  deps: ZombieFencingDeps,
  name: string,
  initial: TaskConfigSet,
  kind: 'source' | 'sink',
): Promise<TaskConfigSet> {
  const { store, kafka, settings } = deps;
  let current = initial;
  for (let attempt = 0; (current.fencing ?? []).length > 0; attempt += 1) {
    if (kind === 'source') {
      await mapLimit(current.fencing ?? [], settings.dispatchConcurrency, async (task) => {
        const ref = { connector: name, task };
        const revokedEpoch = await store.leases.revokeLease(ref);
        const transactionalId = transactionalIdOf(settings.transactionalIdPrefix, name, task);
        const producer = kafka.transactionalProducer(transactionalId);
        try {
          await producer.connect();
        } finally {
          await producer.close();
        }
        await settleZombiePending(deps, ref, revokedEpoch);
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

/**
 * The round for a stopped source connector, waited for at most `timeoutMs` (a REST request
 * must answer in time): `'fenced'` when it completed, `'timed-out'` when it had not by then (it
 * goes on in the background, its failure logged; the enumerator completes it otherwise).
 * Rejects with the round's own failure when it failed in time.
 */
export async function fenceZombiesWithin(
  deps: ZombieFencingDeps,
  name: string,
  tasks: TaskConfigSet,
  timeoutMs: number,
): Promise<'fenced' | 'timed-out'> {
  const started = deps.clock.now();
  const round = fenceZombies(deps, name, tasks, 'source').then(
    (): { readonly error?: unknown } => ({}),
    (error: unknown) => ({ error }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const outcome = await Promise.race([round, timeout]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    const fields = { connector: name, tasks: tasks.fencing, ms: deps.clock.now() - started };
    deps.logger.warn('the stop’s zombie-fencing round did not finish within the request', fields);
    void round.then(({ error }) => {
      if (error === undefined) return;
      deps.logger.warn('the stop’s zombie-fencing round failed', { ...fields, error });
    });
    return 'timed-out';
  }
  if (outcome.error !== undefined) throw outcome.error;
  return 'fenced';
}

/**
 * Settles the pending transaction of a task fenced at `revokedEpoch`: decides its fate and
 * promotes or discards it. Never throws: what it cannot settle, the task's next start recovers.
 */
async function settleZombiePending(
  deps: ZombieFencingDeps,
  ref: TaskRef,
  revokedEpoch: number,
): Promise<void> {
  const { store, admin, logger } = deps;
  const fields = { connector: ref.connector, task: ref.task };
  try {
    const { committed, pending } = await store.offsets.getSourceOffsets(ref);
    if (pending === undefined || pending.seq <= (committed?.seq ?? 0)) return;
    const fate = await pendingFate(admin, pending);
    if (fate.decided === 'open') {
      logger.debug(
        'the fenced task left a transaction still undecided; its next start settles it',
        {
          ...fields,
          seq: pending.seq,
        },
      );
      return;
    }
    const written = await store.offsets.promoteOrDiscardRevokedPendingSourceOffsets(
      ref,
      pending.seq,
      revokedEpoch,
      fate.decided,
    );
    logger.debug(
      written
        ? 'settled the pending source offsets of a fenced task'
        : 'left the pending source offsets of a fenced task to its next start (leased again, or the entry changed)',
      { ...fields, seq: pending.seq, fate: fate.decided },
    );
  } catch (error) {
    logger.warn(
      'could not settle the pending source offsets of a fenced task; its next start recovers them',
      { ...fields, error: error instanceof Error ? error : String(error) },
    );
  }
}
