/**
 * The event Lambda's Kafka event source mapping (MSK and self-managed Kafka) sends to the
 * sink-task function, and its decoding into consumed records.
 *
 * Shape (docs: "Using Lambda with Amazon MSK" / "with self-managed Apache Kafka"):
 * - `eventSource` `aws:kafka` (MSK, with `eventSourceArn`) or `SelfManagedKafka`;
 *   `bootstrapServers` the brokers, comma-separated.
 * - `records`: an object keyed `"<topic>-<partition>"` (split on the LAST dash: topic names may
 *   contain dashes), each value the partition's records in offset order.
 * - A record: `topic`, `partition` (a number; parsed defensively from a string too), `offset`
 *   (JSON number), `timestamp` (epoch ms), `timestampType` (`CREATE_TIME` | `LOG_APPEND_TIME`),
 *   `key` and `value` base64 (either missing or null: no key, tombstone), `headers` an array of
 *   one-entry objects, header name to an array of SIGNED bytes (-128..127; a name may repeat).
 */
import { Buffer } from 'node:buffer';
import { ConfigError, DataError } from '../../connect/errors.js';
import type { TimestampType } from '../../connect/records.js';
import type {
  ConsumedBatch,
  ConsumedPartition,
  ConsumedRecord,
  RecordHeader,
} from '../../ports/kafka.js';

/** Where the batch comes from. (`aws:SelfManagedKafka` appears in old docs and is accepted too.) */
export type KafkaEsmEventSource = 'aws:kafka' | 'SelfManagedKafka';

export type KafkaEsmTimestampType = 'CREATE_TIME' | 'LOG_APPEND_TIME';

/** One header as the event carries it: `{ name: [signed bytes] }`. */
export type KafkaEsmRecordHeader = Readonly<Record<string, readonly number[] | null>>;

/** One record of the event (mirrors `MSKRecord` / `SelfManagedKafkaRecord` of @types/aws-lambda). */
export interface KafkaEsmRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly timestampType: KafkaEsmTimestampType;
  /** Base64; absent for a record without a key. */
  readonly key?: string | null;
  /** Base64; absent or null for a tombstone. */
  readonly value?: string | null;
  readonly headers: readonly KafkaEsmRecordHeader[];
}

/** The event (mirrors `MSKEvent` / `SelfManagedKafkaEvent`). */
export interface KafkaEsmEvent {
  readonly eventSource: KafkaEsmEventSource;
  /** The MSK cluster ARN; absent for self-managed Kafka. */
  readonly eventSourceArn?: string;
  readonly bootstrapServers: string;
  /** Keyed `"<topic>-<partition>"`, each in offset order. */
  readonly records: Readonly<Record<string, readonly KafkaEsmRecord[]>>;
}

/** A raw Kafka record, as a consumer reads it: the input of {@link toEsmEvent}. */
export interface EsmSourceRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** Epoch ms. */
  readonly timestamp: number;
  /** @default 'CREATE_TIME' */
  readonly timestampType?: KafkaEsmTimestampType;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers: readonly { readonly key: string; readonly value: Uint8Array | null }[];
}

export interface ToEsmEventOptions {
  /** @default 'SelfManagedKafka' */
  readonly eventSource?: KafkaEsmEventSource;
  /** Set for `aws:kafka` (the cluster ARN). */
  readonly eventSourceArn?: string;
  /** @default '' */
  readonly bootstrapServers?: string;
}

const toBase64 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/**
 * The event the mapping would send for `records`: grouped by partition in first-seen order,
 * each partition's records sorted by offset, keys and values in base64 (left out when null),
 * header bytes signed as the JVM writes them.
 *
 * @example
 * const event = toEsmEvent([{ topic: 'orders', partition: 0, offset: 7, timestamp: Date.now(),
 *   key: null, value: new TextEncoder().encode('{}'), headers: [] }]);
 */
