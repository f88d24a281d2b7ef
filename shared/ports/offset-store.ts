import type { SourcePartitionOffset } from '../connect/records.js';
import type { Fence, TaskRef } from './lease-store.js';

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
  /** Positions of its offset records, for settling the transaction's fate on recovery. */
  readonly positions: readonly OffsetRecordPosition[];
}

/** A task's source offsets; both parts absent when the task never wrote any. */
export interface TaskSourceOffsets extends TaskRef {
  readonly committed?: CommittedSourceOffsets;
  readonly pending?: PendingSourceOffsets;
}

/** A sink connector's position in one topic-partition. */
export interface SinkOffset {
  readonly topic: string;
  readonly partition: number;
  /** The sink runtime's position (last durably written record offset). Non-negative integer. */
  readonly offset: number;
}

/** An explicit sink offset change; `offset: null` forgets the partition. */
export interface SinkOffsetAlteration {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number | null;
}

/**
 * Offsets.
 *
 * Contract (source, per task; every write carries the task's lease as `fence` and fails with
 * `EpochFencedError` once a newer invocation holds the task):
 * - `writePendingSourceOffsets` stores `pending` before the Kafka commit; `pending.seq` must be
 *   above `committed.seq` (else `StaleVersionError`). It replaces an earlier pending.
 * - `promotePendingSourceOffsets(seq)` moves pending to committed after the Kafka commit, only
 *   when pending exists with that seq and `pending.seq > committed.seq` (else
 *   `NoPendingOffsetsError`). `discardPendingSourceOffsets(seq)` drops it after an abort.
 * - Together a healthy transaction costs two single-item writes.
 *
 * Contract (sink, per topic-partition):
 * - `commitSinkOffset` only moves forward: it returns `false` (and changes nothing) when the
 *   stored offset is equal or higher, so concurrent and replayed writers converge on the max.
 * - `alterSinkOffsets` and `resetSinkOffsets` may move backwards or forget partitions, and are
 *   allowed only while the connector's target state is STOPPED (`ConnectorNotStoppedError`;
 *   `ConnectorNotFoundError` for an unknown connector). The check reads the target state just
 *   before writing.
 */
export interface OffsetStore {
  /** The task's source offsets (strongly consistent). */
  getSourceOffsets(ref: TaskRef): Promise<TaskSourceOffsets>;

  /** Source offsets of every task of the connector that has any, sorted by task id. */
  listSourceOffsets(connector: string): Promise<TaskSourceOffsets[]>;

  /** @throws EpochFencedError, StaleVersionError */
  writePendingSourceOffsets(
    ref: TaskRef,
    pending: PendingSourceOffsets,
    fence: Fence,
  ): Promise<void>;

  /** @throws EpochFencedError, NoPendingOffsetsError */
  promotePendingSourceOffsets(
    ref: TaskRef,
    seq: number,
    fence: Fence,
  ): Promise<CommittedSourceOffsets>;

  /**
   * Drops the pending transaction `seq`; returns `false` when there is none with that seq.
   * @throws EpochFencedError
   */
  discardPendingSourceOffsets(ref: TaskRef, seq: number, fence: Fence): Promise<boolean>;

  /** Moves the partition's offset forward; `true` when it moved. One write per partition. */
  commitSinkOffset(connector: string, offset: SinkOffset): Promise<boolean>;

  /** The connector's sink offsets, sorted by topic then partition. */
  getSinkOffsets(connector: string): Promise<SinkOffset[]>;

  /** @throws ConnectorNotFoundError, ConnectorNotStoppedError */
  alterSinkOffsets(connector: string, changes: readonly SinkOffsetAlteration[]): Promise<void>;

  /** Forgets every sink offset of the connector. @throws ConnectorNotFoundError, ConnectorNotStoppedError */
  resetSinkOffsets(connector: string): Promise<void>;
}
