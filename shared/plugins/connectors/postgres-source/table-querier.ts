/**
 * One table (or the custom query) read batch by batch: Confluent's `TableQuerier`s, one query
 * per batch with a LIMIT instead of a result set kept open between polls, so that a batch is
 * whole and any invocation can resume from the offset of its last row.
 *
 * - bulk: the whole result is read into memory at once and handed out `batch.max.rows` at a
 *   time; the last record of a complete snapshot carries when it started, so the next snapshot
 *   waits `poll.interval.ms` even across restarts. Other records carry no offset.
 * - incrementing / timestamp+incrementing: each record's offset is its row's position.
 * - timestamp: a full batch never ends inside a run of equal timestamps (the run is dropped
 *   and read whole next time, or, filling the batch alone, read whole now), and a record's
 *   offset only moves past a timestamp once every row of it was delivered: no row is skipped
 *   when a batch or a transaction ends between rows of equal timestamp.
 */
import {
  ConnectError,
  DataError,
  type SourceOffset,
  SourceRecord,
} from 'serverless-connect/connect';
import type { PgClient, PgField } from '../postgres/pg-client.js';
import type { TimeZone } from '../time-zone.js';
import {
  bulkStatement,
  type CriteriaColumns,
  equalTimestampStatement,
  incrementalStatement,
  type QueryBounds,
  type SourceMode,
} from './criteria.js';
import {
  dateToMicros,
  formatTimestampParameter,
  MICROS_PER_MILLI,
  parseTimestamp,
} from './pg-time.js';
import {
  columnIndex,
  type RowSchema,
  type RowSchemas,
  rowStruct,
  textQuery,
} from './row-schemas.js';
import { bulkOffset, type Position, positionOffset } from './source-offsets.js';

/** What a querier reads and where its records go. */
export interface QuerierSpec {
  /** `schema.table`, or `query`, for messages. */
  readonly label: string;
  readonly columns: CriteriaColumns;
  readonly topic: string;
  /** The struct's name: the table name (`null` for a query). */
  readonly schemaName: string | null;
  readonly partition: Readonly<Record<string, unknown>>;
}

export interface QuerierSettings {
  readonly mode: SourceMode;
  readonly batchMaxRows: number;
  readonly pollIntervalMs: number;
  readonly timestampDelayMs: number;
  readonly zone: TimeZone;
}

interface Snapshot {
  readonly rows: (string | null)[][];
  readonly rowSchema: RowSchema;
  readonly startedAt: number;
  next: number;
}

const DATE_OID = 1082;

export class TableQuerier {
  /** When the querier is next due (epoch ms); 0: at once. */
  nextDueAt = 0;
  readonly spec: QuerierSpec;
  readonly #settings: QuerierSettings;
  readonly #schemas: RowSchemas;
  #position: Position;
  #snapshot: Snapshot | null = null;

  /**
   * `position`: where the committed offset left the table; `lastSnapshotAt`: when the last
   * complete bulk snapshot started (bulk mode), `null` when unknown.
   */
  constructor(
    spec: QuerierSpec,
    settings: QuerierSettings,
    schemas: RowSchemas,
    position: Position,
    lastSnapshotAt: number | null = null,
  ) {
    this.spec = spec;
    this.#settings = settings;
    this.#schemas = schemas;
    this.#position = position;
    if (lastSnapshotAt !== null) this.nextDueAt = lastSnapshotAt + settings.pollIntervalMs;
  }

  /** Where the records returned so far left the table. */
  get position(): Position {
    return this.#position;
  }

  /**
   * Reads the next batch (possibly empty) and sets when the querier is next due: at once when
   * more rows may be waiting, else `poll.interval.ms` later. `databaseNow` gives the database's
   * current time (microseconds), asked only by the timestamp modes.
   */
  async poll(
    client: PgClient,
    now: number,
    databaseNow: () => Promise<bigint>,
  ): Promise<SourceRecord[]> {
    return this.#settings.mode === 'bulk'
      ? this.#pollBulk(client, now)
      : this.#pollIncremental(client, now, databaseNow);
  }

  async #pollBulk(client: PgClient, now: number): Promise<SourceRecord[]> {
    if (this.#snapshot === null) {
      const result = await textQuery(client, bulkStatement(this.spec.columns));
      const rowSchema = await this.#schemas.of(client, result.fields, this.spec.schemaName);
      this.#snapshot = { rows: result.rows, rowSchema, startedAt: now, next: 0 };
    }
    const snapshot = this.#snapshot;
    const end = Math.min(snapshot.rows.length, snapshot.next + this.#settings.batchMaxRows);
    const records: SourceRecord[] = [];
    for (let i = snapshot.next; i < end; i++) {
      const last = i === snapshot.rows.length - 1;
      const row = snapshot.rows[i] ?? [];
      records.push(
        this.#record(snapshot.rowSchema, row, last ? bulkOffset(snapshot.startedAt) : null),
      );
    }
    snapshot.next = end;
    if (end >= snapshot.rows.length) {
      this.#snapshot = null;
      this.nextDueAt = snapshot.startedAt + this.#settings.pollIntervalMs;
    } else {
      this.nextDueAt = now;
    }
    return records;
  }

