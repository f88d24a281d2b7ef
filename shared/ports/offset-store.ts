import type { SourcePartitionOffset } from '../connect/records.js';
import type { LeaseFence, TaskRef } from './lease-store.js';

/**
 * Source offsets per task (the exactly-once protocol's pending / committed pair) and sink
 * offsets per topic-partition.
 */

/**
 * One source partition and its offset (`null` = tombstone: the partition's offset was reset),
 * the plugin API's own shape. Stored as JSON, as Kafka Connect serialises them: values must be
 * JSON-serialisable.
 */
export type SourceOffsetEntry = SourcePartitionOffset & {
  /**
   * When the runtime last advanced this partition's offset (epoch ms). Stored as given; the
   * runtime uses it to pick the freshest entry when a source partition moved between tasks.
   */
  readonly at?: number;
};

/** Where a source offset record of a pending transaction landed in the offsets topic. */
export interface OffsetRecordPosition {
  readonly topic: string;
  readonly partition: number;
  /** Kafka offset, as a decimal string (int64). */
  readonly offset: string;
}

/** Offsets of a transaction that was promoted after its Kafka commit succeeded. */
export interface CommittedSourceOffsets {
  /** Transaction sequence number; 1 for a task's first transaction. */
  readonly seq: number;
  readonly offsets: readonly SourceOffsetEntry[];
}

/** Offsets of a transaction about to commit, written before the Kafka commit. */
export interface PendingSourceOffsets extends CommittedSourceOffsets {
  /** Positions of its offset records, for deciding the transaction's fate on recovery. */
  readonly positions: readonly OffsetRecordPosition[];
}

/** A task's source offsets; both parts absent when the task never wrote any. */
export interface TaskSourceOffsets extends TaskRef {
  readonly committed?: CommittedSourceOffsets;
  readonly pending?: PendingSourceOffsets;
}

/**
 * The task number under which `listSourceOffsets` returns the connector's admin entry: the
 * source offsets altered or reset through the REST API (`PATCH` / `DELETE
 * /connectors/{c}/offsets`). No task ever has it (task numbers start at 0), and it sorts before
 * every task. admin-source-offsets.ts computes the entry for every adapter.
 */
export const ADMIN_OFFSETS_TASK = -1;

/**
 * The task number under which `listSourceOffsets` returns the connector's Kafka entry: source
 * offsets the runtime adopted from the offsets topic because the store held an older entry or
 * none (a lost or restored state table, a re-created connector; see
 * shared/runtime/source/offsets-reconcile.ts). Like the admin entry, `committed` only; sorts first.
 */
export const KAFKA_OFFSETS_TASK = -2;

/** How far the offsets topic was read into the Kafka entry: per partition, the next offset to read. */
export interface OffsetsTopicWatermark {
  readonly topic: string;
  readonly next: readonly { readonly partition: number; readonly offset: number }[];
}

/** The connector's Kafka entry; `seq` 0 and no offsets when there is none. */
export interface KafkaSourceOffsets extends CommittedSourceOffsets {
  readonly watermark?: OffsetsTopicWatermark;
}

/** An explicit source offset change; `offset: null` resets the partition (it starts afresh). */
export type SourceOffsetAlteration = SourcePartitionOffset;

/**
 * A sink connector's position in one topic-partition, in Kafka's meaning of a committed offset:
 * the offset of the next record to read, i.e. the first one not yet durably written. A sink that
 * wrote offsets 0..9 stores 10; 0 means nothing was written. It is what Kafka Connect commits
 * for the sink's consumer group and shows as `kafka_offset`, so it crosses every boundary
 * (REST, consumer group seeding, stopping offsets) unchanged.
 */
export interface SinkOffset {
  readonly topic: string;
  readonly partition: number;
  /** The offset of the next record to read (last durably written + 1). Non-negative integer. */
  readonly nextOffset: number;
}

/**
 * An explicit sink offset change: `nextOffset` is the offset of the next record to read, as
 * {@link SinkOffset}; `null` forgets the partition (it starts afresh).
 */
