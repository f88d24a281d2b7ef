/**
 * The S3 sink's output formats: how one record's value becomes bytes of an object. Every
 * record's bytes end with the format's separator, so objects are plain concatenations of
 * records and appending records never rewrites earlier bytes.
 *
 * - JSON (Confluent's JsonFormat, `.json`): one value per line. Structs, maps, arrays,
 *   numbers and booleans are written as plain JSON by the JsonConverter with
 *   `schemas.enable=false` (Decimals per `json.decimal.format`); strings and bytes are written
 *   as given (they are taken to hold JSON text already, e.g. read with the StringConverter),
 *   and refused when they contain a line break.
 * - Bytes (Confluent's ByteArrayFormat, `format.bytearray.extension`, `.bin` by default): the
 *   value's bytes followed by `format.bytearray.separator`; strings are written as UTF-8.
 */
import { ConnectError, DataError, type SinkRecord } from 'serverless-connect/connect';
import { JsonConverter, sourceJsonOf } from '../../converters/json-converter.js';
import type { DecimalFormat } from '../../converters/json-encode.js';

/** Encodes record values into the bytes of an object. */
export interface RecordFormat {
  /** The file extension, with its dot and without the compression's (e.g. `.json`). */
  readonly extension: string;
  /**
   * The bytes of `record`'s (non-null) value, separator included. Throws DataError when the
   * value cannot be written in this format.
   */
  encode(record: SinkRecord): Uint8Array;
}

/** What to do with a record whose value is null (`behavior.on.null.values`). */
export type NullValueBehavior = 'fail' | 'ignore';

const UTF8 = new TextEncoder();
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

function describe(record: SinkRecord): string {
  return `${record.topic}-${record.kafkaPartition}@${record.kafkaOffset}`;
}

function withSeparator(bytes: Uint8Array, separator: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + separator.length);
  out.set(bytes);
  out.set(separator, bytes.length);
  return out;
}

/** One value per line, as JSON. */
export class JsonRecordFormat implements RecordFormat {
  readonly extension = '.json';
  readonly #converter = new JsonConverter();
  static readonly #newline = Uint8Array.of(NEWLINE);

  constructor(decimalFormat: DecimalFormat = 'BASE64') {
    this.#converter.configure(
      { 'schemas.enable': 'false', 'decimal.format': decimalFormat },
      false,
    );
  }

  encode(record: SinkRecord): Uint8Array {
    const value = record.value;
    let bytes: Uint8Array;
    if (typeof value === 'string' || value instanceof Uint8Array) {
      bytes = typeof value === 'string' ? UTF8.encode(value) : value;
      if (bytes.includes(NEWLINE) || bytes.includes(CARRIAGE_RETURN)) {
        throw new DataError(
          `Record ${describe(record)} has a ${typeof value === 'string' ? 'string' : 'bytes'} value with a line break, which JsonFormat cannot write as one line (use ByteArrayFormat, or a converter that parses the JSON)`,
        );
      }
    } else {
      // A schemaless value read by the JsonConverter from JSON it would write as is (and not
      // changed since: transformations build new values) is written from those bytes.
      const source = record.valueSchema === null ? sourceJsonOf(value) : undefined;
      if (source !== undefined) return withSeparator(source, JsonRecordFormat.#newline);
      let text: string | null;
      try {
        text = this.#converter.serializeToString(record.valueSchema, value);
      } catch (error) {
        if (error instanceof DataError) throw error;
        throw new DataError(
          `Record ${describe(record)} cannot be written as JSON: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
      bytes = UTF8.encode(text ?? 'null');
    }
    return withSeparator(bytes, JsonRecordFormat.#newline);
  }
}

/** Raw value bytes, each followed by a separator. */
export class ByteArrayRecordFormat implements RecordFormat {
  readonly extension: string;
  readonly #separator: Uint8Array;

  constructor(extension = '.bin', separator: Uint8Array = Uint8Array.of(NEWLINE)) {
    this.extension = extension;
    this.#separator = separator;
  }

  encode(record: SinkRecord): Uint8Array {
    const value = record.value;
    if (value instanceof Uint8Array) return withSeparator(value, this.#separator);
    if (typeof value === 'string') return withSeparator(UTF8.encode(value), this.#separator);
    throw new DataError(
      `ByteArrayFormat writes bytes or strings, but the value of record ${describe(record)} is ${Array.isArray(value) ? 'an array' : `a ${typeof value}`} (use the ByteArrayConverter or JsonFormat)`,
    );
  }
}

/**
 * The bytes of `record` in `format`, or `null` when its null value is ignored. Throws
 * DataError for a null value under `fail`, or a value the format cannot write.
 */
export function encodeRecord(
  format: RecordFormat,
  record: SinkRecord,
  onNull: NullValueBehavior,
): Uint8Array | null {
  if (record.value === null || record.value === undefined) {
    if (onNull === 'ignore') return null;
    throw new DataError(
      `Sink record ${describe(record)} has a null value (a tombstone); set behavior.on.null.values=ignore to skip such records`,
    );
  }
  try {
    return format.encode(record);
  } catch (error) {
    if (error instanceof ConnectError) throw error;
    throw new DataError(`Cannot encode record ${describe(record)}: ${String(error)}`, {
      cause: error,
    });
  }
}