  async #pollIncremental(
    client: PgClient,
    now: number,
    databaseNow: () => Promise<bigint>,
  ): Promise<SourceRecord[]> {
    const { columns } = this.spec;
    const limit = this.#settings.batchMaxRows;
    const usesTimestamp = columns.timestamps.length > 0;
    const bounds = this.#bounds(usesTimestamp ? await databaseNow() : null);
    let result = await textQuery(client, incrementalStatement(columns, bounds, limit));
    let full = result.rows.length >= limit;
    const reader = this.#reader(result.fields);
    let positions = result.rows.map((row) => reader(row));
    if (this.#settings.mode === 'timestamp' && full) {
      const last = positions.at(-1)?.timestamp ?? null;
      const kept = positions.findLastIndex((p) => p.timestamp !== last);
      if (kept >= 0) {
        result = { rows: result.rows.slice(0, kept + 1), fields: result.fields };
        positions = positions.slice(0, kept + 1);
      } else if (last !== null) {
        const param = formatTimestampParameter(last, columns.timestampKind, this.#settings.zone);
        result = await textQuery(client, equalTimestampStatement(columns, param));
        const again = this.#reader(result.fields);
        positions = result.rows.map((row) => again(row));
      }
      full = true;
    }
    const rowSchema = await this.#schemas.of(client, result.fields, this.spec.schemaName);
    const records = result.rows.map((row, i) => {
      const at = this.#offsetAt(positions, i);
      const none = at.timestamp === null && at.incrementing === null;
      return this.#record(rowSchema, row, none ? null : positionOffset(at));
    });
    const lastPosition = positions.at(-1);
    if (lastPosition !== undefined) this.#position = lastPosition;
    this.nextDueAt = full ? now : now + this.#settings.pollIntervalMs;
    return records;
  }

  /**
   * The offset of the `i`-th record: its row's position, except in timestamp mode where a row
   * followed by one of the same timestamp keeps the offset before that timestamp.
   */
  #offsetAt(positions: readonly Position[], i: number): Position {
    if (this.#settings.mode !== 'timestamp') return positions[i] as Position;
    for (let j = i; j >= 0; j--) {
      const here = positions[j] as Position;
      const after = positions[j + 1];
      if (j === positions.length - 1 || after?.timestamp !== here.timestamp) return here;
    }
    return this.#position;
  }

  #bounds(databaseNow: bigint | null): QueryBounds {
    const { timestampKind } = this.spec.columns;
    const { zone, timestampDelayMs, mode } = this.#settings;
    const format = (micros: bigint) => formatTimestampParameter(micros, timestampKind, zone);
    let timestamp = this.#position.timestamp;
    // Confluent's default: a stored incrementing value without a timestamp starts at the epoch.
    if (
      timestamp === null &&
      mode === 'timestamp+incrementing' &&
      this.#position.incrementing !== null
    ) {
      timestamp = 0n;
    }
    return {
      timestamp: timestamp === null ? null : format(timestamp),
      incrementing: this.#position.incrementing?.toString() ?? null,
      end:
        databaseNow === null
          ? null
          : format(databaseNow - BigInt(timestampDelayMs) * MICROS_PER_MILLI),
    };
  }

  /** Reads the position of a row (its incrementing value and its first non-null timestamp). */
  #reader(fields: readonly PgField[]): (row: readonly (string | null)[]) => Position {
    const { incrementing, timestamps } = this.spec.columns;
    const missing = (name: string, what: string) =>
      new DataError(
        `${what} column ${name} not found in the columns of ${this.spec.label}: ${fields.map((f) => f.name).join(',')}`,
      );
    const incIndex = incrementing === null ? undefined : columnIndex(fields, incrementing);
    if (incrementing !== null && incIndex === undefined)
      throw missing(incrementing, 'Incrementing');
    const tsIndices = timestamps.map((name) => {
      const index = columnIndex(fields, name);
      if (index === undefined) throw missing(name, 'Timestamp');
      return index;
    });
    const zone = this.#settings.zone;
    return (row) => {
      let inc: bigint | null = null;
      if (incIndex !== undefined) {
        const text = row[incIndex] ?? null;
        if (text === null) {
          throw new ConnectError(
            `Null value for incrementing column ${incrementing} of ${this.spec.label}`,
          );
        }
        if (!/^-?\d+$/.test(text)) {
          throw new ConnectError(
            `Invalid value ${text} for incrementing column ${incrementing} of ${this.spec.label}: not an integer`,
          );
        }
        inc = BigInt(text);
      }
      let ts: bigint | null = null;
      for (const index of tsIndices) {
        const text = row[index] ?? null;
        if (text === null) continue;
        ts =
          fields[index]?.dataTypeID === DATE_OID
            ? dateToMicros(text, zone)
            : parseTimestamp(text, zone);
        break;
      }
      return { timestamp: ts, incrementing: inc };
    };
  }

  #record(
    rowSchema: RowSchema,
    row: readonly (string | null)[],
    offset: SourceOffset | null,
  ): SourceRecord {
    let value: ReturnType<typeof rowStruct>;
    try {
      value = rowStruct(rowSchema, row);
    } catch (error) {
      if (error instanceof DataError) {
        throw new DataError(`${this.spec.label}: ${error.message}`, { cause: error });
      }
      throw error;
    }
    return new SourceRecord({
      sourcePartition: this.spec.partition,
      sourceOffset: offset,
      topic: this.spec.topic,
      valueSchema: rowSchema.schema,
      value,
    });
  }
}
