/**
 * DynamoDB AttributeValues (`{"S": "a"}`, `{"N": "1"}`, …) to plain schemaless Connect values:
 * S → string, N → number (or bigint/string when a number would lose digits), B → Uint8Array,
 * BOOL → boolean, NULL → null, SS/NS/BS → arrays, L → array, M → plain object.
 */
import { DataError } from 'serverless-connect/connect';

/** An AttributeValue as the AWS SDK returns it (binary as Uint8Array). */
export type AttributeValue = Readonly<Record<string, unknown>>;

/** An item or key: attribute name → AttributeValue. */
export type AttributeMap = Readonly<Record<string, AttributeValue>>;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Digits a double carries exactly. */
const DOUBLE_DIGITS = 15;

/**
 * A DynamoDB number (up to 38 significant digits) as exactly as JSON allows: a number when it is
 * a safe integer or a decimal of at most 15 significant digits, a bigint for other integers in
 * the int64 range, otherwise the decimal string itself (no digit is ever lost).
 */
export function unmarshallNumber(text: string): number | bigint | string {
  const trimmed = text.trim();
  if (/^[-+]?\d+$/.test(trimmed)) {
    const big = BigInt(trimmed);
    if (big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)) {
      return Number(big);
    }
    return big >= INT64_MIN && big <= INT64_MAX ? big : trimmed;
  }
  const digits = trimmed
    .replace(/[eE].*$/, '')
    .replace(/[^\d]/g, '')
    .replace(/^0+/, '');
  const value = Number(trimmed);
  return Number.isFinite(value) && digits.replace(/0+$/, '').length <= DOUBLE_DIGITS
    ? value
    : trimmed;
}

function bytesOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return Uint8Array.from(atob(value), (c) => c.charCodeAt(0));
  throw new DataError(`Invalid DynamoDB binary value: ${String(value)}`);
}

function listOf(value: unknown, type: string): unknown[] {
  if (!Array.isArray(value)) throw new DataError(`Invalid DynamoDB ${type} value: not a list`);
  return value;
}

/** One AttributeValue as a plain value. Throws DataError for an unknown or malformed type. */
export function unmarshallValue(attribute: AttributeValue): unknown {
  const entries = Object.entries(attribute).filter(([, v]) => v !== undefined);
  const [entry] = entries;
  if (entry === undefined || entries.length !== 1) {
    throw new DataError(
      `Invalid DynamoDB AttributeValue: ${JSON.stringify(Object.keys(attribute))}`,
    );
  }
  const [type, value] = entry;
  switch (type) {
    case 'S':
      return String(value);
    case 'N':
      return unmarshallNumber(String(value));
    case 'B':
      return bytesOf(value);
    case 'BOOL':
      return value === true;
    case 'NULL':
      return null;
    case 'SS':
      return listOf(value, type).map(String);
    case 'NS':
      return listOf(value, type).map((n) => unmarshallNumber(String(n)));
    case 'BS':
      return listOf(value, type).map(bytesOf);
    case 'L':
      return listOf(value, type).map((v) => unmarshallValue(v as AttributeValue));
    case 'M':
      return unmarshallItem(value as AttributeMap);
    default:
      throw new DataError(`Unsupported DynamoDB AttributeValue type: ${type}`);
  }
}

/**
 * An item (or key) as a plain object, attributes in name order (so equal keys always serialise
 * to equal bytes, and land in the same Kafka partition).
 */
export function unmarshallItem(item: AttributeMap): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(item).sort()) {
    const attribute = item[name];
    if (attribute === undefined) continue;
    // defineProperty: an attribute may be named `__proto__`.
    Object.defineProperty(out, name, {
      value: unmarshallValue(attribute),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
