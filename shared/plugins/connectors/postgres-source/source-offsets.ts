/**
 * Source partitions and offsets exactly as Confluent's JDBC source stores them, so offsets
 * move between it and this connector:
 *
 * - table mode: `{"protocol": "1", "table": "<schema>.<table>"}` (Confluent's offset protocol
 *   1; its PostgreSQL dialect drops the database from the name). Read on start, in order: that,
 *   `{"protocol": "1", "table": "<database>.<schema>.<table>"}` (what Confluent wrote with pgjdbc
 *   42.7.5+ before it dropped the database) and protocol 0's `{"table": "<table>"}`.
 * - custom query: `{"query": "query"}`.
 * - bulk mode: Confluent's `{"table": "<table>"}` (or `{"query": "query"}`), with no offset on
 *   its records but the last of a complete snapshot (see {@link bulkOffset}).
 * - offsets: `{"incrementing": n}`, `{"timestamp": ms, "timestamp_nanos": ns}` or both, where
 *   `timestamp` is epoch milliseconds and `timestamp_nanos` the nanoseconds within the second
 *   (java.sql.Timestamp's `getTime()` and `getNanos()`).
 *
 * Pure.
 */
import { DataError, type SourceOffset, type SourcePartition } from 'serverless-connect/connect';
import { MICROS_PER_MILLI, MICROS_PER_SECOND, microsToMillis } from './pg-time.js';

export const PROTOCOL_KEY = 'protocol';
export const PROTOCOL_VERSION_ONE = '1';
export const TABLE_KEY = 'table';
export const QUERY_KEY = 'query';
export const QUERY_VALUE = 'query';
export const INCREMENTING_FIELD = 'incrementing';
export const TIMESTAMP_FIELD = 'timestamp';
export const TIMESTAMP_NANOS_FIELD = 'timestamp_nanos';
/** Ours: when the last complete bulk snapshot started (epoch ms), to pace `poll.interval.ms` across restarts. */
export const BULK_SNAPSHOT_FIELD = 'bulk_snapshot_started';

/** A table with its schema. */
export interface SourceTable {
  readonly schema: string;
  readonly table: string;
}

/**
 * How far a table was read: the last delivered row's timestamp (microseconds since the epoch)
 * and incrementing value, each `null` when not stored.
 */
export interface Position {
  readonly timestamp: bigint | null;
  readonly incrementing: bigint | null;
}

export const NO_POSITION: Position = Object.freeze({ timestamp: null, incrementing: null });

/** The partition this connector writes for `table` (protocol 1). */
export function tablePartition(table: SourceTable): SourcePartition {
  return { [PROTOCOL_KEY]: PROTOCOL_VERSION_ONE, [TABLE_KEY]: `${table.schema}.${table.table}` };
}

/** Every partition `table`'s offsets may be stored under, newest format first. */
export function tablePartitionCandidates(table: SourceTable, database: string): SourcePartition[] {
  return [
    tablePartition(table),
    {
      [PROTOCOL_KEY]: PROTOCOL_VERSION_ONE,
      [TABLE_KEY]: `${database}.${table.schema}.${table.table}`,
    },
    { [TABLE_KEY]: table.table },
  ];
}

/** The partition of a custom query. */
export function queryPartition(): SourcePartition {
  return { [QUERY_KEY]: QUERY_VALUE };
}

/** The partition of `table` in bulk mode (Confluent's protocol 0 form), or of the query. */
export function bulkPartition(table: SourceTable | null): SourcePartition {
  return table === null ? queryPartition() : { [TABLE_KEY]: table.table };
}

/** The offset after a row at `position`. */
export function positionOffset(position: Position): SourceOffset {
  const offset: Record<string, unknown> = {};
  const { incrementing, timestamp } = position;
  if (incrementing !== null) {
    offset[INCREMENTING_FIELD] =
      incrementing >= BigInt(Number.MIN_SAFE_INTEGER) &&
      incrementing <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(incrementing)
        : incrementing.toString();
  }
  if (timestamp !== null) {
    const millis = microsToMillis(timestamp);
    const second = BigInt(Math.floor(millis / 1000)) * MICROS_PER_SECOND;
    offset[TIMESTAMP_FIELD] = millis;
    offset[TIMESTAMP_NANOS_FIELD] = Number((timestamp - second) * MICROS_PER_MILLI);
  }
  return offset;
}

/** The offset of the last record of a complete bulk snapshot that started at `startedAt` (epoch ms). */
export function bulkOffset(startedAt: number): SourceOffset {
  return { [BULK_SNAPSHOT_FIELD]: startedAt };
}

function integerOf(value: unknown, field: string): bigint | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  throw new DataError(
    `Invalid PostgreSQL source offset: ${field} must be an integer, got ${JSON.stringify(String(value))}`,
  );
}

/**
 * The position of a stored offset (`null`: none). `timestamp_nanos` beyond the microsecond is
 * dropped (PostgreSQL keeps microseconds). @throws DataError for a malformed offset.
 */
export function parsePosition(offset: SourceOffset | null): Position {
  if (offset === null) return NO_POSITION;
  const incrementing = integerOf(offset[INCREMENTING_FIELD], INCREMENTING_FIELD);
  const millis = integerOf(offset[TIMESTAMP_FIELD], TIMESTAMP_FIELD);
  const nanos = integerOf(offset[TIMESTAMP_NANOS_FIELD], TIMESTAMP_NANOS_FIELD);
  if (nanos !== null && (nanos < 0n || nanos >= 1_000_000_000n)) {
    throw new DataError(
      `Invalid PostgreSQL source offset: ${TIMESTAMP_NANOS_FIELD} must be within 0..999999999, got ${nanos}`,
    );
  }
  let timestamp: bigint | null = null;
  if (millis !== null) {
    const floorSecond = millis >= 0n ? millis / 1000n : -((-millis + 999n) / 1000n);
    timestamp =
      nanos === null
        ? millis * MICROS_PER_MILLI
        : floorSecond * MICROS_PER_SECOND + nanos / MICROS_PER_MILLI;
  }
  return { timestamp, incrementing };
}

/** When the last complete bulk snapshot started, from a stored offset; `null` when none. */
export function parseBulkOffset(offset: SourceOffset | null): number | null {
  const value = offset?.[BULK_SNAPSHOT_FIELD];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Checks a partition is one of this connector's. @throws DataError otherwise. */
export function checkPartition(partition: SourcePartition): void {
  const table = partition[TABLE_KEY];
  const ok =
    (typeof table === 'string' &&
      table !== '' &&
      (partition[PROTOCOL_KEY] === undefined ||
        partition[PROTOCOL_KEY] === PROTOCOL_VERSION_ONE)) ||
    (partition[QUERY_KEY] === QUERY_VALUE && table === undefined);
  if (!ok) {
    throw new DataError(
      `Invalid PostgreSQL source partition: expected {"${PROTOCOL_KEY}":"1","${TABLE_KEY}":"<schema>.<table>"}, {"${TABLE_KEY}":"<table>"} or {"${QUERY_KEY}":"${QUERY_VALUE}"}, got ${JSON.stringify(partition)}`,
    );
  }
}
