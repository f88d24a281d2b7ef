/**
 * The value conversions of Connect's Cast transformation (`Cast.castValueToType`): Java's
 * numeric narrowing, `parseX` for strings, `!= 0` for booleans, `toString` for strings (Java
 * number formatting, ISO-8601 UTC for dates, base64 for bytes).
 */
import {
  DataError,
  fromLogicalValue,
  isStruct,
  LogicalDecimal,
  type Schema,
  type Type,
} from 'serverless-connect/connect';
import { JavaDateFormat } from './java-date-format.js';
import {
  byteValue,
  doubleValue,
  floatValue,
  intValue,
  isDecimalValue,
  isJavaNumber,
  javaDoubleToString,
  javaFloatToString,
  longValue,
  NumberFormatError,
  normalizeInt64,
  parseJavaDouble,
  parseJavaFloat,
  parseJavaInteger,
  shortValue,
} from './java-numbers.js';
import { className } from './requirements.js';

/** The types Cast reads. */
export const CAST_INPUT_TYPES: readonly Type[] = [
  'int8',
  'int16',
  'int32',
  'int64',
  'float32',
  'float64',
  'boolean',
  'string',
  'bytes',
];

/** The types Cast writes. */
export const CAST_OUTPUT_TYPES: readonly Type[] = CAST_INPUT_TYPES.filter((t) => t !== 'bytes');

const upper = (types: readonly Type[]) => `[${types.map((t) => t.toUpperCase()).join(', ')}]`;

/** DataError unless Cast can read `type`. */
export function checkCastInput(type: Type): void {
  if (!CAST_INPUT_TYPES.includes(type)) {
    throw new DataError(
      `Cast transformation does not support casting from ${type.toUpperCase()}; supported types are ${upper(CAST_INPUT_TYPES)}`,
    );
  }
}

/** Output-type check message, for the config parser. */
export function unsupportedOutput(type: string): string {
  return `Cast transformation does not support casting to ${type.toUpperCase()}; supported types are ${upper(CAST_OUTPUT_TYPES)}`;
}

/** The schema type Connect infers for a schemaless value, or `null` (`ConnectSchema.schemaType`). */
function inferType(value: unknown): Type | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'int64' : 'float64';
  if (typeof value === 'bigint') return 'int64';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  if (value instanceof Uint8Array) return 'bytes';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Map || (typeof value === 'object' && value !== null && !isStruct(value))) {
    return value instanceof Date || isDecimalValue(value) ? null : 'map';
  }
  if (isStruct(value)) return 'struct';
  return null;
}

const DAY = 86_400_000;
const TIME_FORMAT = new JavaDateFormat("HH:mm:ss.SSS'Z'");
const DATE_FORMAT = new JavaDateFormat('yyyy-MM-dd');
const TIMESTAMP_FORMAT = new JavaDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");

/** Connect's `Values.dateFormatFor(date).format(date)`. */
export function formatDate(date: Date): string {
  const millis = date.getTime();
  if (millis >= 0 && millis < DAY) return TIME_FORMAT.format(date);
  if (millis % DAY === 0) return DATE_FORMAT.format(date);
  return TIMESTAMP_FORMAT.format(date);
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 with padding (Java's `Base64.getEncoder()`). */
export function base64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] ?? 0;
    const b = bytes[i + 1] ?? 0;
    const c = bytes[i + 2] ?? 0;
    const n = (a << 16) | (b << 8) | c;
    out += BASE64.charAt((n >> 18) & 63) + BASE64.charAt((n >> 12) & 63);
    out += i + 1 < bytes.length ? BASE64.charAt((n >> 6) & 63) : '=';
    out += i + 2 < bytes.length ? BASE64.charAt(n & 63) : '=';
  }
  return out;
}

function unexpected(value: unknown): never {
  throw new DataError(`Unexpected type in Cast transformation: ${className(value)}`);
}

function toInteger(value: unknown, bits: 8 | 16 | 32 | 64): number | bigint {
  if (isJavaNumber(value)) {
    if (bits === 8) return byteValue(value);
    if (bits === 16) return shortValue(value);
    if (bits === 32) return intValue(value);
    return normalizeInt64(longValue(value));
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') return parseJavaInteger(value, bits);
  return unexpected(value);
}

function toFloat(value: unknown, single: boolean): number {
  if (isJavaNumber(value)) return single ? floatValue(value) : doubleValue(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') return single ? parseJavaFloat(value) : parseJavaDouble(value);
  return unexpected(value);
}

function toBoolean(value: unknown): boolean {
  if (isJavaNumber(value)) return longValue(value) !== 0n;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.toLowerCase() === 'true';
  return unexpected(value);
}

function toText(value: unknown, schema: Schema | null): string {
  if (value instanceof Date) return formatDate(value);
  if (value instanceof Uint8Array) return base64(value);
  if (isDecimalValue(value)) return String(value);
  if (typeof value === 'number') {
    const type = schema?.type ?? (Number.isSafeInteger(value) ? 'int64' : 'float64');
    if (type === 'float32') return javaFloatToString(value);
    if (type === 'float64') return javaDoubleToString(value);
    return String(value);
  }
  if (typeof value === 'string' || typeof value === 'bigint' || typeof value === 'boolean') {
    return String(value);
  }
  return unexpected(value);
}

/**
 * `value` (of `schema`, or schemaless when `null`) cast to `target`; `null` stays `null`.
 * DataError for an unsupported input type, an unparsable string or an out-of-range number.
 */
export function castValueToType(schema: Schema | null, value: unknown, target: Type): unknown {
  if (value === null || value === undefined) return null;
  const inferred = schema === null ? inferType(value) : schema.type;
  if (inferred === null) {
    throw new DataError(
      `Cast transformation was passed a value of type ${className(value)} which is not supported by Connect's data API`,
    );
  }
  checkCastInput(inferred);
  let input: unknown = value;
  if (schema !== null && schema.name !== null && target !== 'string') {
    if (schema.name !== LogicalDecimal.LOGICAL_NAME) input = fromLogicalValue(schema, value);
  }
  try {
    switch (target) {
      case 'int8':
        return toInteger(input, 8);
      case 'int16':
        return toInteger(input, 16);
      case 'int32':
        return toInteger(input, 32);
      case 'int64':
        return toInteger(input, 64);
      case 'float32':
        return toFloat(input, true);
      case 'float64':
        return toFloat(input, false);
      case 'boolean':
        return toBoolean(input);
      case 'string':
        return toText(input, schema);
      default:
        throw new DataError(
          `${String(target).toUpperCase()} is not supported in the Cast transformation.`,
        );
    }
  } catch (error) {
    if (error instanceof NumberFormatError) {
      throw new DataError(`Value (${String(value)}) was out of range for requested data type`, {
        cause: error,
      });
    }
    throw error;
  }
}