export interface SinkOffsetAlteration {
  readonly topic: string;
  readonly partition: number;
  readonly nextOffset: number | null;
}

/**
 * Offsets.
 *
 * Contract (source, per task; every write carries the task's lease as `fence` and fails with
 * `LeaseFencedError` once a newer invocation holds the task):
 * - `writePendingSourceOffsets` stores `pending` before the Kafka commit; `pending.seq` must be
 *   above `committed.seq` (else `StaleVersionError`). It replaces an earlier pending.
 * - `promotePendingSourceOffsets(seq)` moves pending to committed after the Kafka commit, only
 *   when pending exists with that seq and `pending.seq > committed.seq` (else
 *   `NoPendingOffsetsError`). `discardPendingSourceOffsets(seq)` drops it after an abort.
 * - Together a healthy transaction costs two single-item writes; one when the promotion of a
 *   transaction and the pending entry of the next go together
 *   (`promoteAndWritePendingSourceOffsets`).
 * - The one source write without a lease fence is
 *   `promoteOrDiscardRevokedPendingSourceOffsets`: the zombie-fencing round settles a revoked
 *   task's pending transaction while the task stays unleased at the epoch the revocation set.
 *
 * Contract (source, REST alterations; KIP-875):
 * - `alterSourceOffsets` and `resetSourceOffsets` never write a task's entry: they write the
 *   connector's admin entry, which `listSourceOffsets` returns as one more TaskSourceOffsets
 *   with task {@link ADMIN_OFFSETS_TASK} (listed first) and `committed` only. Each changed
 *   partition gets an entry `{partition, offset, at}` whose `at` is newer than every entry
 *   stored for the connector (`max(now, newest at + 1)`), so the runtime's lookup (per partition
 *   the entry with the newest `at` across all entries) returns it until a task advances the
 *   partition again. A reset is an entry with `offset: null`: the lookup finds null and the task
 *   starts the partition afresh. The admin entry keeps its earlier entries for other
 *   partitions; its `committed.seq` goes up by one per write.
 * - `resetSourceOffsets` writes a null entry for every partition that any task (committed or
 *   pending) or the admin entry holds, and nothing when there is none; nothing is removed.
 * - Both are allowed only while the connector's target state is STOPPED
 *   (`ConnectorNotStoppedError`; `ConnectorNotFoundError` for an unknown connector), checked
 *   just before writing. Concurrent alterations serialise on the admin entry's seq; one that
 *   keeps losing raises `StaleVersionError`; an admin entry that would outgrow one stored item
 *   raises `ItemTooLargeError`. Deleting the connector with `keepOffsets` keeps it.
 *
 * Contract (sink, per topic-partition; offsets are "next to read", see {@link SinkOffset}):
 * - `commitSinkOffset` only moves forward: it returns `false` (and changes nothing) when the
 *   stored next offset is equal or higher, so concurrent and replayed writers converge on the
 *   max.
 * - `alterSinkOffsets` and `resetSinkOffsets` may move backwards or forget partitions, and are
 *   allowed only while the connector's target state is STOPPED (`ConnectorNotStoppedError`;
 *   `ConnectorNotFoundError` for an unknown connector). The check reads the target state just
 *   before writing.
 */
export interface OffsetStore {
  /** The task's source offsets (strongly consistent). */
  getSourceOffsets(ref: TaskRef): Promise<TaskSourceOffsets>;

  /**
   * Source offsets of every task of the connector that has any, sorted by task id, the admin
   * entry (task {@link ADMIN_OFFSETS_TASK}) first when there is one.
   */
  listSourceOffsets(connector: string): Promise<TaskSourceOffsets[]>;

  /** @throws LeaseFencedError, StaleVersionError */
  writePendingSourceOffsets(
    ref: TaskRef,
    pending: PendingSourceOffsets,
    fence: LeaseFence,
  ): Promise<void>;

  /** @throws LeaseFencedError, NoPendingOffsetsError */
  promotePendingSourceOffsets(
    ref: TaskRef,
    seq: number,
    fence: LeaseFence,
  ): Promise<CommittedSourceOffsets>;

