/**
 * Java's `Object.toString()` of Connect values, which Kafka Connect's StringConverter writes:
 * `[1, 2]` for lists, `{a=1, b=2}` for maps, `Struct{name=Ada,age=36}` for structs,
 * `2.0` for doubles, `1.5` for floats, plain notation for decimals.
 */
import { isPlainObject, isStruct, mapEntries, type Schema } from 'serverless-connect/connect';
import { encodeBase64 } from './base64.js';
import { javaBigDecimalToString, javaDoubleToString, javaFloatToString } from './java-format.js';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Java's `Date.toString()` in UTC: `Thu Jan 01 00:00:00 UTC 1970`. */
export function javaDateToString(date: Date): string {
  const day = DAYS[date.getUTCDay()] ?? '';
  const month = MONTHS[date.getUTCMonth()] ?? '';
  const time = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  return `${day} ${month} ${pad(date.getUTCDate())} ${time} UTC ${date.getUTCFullYear()}`;
}

/** A number as the Java class Connect would hold it prints: by schema, or inferred. */
export function javaNumberToString(value: number, schema: Schema | null): string {
  switch (schema?.type) {
    case 'float32':
      return javaFloatToString(value);
    case 'float64':
      return javaDoubleToString(value);
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
      return String(value);
    default:
      return Number.isSafeInteger(value) ? String(value) : javaDoubleToString(value);
  }
}

function isDecimal(value: object): value is { unscaled: bigint; scale: number } {
  const v = value as { unscaled?: unknown; scale?: unknown };
  return typeof v.unscaled === 'bigint' && typeof v.scale === 'number';
}

/**
 * `value.toString()` as Java would print the Connect value (`schema`, when known, tells a
 * float from a double). Bytes print as base64 (Java prints an identity hash such as
 * `[B@1b6d3586`, which is of no use); dates print in UTC.
 */
export function javaToString(value: unknown, schema: Schema | null = null): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return javaNumberToString(value, schema);
    case 'bigint':
    case 'boolean':
      return String(value);
    default:
      break;
  }
  if (value instanceof Uint8Array) return encodeBase64(value);
  if (value instanceof Date) return javaDateToString(value);
  if (Array.isArray(value)) {
    const element = schema?.valueSchema ?? null;
    return `[${value.map((e) => javaToString(e, element)).join(', ')}]`;
  }
  if (isStruct(value)) {
    const fields = value.schema.fields
      .map((f) => [f, value.getWithoutDefault(f.name)] as const)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([f, v]) => `${f.name}=${javaToString(v, f.schema)}`);
    return `Struct{${fields.join(',')}}`;
  }
  if (value instanceof Map || isPlainObject(value)) {
    const keySchema = schema?.keySchema ?? null;
    const valueSchema = schema?.valueSchema ?? null;
    const entries = mapEntries(value).map(
      ([k, v]) => `${javaToString(k, keySchema)}=${javaToString(v, valueSchema)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  if (typeof value === 'object' && isDecimal(value)) return javaBigDecimalToString(value);
  return String(value);
}
