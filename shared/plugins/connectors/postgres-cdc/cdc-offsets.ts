/**
 * The CDC source's partitions and offsets, in Debezium's PostgreSQL shape plus what exactly-once
 * needs.
 *
 * Partition: `{"server": <topic.prefix>}` (Debezium's), plus `"slot": <slot name>` when the
 * connector runs several tasks (one slot each).
 *
 * Streaming offset (after a change event):
 * - `lsn`: the commit LSN of the event's transaction; `event`: the event's index in it (0-based).
 *   Together they order every event: on restart, events at or before them are filtered out.
 * - `lsn_commit`: the WAL position after the last transaction whose events were all delivered;
 *   the slot is confirmed up to it, never further.
 * - `lsn_proc`: the event's own WAL position; `txId`, `ts_usec`: its transaction's id and commit
 *   time (Unix microseconds), as in Debezium.
 *
 * A heartbeat's offset has `lsn` = `lsn_commit` = the server's WAL end, and no `event`.
 *
 * Snapshot offset (after a snapshot row): `snapshot: true`, `lsn` (the slot's consistent point,
 * where streaming starts), `table` (`schema.table`) and `key` (the row's key, as text) to resume
 * after; `last_snapshot_record: true` on the snapshot's last row.
 */
import { DataError, type SourceOffset, type SourcePartition } from 'serverless-connect/connect';
import { type Lsn, lsnFromOffsetValue, lsnToOffsetValue } from './lsn.js';

/** How far streaming got. */
export interface StreamPosition {
  readonly kind: 'stream';
  /** Commit LSN of the last delivered event's transaction (or a heartbeat's WAL end). */
  readonly lsn: Lsn;
  /** The last delivered event's index in that transaction; -1 when none of it was delivered. */
  readonly event: number;
  /** Where the slot may be confirmed to: after the last wholly delivered transaction. */
  readonly confirmable: Lsn;
  readonly eventLsn: Lsn;
  readonly txId: number | null;
  readonly timeMicros: bigint | null;
}

/** How far a snapshot got. */
export interface SnapshotPosition {
  readonly kind: 'snapshot';
  /** The slot's consistent point: streaming starts there once the snapshot is complete. */
  readonly lsn: Lsn;
  /** `schema.table` of the last delivered row. */
  readonly table: string;
  /** The last delivered row's key (primary key columns, or the `ctid`), as text. */
  readonly key: readonly string[];
  readonly timeMicros: bigint | null;
}

export type CdcPosition = StreamPosition | SnapshotPosition;

/** The partition of a task streaming from `slot` (`null` when the connector has one task). */
export function cdcPartition(server: string, slot: string | null): SourcePartition {
  return slot === null ? { server } : { server, slot };
}

/** The slot of a partition (`null`: the connector's only slot). @throws DataError when not ours. */
export function parseCdcPartition(partition: SourcePartition): {
  server: string;
  slot: string | null;
} {
  const { server, slot } = partition as { server?: unknown; slot?: unknown };
  if (typeof server !== 'string' || (slot !== undefined && typeof slot !== 'string')) {
    throw new DataError(
      `Invalid postgres-cdc source partition: expected {"server": <topic.prefix>} with an optional "slot", got ${JSON.stringify(partition)}`,
    );
  }
  return { server, slot: slot ?? null };
}

export function streamOffset(position: Omit<StreamPosition, 'kind'>): SourceOffset {
  return {
    lsn: lsnToOffsetValue(position.lsn),
    lsn_proc: lsnToOffsetValue(position.eventLsn),
    lsn_commit: lsnToOffsetValue(position.confirmable),
    ...(position.txId === null ? {} : { txId: position.txId }),
    ...(position.timeMicros === null ? {} : { ts_usec: Number(position.timeMicros) }),
    ...(position.event < 0 ? {} : { event: position.event }),
  };
}

export function snapshotOffset(
  position: Omit<SnapshotPosition, 'kind'>,
  last: boolean,
): SourceOffset {
  return {
    snapshot: true,
    last_snapshot_record: last,
    lsn: lsnToOffsetValue(position.lsn),
    table: position.table,
    key: [...position.key],
    ...(position.timeMicros === null ? {} : { ts_usec: Number(position.timeMicros) }),
  };
}

function malformed(offset: SourceOffset, why: string): DataError {
  return new DataError(
    `Invalid postgres-cdc source offset (${why}): ${JSON.stringify(offset, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`,
  );
}

function optionalNumber(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : null;
}

/**
 * A stored offset as a position; `null` when none. A snapshot's last record is a stream position
 * at the consistent point (nothing of the stream was delivered yet).
 * @throws DataError when the offset is not this connector's.
 */
export function parseCdcOffset(offset: SourceOffset | null): CdcPosition | null {
  if (offset === null) return null;
  const lsn = lsnFromOffsetValue(offset.lsn);
  if (lsn === undefined) throw malformed(offset, 'no lsn');
  const ts = optionalNumber(offset.ts_usec);
  const timeMicros = ts === null ? null : BigInt(ts);
  const snapshot = offset.snapshot === true || offset.snapshot === 'true';
  const last = offset.last_snapshot_record === true || offset.last_snapshot_record === 'true';
  if (snapshot && !last) {
    const { table, key } = offset as { table?: unknown; key?: unknown };
    if (
      typeof table !== 'string' ||
      !Array.isArray(key) ||
      key.some((k) => typeof k !== 'string')
    ) {
      throw malformed(offset, 'a snapshot offset needs table and key');
    }
    return { kind: 'snapshot', lsn, table, key: key as string[], timeMicros };
  }
  if (snapshot) {
    return {
      kind: 'stream',
      lsn,
      event: -1,
      confirmable: lsn,
      eventLsn: lsn,
      txId: null,
      timeMicros,
    };
  }
  const confirmable = lsnFromOffsetValue(offset.lsn_commit) ?? lsn;
  const event = optionalNumber(offset.event) ?? -1;
  return {
    kind: 'stream',
    lsn,
    event,
    confirmable,
    eventLsn: lsnFromOffsetValue(offset.lsn_proc) ?? lsn,
    txId: optionalNumber(offset.txId),
    timeMicros,
  };
}

/** Whether the event `event` of the transaction committed at `commitLsn` is at or before `position`. */
export function isDelivered(commitLsn: Lsn, event: number, position: StreamPosition): boolean {
  return commitLsn < position.lsn || (commitLsn === position.lsn && event <= position.event);
}
