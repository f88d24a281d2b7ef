/**
 * Connect schemas as PostgreSQL column types (the JDBC sink's PostgreSQL dialect, with nested
 * values as jsonb), and Connect values as node-postgres parameters: text, numbers, booleans and
 * Buffers only, so no value depends on the driver's or the container's time zone. Pure.
 */
import {
  type BigDecimal,
  DataError,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  type Schema,
  Struct,
} from 'serverless-connect/connect';

/** The column type of a value of `schema` (as the JDBC sink's PostgreSQL dialect creates it). */
export function columnTypeOf(schema: Schema): string {
  switch (schema.name) {
    case LogicalDecimal.LOGICAL_NAME:
      return 'NUMERIC';
    case LogicalDate.LOGICAL_NAME:
      return 'DATE';
    case LogicalTime.LOGICAL_NAME:
      return 'TIME';
    case LogicalTimestamp.LOGICAL_NAME:
      return 'TIMESTAMP';
  }
  switch (schema.type) {
    case 'int8':
    case 'int16':
      return 'SMALLINT';
    case 'int32':
      return 'INTEGER';
    case 'int64':
      return 'BIGINT';
    case 'float32':
      return 'REAL';
    case 'float64':
      return 'DOUBLE PRECISION';
    case 'boolean':
      return 'BOOLEAN';
    case 'string':
      return 'TEXT';
    case 'bytes':
      return 'BYTEA';
    case 'array':
    case 'map':
    case 'struct':
      return 'JSONB';
  }
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function asDate(value: unknown, what: string): Date {
  const date = value instanceof Date ? value : new Date(Number(value));
  if (Number.isNaN(date.getTime())) throw new DataError(`Invalid ${what} value: ${String(value)}`);
  return date;
}

/** `YYYY-MM-DD` of a Date logical value (UTC). */
function dateText(value: unknown): string {
  const d = asDate(value, 'Date');
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** `HH:MM:SS.mmm` of a Time logical value (UTC). */
function timeText(value: unknown): string {
  const d = asDate(value, 'Time');
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

/**
 * A JSON-ready copy of a nested value: structs as objects of their fields, bytes as base64,
 * int64 bigints as numbers when exact (else text), Dates as ISO text, decimals as text.
 */
export function toJsonValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Struct) {
    const out: Record<string, unknown> = {};
    for (const field of value.schema.fields) out[field.name] = toJsonValue(value.get(field.name));
    return out;
  }
  if (typeof value === 'bigint') {
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  }
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[String(k)] = toJsonValue(v);
    return out;
  }
  if (typeof value === 'object') {
    if (isDecimal(value)) return value.toString();
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toJsonValue(v);
    return out;
  }
  return value;
}

function isDecimal(value: object): value is BigDecimal {
  return 'unscaled' in value && 'scale' in value && typeof value.toString === 'function';
}

/** Text of a jsonb parameter. */
export function jsonText(value: unknown): string {
  return JSON.stringify(toJsonValue(value));
}

/**
 * The parameter for `value` of `schema` (`null`: schemaless): logical types as PostgreSQL's
 * text forms, int64 as text, bytes as a Buffer, nested values as jsonb text.
 */
export function parameterOf(schema: Schema | null, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (schema === null) {
    if (typeof value === 'object' && !(value instanceof Uint8Array)) return jsonText(value);
    if (value instanceof Uint8Array) return Buffer.from(value);
    return typeof value === 'bigint' ? value.toString() : value;
  }
  switch (schema.name) {
    case LogicalDecimal.LOGICAL_NAME:
      return String(value);
    case LogicalDate.LOGICAL_NAME:
      return dateText(value);
    case LogicalTime.LOGICAL_NAME:
      return timeText(value);
    case LogicalTimestamp.LOGICAL_NAME:
      // With its zone: a TIMESTAMP column ignores it (UTC wall time), TIMESTAMPTZ honours it.
      return asDate(value, 'Timestamp').toISOString();
  }
  switch (schema.type) {
    case 'int64':
      return typeof value === 'bigint' ? value.toString() : value;
    case 'bytes':
      return value instanceof Uint8Array ? Buffer.from(value) : value;
    case 'array':
    case 'map':
    case 'struct':
      return jsonText(value);
    default:
      return value;
  }
}