export function toEsmEvent(
  records: readonly EsmSourceRecord[],
  options: ToEsmEventOptions = {},
): KafkaEsmEvent {
  const grouped = new Map<string, KafkaEsmRecord[]>();
  for (const r of records) {
    const id = `${r.topic}-${r.partition}`;
    const list = grouped.get(id) ?? [];
    grouped.set(id, list);
    list.push({
      topic: r.topic,
      partition: r.partition,
      offset: r.offset,
      timestamp: r.timestamp,
      timestampType: r.timestampType ?? 'CREATE_TIME',
      ...(r.key === null ? {} : { key: toBase64(r.key) }),
      ...(r.value === null ? {} : { value: toBase64(r.value) }),
      headers: r.headers.map((h) => ({
        [h.key]: h.value === null ? null : Array.from(h.value, (b) => (b > 127 ? b - 256 : b)),
      })),
    });
  }
  const out: Record<string, KafkaEsmRecord[]> = {};
  for (const [id, list] of grouped) out[id] = list.sort((a, b) => a.offset - b.offset);
  return {
    eventSource: options.eventSource ?? 'SelfManagedKafka',
    ...(options.eventSourceArn === undefined ? {} : { eventSourceArn: options.eventSourceArn }),
    bootstrapServers: options.bootstrapServers ?? '',
    records: out,
  };
}

/** A decoded event: the consumed batch (partitions in the event's key order) and its source. */
export interface ParsedEsmEvent extends ConsumedBatch {
  readonly eventSource: KafkaEsmEventSource;
}

const EVENT_SOURCES: Readonly<Record<string, KafkaEsmEventSource>> = {
  'aws:kafka': 'aws:kafka',
  SelfManagedKafka: 'SelfManagedKafka',
  'aws:SelfManagedKafka': 'SelfManagedKafka',
};

const TIMESTAMP_TYPES: Readonly<Record<string, TimestampType>> = {
  CREATE_TIME: 'CreateTime',
  LOG_APPEND_TIME: 'LogAppendTime',
  NO_TIMESTAMP_TYPE: 'NoTimestampType',
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const show = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v));

function malformed(where: string, expected: string, got: unknown): DataError {
  return new DataError(`Malformed Kafka event: ${where} must be ${expected} (got ${show(got)})`);
}

/**
 * Where a record is in the event (`records["<id>"][<i>]`), for error messages only: the text is
 * built when a record is refused, not for every record decoded.
 */
class RecordAt {
  constructor(
    readonly id: string,
    readonly index: number,
  ) {}

  toString(): string {
    return `records[${show(this.id)}][${this.index}]`;
  }
}

/** A non-negative safe integer from a number or a decimal string. */
function wholeNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

const EQUALS = 0x3d;

/**
 * The bytes of standard, padded base64 text (`[A-Za-z0-9+/]` in groups of four, `=` padding),
 * or `undefined` when the text is not that. Node's decoder skips characters outside the
 * alphabet and stops at padding, so the text is well formed exactly when its length is a
 * multiple of four and it decodes to the full three bytes per group less the padding, with none
 * of the URL-safe letters (`-`, `_`) Node also accepts. This costs less than matching the text
 * with a regular expression first (a record's key and value are checked each time).
 */
