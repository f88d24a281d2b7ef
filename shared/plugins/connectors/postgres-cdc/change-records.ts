/**
 * Debezium change records from what the task read: snapshot rows (`op: r`), streamed inserts,
 * updates, deletes (then a tombstone) and truncates, and heartbeats. An update that changes the
 * primary key becomes, as in Debezium, a delete of the old key (header `__debezium.newkey`), its
 * tombstone and a create of the new key (header `__debezium.oldkey`). Pure.
 */
import {
  type Header,
  type SourceOffset,
  type SourcePartition,
  SourceRecord,
  Struct,
} from 'serverless-connect/connect';
import {
  envelopeStruct,
  HEARTBEAT_KEY_SCHEMA,
  HEARTBEAT_VALUE_SCHEMA,
  type Operation,
  type SnapshotMarker,
  type SourceInfo,
  sourceStruct,
  type TableShape,
} from './debezium-schemas.js';
import type { Lsn } from './lsn.js';
import { type TupleValue, UNCHANGED_TOAST } from './pgoutput.js';

/** What every record of a task shares. */
export interface RecordContext {
  readonly version: string;
  readonly topicPrefix: string;
  readonly database: string;
  readonly partition: SourcePartition;
  readonly tombstonesOnDelete: boolean;
  readonly skippedOperations: ReadonlySet<string>;
}

/** Where an event comes from: its transaction and WAL position, or the snapshot. */
export interface EventOrigin {
  readonly timeMicros: bigint;
  readonly snapshot: SnapshotMarker;
  readonly txId: number | null;
  readonly lsn: Lsn | null;
  readonly sequence: string | null;
}

/** The row image of `tuple` (column order); missing values of required fields get their fallback. */
export function rowStruct(shape: TableShape, tuple: readonly TupleValue[]): Struct {
  const struct = new Struct(shape.valueSchema);
  shape.columns.forEach((column, i) => {
    const raw = tuple[i];
    let value: unknown =
      raw === undefined || raw === null
        ? null
        : raw === UNCHANGED_TOAST
          ? column.unavailable
          : column.read(raw);
    if (value === null && !column.schema.optional) value = column.fallback;
    struct.put(column.name, value);
  });
  return struct;
}

/** The key of `tuple`, or `null` for a table without a primary key (Debezium's). */
export function keyStruct(shape: TableShape, tuple: readonly TupleValue[]): Struct | null {
  if (shape.keySchema === null) return null;
  const struct = new Struct(shape.keySchema);
  for (const i of shape.keyIndexes) {
    const column = shape.columns[i];
    const raw = tuple[i];
    if (column === undefined) continue;
    struct.put(column.name, typeof raw === 'string' ? column.read(raw) : column.fallback);
  }
  return struct;
}

/** Whether the key columns of two tuples differ (both present). */
export function keyChanged(
  shape: TableShape,
  before: readonly TupleValue[],
  after: readonly TupleValue[],
): boolean {
  return (
    shape.keyIndexes.length > 0 &&
    shape.keyIndexes.every((i) => typeof before[i] === 'string') &&
    shape.keyIndexes.some((i) => before[i] !== after[i])
  );
}

/** Builds the records of one event; all share `offset`. */
export class ChangeRecords {
  constructor(
    private readonly context: RecordContext,
    private readonly now: () => bigint,
  ) {}

