import { RetriableError } from '../../connect/errors.js';
import type { KafkaAdminPort } from '../../ports/kafka.js';
import type { LeaseFence, TaskRef } from '../../ports/lease-store.js';
import type { CommittedSourceOffsets, OffsetStore } from '../../ports/offset-store.js';
import { pendingFate } from '../task/source-transaction-fate.js';

export interface RecoveryDeps {
  readonly offsets: OffsetStore;
  readonly admin: KafkaAdminPort;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
}

export interface RecoveryRequest {
  readonly ref: TaskRef;
  readonly fence: LeaseFence;
  /** How long to wait for an undecided fate before giving up (retriable), in ms. */
  readonly fateTimeoutMs?: number;
}

export type RecoveryOutcome =
  | { readonly kind: 'clean' }
  | { readonly kind: 'promoted' }
  | { readonly kind: 'discarded' };

export interface RecoveryResult {
  readonly committed: CommittedSourceOffsets;
  readonly outcome: RecoveryOutcome;
}

const none: CommittedSourceOffsets = { seq: 0, offsets: [] };

/**
 * Step 1 of the exactly-once source protocol (docs/exactly-once-source.md). Must run after the
 * task's transactional producer was initialised, which completes or aborts any transaction an
 * earlier invocation left open. A pending entry above `committed` belongs to an invocation that
 * died around its commit; its fate decides whether its offsets count: the pending's first
 * offset record (its probe) visible to read_committed readers means committed; not visible once
 * the partition's stable end passed it means aborted; a pending without a probe advanced no
 * offsets and is discarded.
 */
export async function recoverSourceOffsets(
  deps: RecoveryDeps,
  request: RecoveryRequest,
): Promise<RecoveryResult> {
  const { ref, fence } = request;
  const state = await deps.offsets.getSourceOffsets(ref);
  const committed = state.committed ?? none;
  const pending = state.pending;
  if (pending === undefined || pending.seq <= committed.seq) {
    return { committed, outcome: { kind: 'clean' } };
  }

  const deadline = deps.now() + (request.fateTimeoutMs ?? 30_000);
  for (;;) {
    const fate = await pendingFate(deps.admin, pending);
    if (fate.decided === 'committed') {
      const promoted = await deps.offsets.promotePendingSourceOffsets(ref, pending.seq, fence);
      return { committed: promoted, outcome: { kind: 'promoted' } };
    }
    if (fate.decided === 'aborted') {
      await deps.offsets.discardPendingSourceOffsets(ref, pending.seq, fence);
      return { committed, outcome: { kind: 'discarded' } };
    }
    if (deps.now() >= deadline) {
      throw new RetriableError(
        `${ref.connector}-${ref.task}: the transaction of pending offsets ${pending.seq} is still undecided`,
      );
    }
    await deps.sleep(200);
  }
}
