/**
 * Partitioners of the S3 sink (Confluent's storage-common partitioners): each maps a record to
 * its encoded partition, the part of the object key between `<topics.dir>/<topic>/` and the
 * file name.
 *
 * - default: `partition=<kafkaPartition>` (DefaultPartitioner)
 * - field: `<field>=<value>/…` for each of `partition.field.name` (FieldPartitioner)
 * - time: the record's timestamp, floored to `partition.duration.ms` in local time, printed
 *   with `path.format` (TimeBasedPartitioner, HourlyPartitioner, DailyPartitioner)
 */
import { DataError, LogicalTimestamp, type SinkRecord } from 'serverless-connect/connect';
import { localToUtc } from '../time-zone.js';
import { nestedFieldValue } from './field-values.js';
import { JodaFormatter } from './joda-format.js';

/** Maps a record to its encoded partition. */
export interface Partitioner {
  /**
   * The encoded partition of `record` (no leading or trailing `/`). Deterministic for a given
   * record unless it depends on the wall clock. Throws DataError when the record lacks what
   * the partitioner needs.
   */
  encodePartition(record: SinkRecord): string;
}

/** How a time-based partitioner finds a record's timestamp (`timestamp.extractor`). */
export type TimestampExtractorKind = 'Wallclock' | 'Record' | 'RecordField';

/** The parsed partitioner settings. */
export type PartitionerSpec =
  | { readonly kind: 'default' }
  | { readonly kind: 'field'; readonly fields: readonly string[] }
  | {
      readonly kind: 'time';
      readonly durationMs: number;
      readonly pathFormat: string;
      readonly locale: string;
      readonly timezone: string;
      readonly extractor: TimestampExtractorKind;
      readonly timestampField: string;
    };

/** A clock in epoch milliseconds (the `Wallclock` extractor's time source). */
export interface WallClock {
  now(): number;
}

function describe(record: SinkRecord): string {
  return `${record.topic}-${record.kafkaPartition}@${record.kafkaOffset}`;
}

/** `partition=<kafkaPartition>`. */
export class DefaultPartitioner implements Partitioner {
  encodePartition(record: SinkRecord): string {
    return `partition=${record.kafkaPartition}`;
  }
}

const INTEGER_TYPES = new Set(['int8', 'int16', 'int32', 'int64']);

/** `<field>=<value>` per configured field, joined with `/`. Values: integers, strings, booleans. */
export class FieldPartitioner implements Partitioner {
  constructor(readonly fields: readonly string[]) {}

  encodePartition(record: SinkRecord): string {
    return this.fields.map((name) => `${name}=${this.#valueOf(record, name)}`).join('/');
  }

  #valueOf(record: SinkRecord, name: string): string {
    const { value, schema } = nestedFieldValue(record.value, record.valueSchema, name);
    const fail = (why: string) =>
      new DataError(`Error encoding partition of record ${describe(record)}: field ${name} ${why}`);
    if (value === null || value === undefined) throw fail('is null');
    if (
      schema !== null &&
      !INTEGER_TYPES.has(schema.type) &&
      schema.type !== 'string' &&
      schema.type !== 'boolean'
    ) {
      throw fail(
        `has type ${schema.type.toUpperCase()}; only integers, strings and booleans can partition`,
      );
    }
    if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'bigint') {
      return String(value);
    }
    if (typeof value === 'number' && Number.isInteger(value)) return String(value);
    throw fail('is not an integer, a string or a boolean');
  }
}

/** Reads a record's timestamp in epoch milliseconds. */
export type TimestampExtractor = (record: SinkRecord) => number;

function timestampOfField(record: SinkRecord, field: string): number {
  const { value, schema } = nestedFieldValue(record.value, record.valueSchema, field);
  if (value instanceof Date) return value.getTime();
  if (
    schema?.name === LogicalTimestamp.LOGICAL_NAME &&
    (typeof value === 'number' || typeof value === 'bigint')
  ) {
    return Number(value);
  }
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') {
    const parsed = Date.parse(value);
    if (!Number.isNaN(parsed)) return parsed;
  }
  throw new DataError(
    `Unable to determine timestamp using timestamp.extractor RecordField for record ${describe(record)}: field ${field} is not an epoch-millisecond integer, a Timestamp or an ISO-8601 string`,
  );
}

/** The extractor of `kind`; `clock` serves `Wallclock`. */
export function timestampExtractor(
  kind: TimestampExtractorKind,
  field: string,
  clock: WallClock,
): TimestampExtractor {
  switch (kind) {
    case 'Wallclock':
      return () => clock.now();
    case 'Record':
      return (record) => {
        if (record.timestamp === null) {
          throw new DataError(
            `Unable to determine timestamp using timestamp.extractor Record for record ${describe(record)}: it has no timestamp`,
          );
        }
        return record.timestamp;
      };
    case 'RecordField':
      return (record) => timestampOfField(record, field);
  }
}

const CACHE_LIMIT = 1024;

/**
 * The record's timestamp floored to `durationMs` in local time, printed with the Joda
 * `pathFormat` (as Confluent's TimeBasedPartitioner: convert to local time, floor, convert back
 * to UTC, print in the zone).
 */
export class TimeBasedPartitioner implements Partitioner {
  readonly #formatter: JodaFormatter;
  readonly #durationMs: number;
  readonly #extract: TimestampExtractor;
  readonly #printed = new Map<number, string>();

  constructor(spec: Extract<PartitionerSpec, { kind: 'time' }>, clock: WallClock) {
    this.#formatter = new JodaFormatter(spec.pathFormat, spec.timezone, spec.locale);
    this.#durationMs = spec.durationMs;
    this.#extract = timestampExtractor(spec.extractor, spec.timestampField, clock);
  }

  /** The encoded partition of a timestamp (epoch milliseconds). */
  encodeTimestamp(timestamp: number): string {
    const zone = this.#formatter.zone;
    const local = timestamp + zone.offsetAt(timestamp);
    const floored = Math.floor(local / this.#durationMs) * this.#durationMs;
    const start = localToUtc(zone, floored);
    let printed = this.#printed.get(start);
    if (printed === undefined) {
      printed = this.#formatter.print(start);
      if (this.#printed.size >= CACHE_LIMIT) this.#printed.clear();
      this.#printed.set(start, printed);
    }
    return printed;
  }

  encodePartition(record: SinkRecord): string {
    return this.encodeTimestamp(this.#extract(record));
  }
}

/** The `path.format` and duration of the hourly and daily shortcuts. */
export const HOURLY_PATH_FORMAT = "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH";
export const DAILY_PATH_FORMAT = "'year'=YYYY/'month'=MM/'day'=dd";
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** The partitioner of `spec`. Throws Error for a bad time pattern, zone or locale. */
export function createPartitioner(spec: PartitionerSpec, clock: WallClock): Partitioner {
  switch (spec.kind) {
    case 'default':
      return new DefaultPartitioner();
    case 'field':
      return new FieldPartitioner(spec.fields);
    case 'time':
      return new TimeBasedPartitioner(spec, clock);
  }
}