function fromBase64(text: string): Uint8Array | undefined {
  const length = text.length;
  if (length % 4 !== 0) return undefined;
  const padding =
    length === 0 || text.charCodeAt(length - 1) !== EQUALS
      ? 0
      : text.charCodeAt(length - 2) === EQUALS
        ? 2
        : 1;
  const buffer = Buffer.from(text, 'base64');
  if (
    buffer.byteLength !== (length / 4) * 3 - padding ||
    text.includes('-') ||
    text.includes('_')
  ) {
    return undefined;
  }
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function bytes(at: RecordAt, field: string, value: unknown): Uint8Array | null {
  if (value === undefined || value === null) return null;
  const decoded = typeof value === 'string' ? fromBase64(value) : undefined;
  if (decoded === undefined) throw malformed(`${at}.${field}`, 'a base64 string or null', value);
  return decoded;
}

function headerBytes(at: RecordAt, i: number, key: string, value: unknown): Uint8Array | null {
  if (value === null) return null;
  if (!Array.isArray(value))
    throw malformed(`${at}.headers[${i}].${key}`, 'an array of bytes', value);
  const out = new Uint8Array(value.length);
  for (let j = 0; j < value.length; j += 1) {
    const b: unknown = value[j];
    if (typeof b !== 'number' || !Number.isInteger(b) || b < -128 || b > 255) {
      throw malformed(`${at}.headers[${i}].${key}[${j}]`, 'a byte (-128..255)', b);
    }
    out[j] = b & 0xff;
  }
  return out;
}

const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

function headers(at: RecordAt, value: unknown): readonly RecordHeader[] {
  if (value === undefined || value === null) return NO_HEADERS;
  if (!Array.isArray(value)) throw malformed(`${at}.headers`, 'an array', value);
  if (value.length === 0) return NO_HEADERS;
  const out: RecordHeader[] = [];
  for (let i = 0; i < value.length; i += 1) {
    const entry: unknown = value[i];
    if (!isObject(entry)) throw malformed(`${at}.headers[${i}]`, 'an object', entry);
    for (const key in entry) {
      if (Object.hasOwn(entry, key)) out.push({ key, value: headerBytes(at, i, key, entry[key]) });
    }
  }
  return out;
}

interface Timestamp {
  readonly timestamp: number | null;
  readonly timestampType: TimestampType;
}

const NO_TIMESTAMP: Timestamp = { timestamp: null, timestampType: 'NoTimestampType' };

function record(at: RecordAt, raw: unknown, topic: string, partition: number): ConsumedRecord {
  if (!isObject(raw)) throw malformed(`${at}`, 'an object', raw);
  if (raw.topic !== undefined && raw.topic !== topic) {
    throw malformed(`${at}.topic`, `'${topic}' (from its key)`, raw.topic);
  }
  if (
    raw.partition !== undefined &&
    raw.partition !== partition &&
    wholeNumber(raw.partition) !== partition
  ) {
    throw malformed(`${at}.partition`, `${partition} (from its key)`, raw.partition);
  }
  const offset = wholeNumber(raw.offset);
  if (offset === undefined) throw malformed(`${at}.offset`, 'a non-negative integer', raw.offset);
  const ts = raw.timestamp;
  const timestamp =
    ts === undefined || ts === null ? null : typeof ts === 'string' ? Number(ts) : ts;
  if (timestamp !== null && (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp))) {
    throw malformed(`${at}.timestamp`, 'epoch milliseconds', ts);
  }
  const typeText = raw.timestampType;
  let type: TimestampType | undefined =
    typeText === undefined || typeText === null ? undefined : TIMESTAMP_TYPES[String(typeText)];
  if (typeText !== undefined && typeText !== null && type === undefined) {
    throw malformed(`${at}.timestampType`, 'CREATE_TIME or LOG_APPEND_TIME', typeText);
  }
  const known = timestamp !== null && timestamp >= 0;
  type ??= known ? 'CreateTime' : 'NoTimestampType';
  const time =
    type === 'NoTimestampType' || !known ? NO_TIMESTAMP : { timestamp, timestampType: type };
  return {
    topic,
    partition,
    offset,
    timestamp: time.timestamp,
    timestampType: time.timestampType,
    key: bytes(at, 'key', raw.key),
    value: bytes(at, 'value', raw.value),
    headers: headers(at, raw.headers),
  };
}

/**
 * Decodes a Kafka event source mapping event. Throws ConfigError when `event` is not a Kafka
 * batch at all (the function is wired to another trigger), DataError naming the field when a
 * part of it is malformed. Never trusts the record order: each partition is sorted by offset.
 */
export function parseEsmEvent(event: unknown): ParsedEsmEvent {
  const source = isObject(event) ? EVENT_SOURCES[String(event.eventSource)] : undefined;
  if (!isObject(event) || source === undefined) {
    throw new ConfigError(
      'The sink-task function expects a Kafka event source mapping event ' +
        `(eventSource aws:kafka or SelfManagedKafka), got ${
          isObject(event) ? `eventSource ${show(event.eventSource)}` : show(event)
        }`,
    );
  }
  if (!isObject(event.records)) throw malformed('records', 'an object', event.records);
  let recordCount = 0;
  const partitions = Object.entries(event.records).map(([id, list]): ConsumedPartition => {
    const dash = id.lastIndexOf('-');
    const partition = wholeNumber(id.slice(dash + 1));
    if (dash <= 0 || partition === undefined) {
      throw malformed(`the records key ${show(id)}`, '"<topic>-<partition>"', id);
    }
    const topic = id.slice(0, dash);
    if (!Array.isArray(list)) throw malformed(`records[${show(id)}]`, 'an array', list);
    const records: ConsumedRecord[] = new Array(list.length);
    let sorted = true;
    for (let i = 0; i < list.length; i += 1) {
      const decoded = record(new RecordAt(id, i), list[i], topic, partition);
      records[i] = decoded;
      if (i > 0 && (records[i - 1] as ConsumedRecord).offset > decoded.offset) sorted = false;
    }
    if (!sorted) records.sort((a, b) => a.offset - b.offset);
    recordCount += records.length;
    return { topic, partition, records };
  });
  return { eventSource: source, partitions, recordCount };
}
