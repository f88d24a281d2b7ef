/**
 * The DynamoDB Streams source's partitions and offsets: partition `{"table": t, "shard": s}`
 * (one per shard), offset `{"sequenceNumber": n}` after a record, plus `"closed": true` on the
 * last record of a closed shard (the shard is complete: its children may be read).
 */
import { DataError, type SourceOffset, type SourcePartition } from 'serverless-connect/connect';

export const TABLE_PARTITION_KEY = 'table';
export const SHARD_PARTITION_KEY = 'shard';
export const SEQUENCE_NUMBER_OFFSET_KEY = 'sequenceNumber';
export const CLOSED_OFFSET_KEY = 'closed';

/** A parsed source partition. */
export interface ShardRef {
  readonly table: string;
  readonly shard: string;
}

/** A parsed source offset. */
export interface ShardOffset {
  /** The last record delivered; `null` only for a `closed` offset without one. */
  readonly sequenceNumber: string | null;
  /** The shard is closed and was read to its end. */
  readonly closed: boolean;
}

/** The source partition of `shard` of `table`. */
export function shardPartition(table: string, shard: string): SourcePartition {
  return { [TABLE_PARTITION_KEY]: table, [SHARD_PARTITION_KEY]: shard };
}

/** The source offset after the record with `sequenceNumber`. */
export function shardOffset(sequenceNumber: string, closed: boolean): SourceOffset {
  return closed
    ? { [SEQUENCE_NUMBER_OFFSET_KEY]: sequenceNumber, [CLOSED_OFFSET_KEY]: true }
    : { [SEQUENCE_NUMBER_OFFSET_KEY]: sequenceNumber };
}

/** The shard of a source partition. Throws DataError when it is not one of this connector's. */
export function parseShardPartition(partition: SourcePartition): ShardRef {
  const table = partition[TABLE_PARTITION_KEY];
  const shard = partition[SHARD_PARTITION_KEY];
  if (typeof table !== 'string' || table === '' || typeof shard !== 'string' || shard === '') {
    throw new DataError(
      `Invalid DynamoDB Streams source partition: expected {"${TABLE_PARTITION_KEY}": <string>, "${SHARD_PARTITION_KEY}": <string>}, got ${JSON.stringify(partition)}`,
    );
  }
  return { table, shard };
}

/**
 * A stored offset, `null` when none. Sequence numbers are strings of digits (a number is
 * accepted when it is a safe integer); `closed` defaults to false. Throws DataError when
 * malformed.
 */
export function parseShardOffset(offset: SourceOffset | null): ShardOffset | null {
  if (offset === null) return null;
  const raw = offset[SEQUENCE_NUMBER_OFFSET_KEY];
  const closedRaw = offset[CLOSED_OFFSET_KEY];
  const sequenceNumber =
    typeof raw === 'string' && /^\d+$/.test(raw)
      ? raw
      : (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) ||
          typeof raw === 'bigint'
        ? String(raw)
        : raw === undefined || raw === null
          ? null
          : undefined;
  const closed =
    closedRaw === undefined || closedRaw === null
      ? false
      : closedRaw === true || closedRaw === 'true'
        ? true
        : closedRaw === false || closedRaw === 'false'
          ? false
          : undefined;
  if (
    sequenceNumber === undefined ||
    closed === undefined ||
    (sequenceNumber === null && !closed)
  ) {
    throw new DataError(
      `Invalid DynamoDB Streams source offset: expected {"${SEQUENCE_NUMBER_OFFSET_KEY}": "<digits>"} with an optional "${CLOSED_OFFSET_KEY}": <boolean>, got ${JSON.stringify(offset, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`,
    );
  }
  return { sequenceNumber, closed };
}
