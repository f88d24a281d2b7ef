import { RetriableError } from '../../connect/errors.js';
import type { KafkaAdminPort } from '../../ports/kafka.js';
import type { Fence, TaskRef } from '../../ports/lease-store.js';
import type {
  CommittedSourceOffsets,
  OffsetStore,
  PendingSourceOffsets,
} from '../../ports/offset-store.js';

export interface RecoveryDeps {
  readonly offsets: OffsetStore;
  readonly admin: KafkaAdminPort;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
}

export interface RecoveryRequest {
  readonly ref: TaskRef;
  readonly fence: Fence;
  /** The commit-marker group (`<prefix>-<connector>-<task>`), committed at seq on markerTopic-0. */
  readonly markerGroup: string;
  readonly markerTopic: string;
  /** How long to wait for an undecided transaction before giving up (retriable), in ms. */
  readonly settleTimeoutMs?: number;
}

export type RecoveryOutcome =
  | { readonly kind: 'clean' }
  | { readonly kind: 'promoted'; readonly via: 'marker' | 'log' }
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
 * died around its commit; its fate decides whether its offsets count:
 * - the commit marker (the marker group's committed offset, written in the same transaction) at
 *   or above pending.seq proves it committed;
 * - otherwise the marker may only be stale, so the offsets topic decides: the pending's first
 *   offset record visible to read_committed readers means committed; not visible once the
 *   partition's stable end passed it means aborted.
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

  const deadline = deps.now() + (request.settleTimeoutMs ?? 30_000);
  for (;;) {
    const fate = await pendingFate(deps.admin, request, pending);
    if (fate.decided === 'committed') {
      const promoted = await deps.offsets.promotePendingSourceOffsets(ref, pending.seq, fence);
      return { committed: promoted, outcome: { kind: 'promoted', via: fate.via } };
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

/** What became of a pending transaction, as far as Kafka can tell now. */
export type PendingFate =
  | { readonly decided: 'committed'; readonly via: 'marker' | 'log' }
  | { readonly decided: 'aborted' }
  | { readonly decided: 'open' };

/**
 * The fate of `pending`: the commit marker at or above its seq proves it committed; otherwise
 * its first offset record decides (visible to read_committed readers = committed, passed by the
 * stable end and invisible = aborted, else still open). A pending that wrote no record can be
 * dropped (it is treated as aborted: its offsets are re-derived from committed).
 */
export async function pendingFate(
  admin: KafkaAdminPort,
  marker: { readonly markerGroup: string; readonly markerTopic: string },
  pending: PendingSourceOffsets,
): Promise<PendingFate> {
  const markers = await admin.committedOffsets(marker.markerGroup, marker.markerTopic);
  if ((markers.find((m) => m.partition === 0)?.offset ?? 0) >= pending.seq) {
    return { decided: 'committed', via: 'marker' };
  }
  const position = pending.positions[0];
  if (position === undefined) return { decided: 'aborted' };
  const fate = await admin.transactionalRecordFate({
    topic: position.topic,
    partition: position.partition,
    offset: Number(position.offset),
  });
  return fate === 'committed' ? { decided: 'committed', via: 'log' } : { decided: fate };
}