  #source(shape: TableShape, origin: EventOrigin): Struct {
    const info: SourceInfo = {
      version: this.context.version,
      name: this.context.topicPrefix,
      db: this.context.database,
      schema: shape.schema,
      table: shape.table,
      timeMicros: origin.timeMicros,
      snapshot: origin.snapshot,
      txId: origin.txId,
      lsn: origin.lsn,
      sequence: origin.sequence,
    };
    return sourceStruct(info);
  }

  #record(
    shape: TableShape,
    offset: SourceOffset,
    key: Struct | null,
    value: Struct | null,
    headers: Header[] = [],
  ): SourceRecord {
    return new SourceRecord({
      sourcePartition: this.context.partition,
      sourceOffset: offset,
      topic: shape.topic,
      keySchema: shape.keySchema,
      key,
      valueSchema: value === null ? null : shape.envelopeSchema,
      value,
      headers,
    });
  }

  #change(
    shape: TableShape,
    op: Operation,
    before: Struct | null,
    after: Struct | null,
    origin: EventOrigin,
  ): Struct {
    return envelopeStruct(shape, op, before, after, this.#source(shape, origin), this.now());
  }

  #skips(op: Operation): boolean {
    return this.context.skippedOperations.has(op);
  }

  /** A snapshot row (`op: r`). */
  read(
    shape: TableShape,
    values: readonly (string | null)[],
    origin: EventOrigin,
    offset: SourceOffset,
  ): SourceRecord[] {
    const after = rowStruct(shape, values);
    return [
      this.#record(
        shape,
        offset,
        keyStruct(shape, values),
        this.#change(shape, 'r', null, after, origin),
      ),
    ];
  }

  insert(
    shape: TableShape,
    tuple: readonly TupleValue[],
    origin: EventOrigin,
    offset: SourceOffset,
  ): SourceRecord[] {
    if (this.#skips('c')) return [];
    const after = rowStruct(shape, tuple);
    return [
      this.#record(
        shape,
        offset,
        keyStruct(shape, tuple),
        this.#change(shape, 'c', null, after, origin),
      ),
    ];
  }

  /** An update; `oldTuple` is the old key (`K`) or row (`O`), or `null` when unchanged and not FULL. */
  update(
    shape: TableShape,
    oldKind: 'key' | 'old' | null,
    oldTuple: readonly TupleValue[] | null,
    newTuple: readonly TupleValue[],
    origin: EventOrigin,
    offset: SourceOffset,
  ): SourceRecord[] {
    if (oldTuple !== null && keyChanged(shape, oldTuple, newTuple)) {
      const oldKey = keyStruct(shape, oldTuple);
      const newKey = keyStruct(shape, newTuple);
      const header = (name: string, value: Struct | null): Header => ({
        key: name,
        schema: shape.keySchema,
        value,
      });
      const records: SourceRecord[] = [];
      if (!this.#skips('d')) {
        const before = rowStruct(shape, oldTuple);
        records.push(
          this.#record(shape, offset, oldKey, this.#change(shape, 'd', before, null, origin), [
            header('__debezium.newkey', newKey),
          ]),
        );
        if (this.context.tombstonesOnDelete)
          records.push(this.#record(shape, offset, oldKey, null));
      }
      if (!this.#skips('c')) {
        const after = rowStruct(shape, newTuple);
        records.push(
          this.#record(shape, offset, newKey, this.#change(shape, 'c', null, after, origin), [
            header('__debezium.oldkey', oldKey),
          ]),
        );
      }
      return records;
    }
    if (this.#skips('u')) return [];
    const before = oldKind === 'old' && oldTuple !== null ? rowStruct(shape, oldTuple) : null;
    const after = rowStruct(shape, newTuple);
    return [
      this.#record(
        shape,
        offset,
        keyStruct(shape, newTuple),
        this.#change(shape, 'u', before, after, origin),
      ),
    ];
  }

  /** A delete (before: the old key or row), then its tombstone when `tombstones.on.delete`. */
  delete(
    shape: TableShape,
    oldTuple: readonly TupleValue[],
    origin: EventOrigin,
    offset: SourceOffset,
  ): SourceRecord[] {
    if (this.#skips('d')) return [];
    const key = keyStruct(shape, oldTuple);
    const before = rowStruct(shape, oldTuple);
    const records = [
      this.#record(shape, offset, key, this.#change(shape, 'd', before, null, origin)),
    ];
    // A tombstone compacts a key away: a table without a key gets none.
    if (this.context.tombstonesOnDelete && key !== null) {
      records.push(this.#record(shape, offset, key, null));
    }
    return records;
  }

  /** A truncate of one table (`op: t`, no key, no images). */
  truncate(shape: TableShape, origin: EventOrigin, offset: SourceOffset): SourceRecord[] {
    if (this.#skips('t')) return [];
    return [
      new SourceRecord({
        sourcePartition: this.context.partition,
        sourceOffset: offset,
        topic: shape.topic,
        keySchema: null,
        key: null,
        valueSchema: shape.envelopeSchema,
        value: this.#change(shape, 't', null, null, origin),
      }),
    ];
  }

  /** Debezium's heartbeat: `{serverName}` key, `{ts_ms}` value. */
  heartbeat(topic: string, offset: SourceOffset): SourceRecord {
    return new SourceRecord({
      sourcePartition: this.context.partition,
      sourceOffset: offset,
      topic,
      keySchema: HEARTBEAT_KEY_SCHEMA,
      key: new Struct(HEARTBEAT_KEY_SCHEMA).put('serverName', this.context.topicPrefix),
      valueSchema: HEARTBEAT_VALUE_SCHEMA,
      value: new Struct(HEARTBEAT_VALUE_SCHEMA).put('ts_ms', Number(this.now() / 1000n)),
    });
  }
}
