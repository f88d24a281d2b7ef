/**
 * Kafka Connect's `Values.convertToString`: the text form of any Connect value, which
 * `Values.parseString` (values-parse.ts) reads back with inferred types. Lists print as
 * `[1,2]`, maps as `{"a":1}`, embedded strings quoted (with `\` and `"` escaped), bytes as
 * base64, dates as ISO-8601 in UTC (`2024-01-31`, `12:34:56.789Z`, `2024-01-31T12:34:56.789Z`).
 */
import {
  DataError,
  type DecimalValue,
  describeValue,
  isPlainObject,
  isStruct,
  LogicalDate,
  LogicalTime,
  LogicalTimestamp,
  mapEntries,
  type Schema,
} from 'serverless-connect/connect';
import { encodeBase64 } from './base64.js';
import { javaBigDecimalToString } from './java-format.js';
import { javaNumberToString } from './java-to-string.js';

const MILLIS_PER_DAY = 86_400_000;

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function isoDate(d: Date): string {
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

function isoTime(d: Date): string {
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}Z`;
}

/**
 * A date in the form its logical type reads back as: by `schema` when it names a temporal
 * type, otherwise as Connect guesses (before one day: a time; at midnight: a date).
 */
function formatDate(d: Date, schema: Schema | null): string {
  const millis = d.getTime();
  const name = schema?.name;
  if (name === LogicalTime.LOGICAL_NAME) return isoTime(d);
  if (name === LogicalDate.LOGICAL_NAME) return isoDate(d);
  if (name !== LogicalTimestamp.LOGICAL_NAME) {
    if (millis >= 0 && millis < MILLIS_PER_DAY) return isoTime(d);
    if (millis % MILLIS_PER_DAY === 0) return isoDate(d);
  }
  return `${isoDate(d)}T${isoTime(d)}`;
}

function escapeQuoted(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

function isDecimal(value: object): value is DecimalValue {
  const v = value as { unscaled?: unknown; scale?: unknown };
  return typeof v.unscaled === 'bigint' && typeof v.scale === 'number';
}

function append(value: unknown, schema: Schema | null, embedded: boolean): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'number':
      return javaNumberToString(value, schema);
    case 'bigint':
    case 'boolean':
      return String(value);
    case 'string':
      return embedded ? `"${escapeQuoted(value)}"` : value;
    default:
      break;
  }
  if (value instanceof Uint8Array) {
    const text = encodeBase64(value);
    return embedded ? `"${text}"` : text;
  }
  if (value instanceof Date) return formatDate(value, schema);
  if (Array.isArray(value)) {
    const element = schema?.valueSchema ?? null;
    return `[${value.map((e) => append(e, element, true)).join(',')}]`;
  }
  if (isStruct(value)) {
    const fields = value.schema.fields.map((f) => {
      const v = value.getWithoutDefault(f.name) ?? f.schema.defaultValue;
      return `"${escapeQuoted(f.name)}":${append(v, f.schema, true)}`;
    });
    return `{${fields.join(',')}}`;
  }
  if (value instanceof Map || isPlainObject(value)) {
    const keySchema = schema?.keySchema ?? null;
    const valueSchema = schema?.valueSchema ?? null;
    const entries = mapEntries(value).map(
      ([k, v]) => `${append(k, keySchema, true)}:${append(v, valueSchema, true)}`,
    );
    return `{${entries.join(',')}}`;
  }
  if (typeof value === 'object' && isDecimal(value)) return javaBigDecimalToString(value);
  throw new DataError(`Failed to serialize unexpected value type ${describeValue(value)}`);
}

/**
 * The string form of `value` (Connect's `Values.convertToString`); `schema` (optional) picks
 * float vs double printing and the temporal format. DataError for values that are not
 * Connect data.
 */
export function convertToString(schema: Schema | null, value: unknown): string {
  return append(value, schema, false);
}