  /**
   * `promotePendingSourceOffsets(ref, promoteSeq)` then `writePendingSourceOffsets(ref,
   * pending)` as one atomic write: a task that commits one transaction after another promotes
   * transaction N with the pending entry of N+1, so a healthy transaction costs one write.
   * Changes nothing when it throws.
   * @throws LeaseFencedError, NoPendingOffsetsError (as promote), StaleVersionError when
   *   `pending.seq` is not above `promoteSeq`
   */
  promoteAndWritePendingSourceOffsets(
    ref: TaskRef,
    promoteSeq: number,
    pending: PendingSourceOffsets,
    fence: LeaseFence,
  ): Promise<CommittedSourceOffsets>;

  /**
   * Drops the pending transaction `seq`; returns `false` when there is none with that seq.
   * @throws LeaseFencedError
   */
  discardPendingSourceOffsets(ref: TaskRef, seq: number, fence: LeaseFence): Promise<boolean>;

  /**
   * Promotes or discards, by its fate (`outcome`), the pending transaction `seq` of a task taken
   * away from its invocation, without a lease of its own: the enumerator's zombie-fencing round
   * calls it after `revokeLease` (which returned `revokedEpoch`) and after initialising a
   * producer with the task's transactional id, which completed or aborted the fenced
   * invocation's transaction. `'committed'` moves pending to committed (as
   * `promotePendingSourceOffsets`), `'aborted'` drops it (as `discardPendingSourceOffsets`).
   *
   * One conditional write: it applies only while the task is still unleased at exactly
   * `revokedEpoch` (no owner, epoch = `revokedEpoch`: nobody took the task since, so nobody
   * else settles it) and pending is `seq` (for a promotion, also above committed).
   * @returns `true` when it wrote; `false`, changing nothing, otherwise (the task was leased
   *   since, or nothing or another seq is pending). Never throws for those.
   */
  promoteOrDiscardRevokedPendingSourceOffsets(
    ref: TaskRef,
    seq: number,
    revokedEpoch: number,
    outcome: 'committed' | 'aborted',
  ): Promise<boolean>;

  /**
   * Moves the partition's next offset forward to `offset.nextOffset`; `true` when it moved. One
   * write per partition.
   */
  commitSinkOffset(connector: string, offset: SinkOffset): Promise<boolean>;

  /** The connector's sink offsets, sorted by topic then partition. */
  getSinkOffsets(connector: string): Promise<SinkOffset[]>;

  /** @throws ConnectorNotFoundError, ConnectorNotStoppedError */
  alterSinkOffsets(connector: string, changes: readonly SinkOffsetAlteration[]): Promise<void>;

  /** Forgets every sink offset of the connector. @throws ConnectorNotFoundError, ConnectorNotStoppedError */
  resetSinkOffsets(connector: string): Promise<void>;

  /** The connector's Kafka entry (strongly consistent). */
  getKafkaSourceOffsets(connector: string): Promise<KafkaSourceOffsets>;

  /**
   * Replaces the connector's Kafka entry with `next` if its seq is still `next.seq - 1` (0: there
   * is none). Needs no lease: its entries are only ever as new as records already committed in
   * the offsets topic, stamped with those records' timestamps.
   * @throws StaleVersionError (another task wrote it first: read again), ItemTooLargeError
   */
  writeKafkaSourceOffsets(connector: string, next: KafkaSourceOffsets): Promise<void>;

  /**
   * Records `changes` in the connector's admin entry (see the contract above).
   * @throws ConnectorNotFoundError, ConnectorNotStoppedError, StaleVersionError, ItemTooLargeError
   */
  alterSourceOffsets(connector: string, changes: readonly SourceOffsetAlteration[]): Promise<void>;

  /**
   * Resets every source partition the connector has an entry for (see the contract above).
   * @throws ConnectorNotFoundError, ConnectorNotStoppedError, StaleVersionError, ItemTooLargeError
   */
  resetSourceOffsets(connector: string): Promise<void>;
}
