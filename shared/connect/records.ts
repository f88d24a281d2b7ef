/**
 * Records (Kafka Connect's `ConnectRecord`, `SourceRecord`, `SinkRecord`): immutable, built
 * from a plain-object init, and copied with changes through `newRecord`, which keeps the
 * record's kind and its kind-specific fields. Nothing here mutates a record.
 *
 * Keys and values follow the value representation in `schema-core.ts`; a `null` schema means
 * schemaless. Record fields are frozen, but a Struct or array value is not deep-frozen:
 * transformations must build new values instead of changing a record's (see `Struct.copy`).
 */
import { IllegalStateError } from './errors.js';
import { EMPTY_HEADERS, type Header, Headers, type ReadonlyHeaders } from './headers.js';
import { type Schema, schemaEquals, valuesEqual } from './schema.js';

/** Kafka's record timestamp types (`org.apache.kafka.common.record.TimestampType`). */
export type TimestampType = 'NoTimestampType' | 'CreateTime' | 'LogAppendTime';

/** A Kafka topic partition. */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** The `topic-partition` string key of a partition (Kafka's `TopicPartition.toString()`). */
export function topicPartitionKey(tp: TopicPartition): string {
  return `${tp.topic}-${tp.partition}`;
}

/** The inverse of {@link topicPartitionKey} (topics may contain `-`; the partition may not). */
export function parseTopicPartitionKey(key: string): TopicPartition {
  const dash = key.lastIndexOf('-');
  const partition = Number(key.slice(dash + 1));
  if (dash <= 0 || !/^\d+$/.test(key.slice(dash + 1)) || !Number.isSafeInteger(partition)) {
    throw new IllegalStateError(`Not a topic-partition key: ${key}`);
  }
  return { topic: key.slice(0, dash), partition };
}

/** A source partition (which part of the external system), as Connect's `Map<String, ?>`. */
export type SourcePartition = Readonly<Record<string, unknown>>;
/** A source offset (how far into a source partition), as Connect's `Map<String, ?>`. */
export type SourceOffset = Readonly<Record<string, unknown>>;

/** A source partition and its offset; `offset` is `null` when none is stored (or to reset). */
export interface SourcePartitionOffset {
  readonly partition: SourcePartition;
  readonly offset: SourceOffset | null;
}

/** The fields every record has; the init object of a record and of `newRecord` changes. */
export interface ConnectRecordInit {
  readonly topic: string;
  /** @default null (let the producer's partitioner choose) */
  readonly kafkaPartition?: number | null;
  /** @default null (schemaless) */
  readonly keySchema?: Schema | null;
  /** @default null */
  readonly key?: unknown;
  /** @default null (schemaless) */
  readonly valueSchema?: Schema | null;
  /** @default null (a tombstone when the key is set) */
  readonly value?: unknown;
  /** Milliseconds since the epoch. @default null */
  readonly timestamp?: number | null;
  /** Copied into a read-only {@link Headers}. @default no headers */
  readonly headers?: Iterable<Header> | null;
}

/**
 * Changes for `newRecord`: each field given replaces the record's, each field omitted (or
 * `undefined`) is kept. Pass `null` to clear a field.
 */
export type RecordChanges = Partial<ConnectRecordInit>;

function frozenHeaders(headers: Iterable<Header> | null | undefined): ReadonlyHeaders {
  if (headers === null || headers === undefined) return EMPTY_HEADERS;
  return headers instanceof Headers ? headers.readOnly() : new Headers(headers).readOnly();
}

/**
 * The base of every record. Immutable: every field is readonly and the instance is frozen by
 * its concrete class. Subclasses must override {@link ConnectRecord.newRecord} so that copies
 * keep their kind.
 */
export abstract class ConnectRecord {
  readonly topic: string;
  readonly kafkaPartition: number | null;
  readonly keySchema: Schema | null;
  readonly key: unknown;
  readonly valueSchema: Schema | null;
  readonly value: unknown;
  readonly timestamp: number | null;
  readonly headers: ReadonlyHeaders;

  protected constructor(init: ConnectRecordInit) {
    this.topic = init.topic;
    this.kafkaPartition = init.kafkaPartition ?? null;
    this.keySchema = init.keySchema ?? null;
    this.key = init.key ?? null;
    this.valueSchema = init.valueSchema ?? null;
    this.value = init.value ?? null;
    this.timestamp = init.timestamp ?? null;
    this.headers = frozenHeaders(init.headers);
  }

  /**
   * A new record of the same kind with `changes` applied (Connect's `newRecord`); the
   * kind-specific fields (source partition/offset, Kafka offset, timestamp type, originals)
   * are kept. `this` is never modified.
   */
  abstract newRecord(changes?: RecordChanges): this;

  /** This record's base fields with `changes` applied; for subclasses' `newRecord`. */
  protected withChanges(changes: RecordChanges): ConnectRecordInit {
    const pick = <K extends keyof ConnectRecordInit>(k: K): ConnectRecordInit[K] =>
      changes[k] === undefined ? (this as ConnectRecordInit)[k] : changes[k];
    return {
      topic: pick('topic'),
      kafkaPartition: pick('kafkaPartition') ?? null,
      keySchema: pick('keySchema') ?? null,
      key: pick('key'),
      valueSchema: pick('valueSchema') ?? null,
      value: pick('value'),
      timestamp: pick('timestamp') ?? null,
      headers: changes.headers === undefined ? this.headers : changes.headers,
    };
  }

  /** Deep equality of the base fields; subclasses add theirs. */
  equals(other: unknown): boolean {
    return (
      other instanceof ConnectRecord &&
      other.constructor === this.constructor &&
      other.topic === this.topic &&
      other.kafkaPartition === this.kafkaPartition &&
      other.timestamp === this.timestamp &&
      schemaEquals(other.keySchema, this.keySchema) &&
      schemaEquals(other.valueSchema, this.valueSchema) &&
      valuesEqual(other.key, this.key) &&
      valuesEqual(other.value, this.value) &&
      other.headers.equals(this.headers)
    );
  }

  toString(): string {
    return (
      `${this.constructor.name}{topic='${this.topic}', kafkaPartition=${this.kafkaPartition}, ` +
      `key=${String(this.key)}, value=${String(this.value)}, timestamp=${this.timestamp}, ` +
      `headers=${String(this.headers)}}`
    );
  }
}

/** Init of a {@link SourceRecord}: the base fields plus where the record came from. */
export interface SourceRecordInit extends ConnectRecordInit {
  /** Which part of the external system; `null` when the connector tracks no offsets. */
  readonly sourcePartition: SourcePartition | null;
  /** Position within `sourcePartition` after this record; `null` when none. */
  readonly sourceOffset: SourceOffset | null;
}

/**
 * A record produced by a {@link SourceTask}: the runtime writes it to `topic` and, once it is
 * acknowledged (and every earlier record of its source partition is), commits `sourceOffset`
 * for `sourcePartition`.
 *
 * @example
 * new SourceRecord({ sourcePartition: { file: 'a.txt' }, sourceOffset: { line: 42 },
 *   topic: 'lines', valueSchema: Schemas.STRING, value: 'hello' });
 */
export class SourceRecord extends ConnectRecord {
  readonly sourcePartition: SourcePartition | null;
  readonly sourceOffset: SourceOffset | null;

  constructor(init: SourceRecordInit) {
    super(init);
    this.sourcePartition =
      init.sourcePartition === null ? null : Object.freeze({ ...init.sourcePartition });
    this.sourceOffset = init.sourceOffset === null ? null : Object.freeze({ ...init.sourceOffset });
    if (new.target === SourceRecord) Object.freeze(this);
  }

  override newRecord(changes: RecordChanges = {}): this {
    return new SourceRecord({
      ...this.withChanges(changes),
      sourcePartition: this.sourcePartition,
      sourceOffset: this.sourceOffset,
    }) as this;
  }

  override equals(other: unknown): boolean {
    return (
      super.equals(other) &&
      valuesEqual((other as SourceRecord).sourcePartition, this.sourcePartition) &&
      valuesEqual((other as SourceRecord).sourceOffset, this.sourceOffset)
    );
  }
}

/**
 * Init of a {@link SinkRecord}. Offsets are JSON numbers (what the Lambda Kafka event carries);
 * they are exact up to 2^53, far beyond any real partition's offsets.
 */
export interface SinkRecordInit extends ConnectRecordInit {
  readonly kafkaPartition: number;
  readonly kafkaOffset: number;
  /** @default 'NoTimestampType' */
  readonly timestampType?: TimestampType;
  /** The topic the record was consumed from, before any transformation. @default topic */
  readonly originalTopic?: string;
  /** @default kafkaPartition */
  readonly originalKafkaPartition?: number;
  /** @default kafkaOffset */
  readonly originalKafkaOffset?: number;
}

/**
 * A record consumed from Kafka and given to a {@link SinkTask}. `originalTopic`,
 * `originalKafkaPartition` and `originalKafkaOffset` (Connect 3.6+) keep the coordinates the
 * record was consumed at even after transformations change `topic` or `kafkaPartition`; commit
 * offsets against them.
 */
export class SinkRecord extends ConnectRecord {
  readonly kafkaOffset: number;
  readonly timestampType: TimestampType;
  readonly originalTopic: string;
  readonly originalKafkaPartition: number;
  readonly originalKafkaOffset: number;

  constructor(init: SinkRecordInit) {
    super(init);
    this.kafkaOffset = init.kafkaOffset;
    this.timestampType = init.timestampType ?? 'NoTimestampType';
    this.originalTopic = init.originalTopic ?? init.topic;
    this.originalKafkaPartition = init.originalKafkaPartition ?? init.kafkaPartition;
    this.originalKafkaOffset = init.originalKafkaOffset ?? init.kafkaOffset;
    if (new.target === SinkRecord) Object.freeze(this);
  }

  /**
   * A new SinkRecord with `changes`; Kafka offset, timestamp type and originals are kept. A
   * sink record always has a partition: `kafkaPartition: null` falls back to the original one.
   */
  override newRecord(changes: RecordChanges = {}): this {
    const base = this.withChanges(changes);
    return new SinkRecord({
      ...base,
      kafkaPartition: base.kafkaPartition ?? this.originalKafkaPartition,
      kafkaOffset: this.kafkaOffset,
      timestampType: this.timestampType,
      originalTopic: this.originalTopic,
      originalKafkaPartition: this.originalKafkaPartition,
      originalKafkaOffset: this.originalKafkaOffset,
    }) as this;
  }

  override equals(other: unknown): boolean {
    return (
      super.equals(other) &&
      (other as SinkRecord).kafkaOffset === this.kafkaOffset &&
      (other as SinkRecord).timestampType === this.timestampType &&
      (other as SinkRecord).originalTopic === this.originalTopic &&
      (other as SinkRecord).originalKafkaPartition === this.originalKafkaPartition &&
      (other as SinkRecord).originalKafkaOffset === this.originalKafkaOffset
    );
  }

  override toString(): string {
    return `${super.toString().slice(0, -1)}, kafkaOffset=${this.kafkaOffset}, timestampType=${this.timestampType}}`;
  }
}
