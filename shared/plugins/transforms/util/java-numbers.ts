/**
 * Java's numeric conversions, so casts give the values Connect gives: narrowing of integers
 * wraps (`(byte) 300 == 44`), floating-point to integer truncates and saturates (NaN → 0),
 * `parseInt`-style parsing rejects anything but an optionally signed run of digits, and
 * `Float.toString` / `Double.toString` print as Java does.
 */
import { type DecimalValue, javaDoubleToString } from 'serverless-connect/connect';

export { javaDoubleToString };

/** Thrown for text that is not a number of the requested type (Java's NumberFormatException). */
export class NumberFormatError extends Error {
  override readonly name = 'NumberFormatError';
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** True for `{ unscaled: bigint, scale: number }` (a Decimal value). */
export function isDecimalValue(value: unknown): value is DecimalValue {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as DecimalValue).unscaled === 'bigint' &&
    typeof (value as DecimalValue).scale === 'number'
  );
}

/** A number-like value: number, bigint or decimal. */
export type JavaNumber = number | bigint | DecimalValue;

/** True for the values Java treats as `Number`. */
export function isJavaNumber(value: unknown): value is JavaNumber {
  return typeof value === 'number' || typeof value === 'bigint' || isDecimalValue(value);
}

/** An int64 as the data model prefers it: a number when safe, a bigint otherwise. */
export function normalizeInt64(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

/** The integral part of a decimal, truncated toward zero (`BigDecimal.toBigInteger`). */
function decimalToBigint(value: DecimalValue): bigint {
  if (value.scale <= 0) return value.unscaled * 10n ** BigInt(-value.scale);
  return value.unscaled / 10n ** BigInt(value.scale);
}

/** A decimal's nearest double (`BigDecimal.doubleValue`). */
export function decimalToNumber(value: DecimalValue): number {
  const negative = value.unscaled < 0n;
  const digits = (negative ? -value.unscaled : value.unscaled).toString();
  return Number(`${negative ? '-' : ''}${digits}e${-value.scale}`);
}

/** A double to long as Java's `(long) d` does: NaN → 0, saturating, truncating. */
function doubleToLong(value: number): bigint {
  if (Number.isNaN(value)) return 0n;
  if (value >= 2 ** 63) return INT64_MAX;
  if (value <= -(2 ** 63)) return INT64_MIN;
  return BigInt(Math.trunc(value));
}

/** A double to int as Java's `(int) d` does: NaN → 0, saturating, truncating. */
function doubleToInt(value: number): number {
  if (Number.isNaN(value)) return 0;
  if (value >= 2147483647) return 2147483647;
  if (value <= -2147483648) return -2147483648;
  return Math.trunc(value);
}

/** `Number.longValue()`: the value as a 64-bit integer (wrapping for decimals, saturating for doubles). */
export function longValue(value: JavaNumber): bigint {
  if (typeof value === 'bigint') return BigInt.asIntN(64, value);
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) ? BigInt(value) : doubleToLong(value);
  }
  return BigInt.asIntN(64, decimalToBigint(value));
}

/** `Number.intValue()`. */
export function intValue(value: JavaNumber): number {
  if (typeof value === 'number') return doubleToInt(value);
  return Number(BigInt.asIntN(32, typeof value === 'bigint' ? value : decimalToBigint(value)));
}

/** `Number.shortValue()`: `(short) intValue()`. */
export function shortValue(value: JavaNumber): number {
  return Number(BigInt.asIntN(16, BigInt(intValue(value))));
}

/** `Number.byteValue()`: `(byte) intValue()`. */
export function byteValue(value: JavaNumber): number {
  return Number(BigInt.asIntN(8, BigInt(intValue(value))));
}

/** `Number.doubleValue()`. */
export function doubleValue(value: JavaNumber): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  return decimalToNumber(value);
}

/** `Number.floatValue()`. */
export function floatValue(value: JavaNumber): number {
  return Math.fround(doubleValue(value));
}

const INTEGER_TEXT = /^[+-]?\d+$/;
const INTEGER_BOUNDS: Readonly<Record<8 | 16 | 32 | 64, readonly [bigint, bigint]>> = {
  8: [-128n, 127n],
  16: [-32768n, 32767n],
  32: [-2147483648n, 2147483647n],
  64: [INT64_MIN, INT64_MAX],
};

/** `Byte/Short/Integer/Long.parseX(text)`; NumberFormatError when invalid or out of range. */
export function parseJavaInteger(text: string, bits: 8 | 16 | 32 | 64): number | bigint {
  if (!INTEGER_TEXT.test(text)) throw new NumberFormatError(`For input string: "${text}"`);
  const value = BigInt(text);
  const [min, max] = INTEGER_BOUNDS[bits];
  if (value < min || value > max) {
    throw new NumberFormatError(`Value out of range. Value:"${text}"`);
  }
  return bits === 64 ? normalizeInt64(value) : Number(value);
}

const FLOAT_TEXT = /^[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)$/;

function javaTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return text.slice(start, end);
}

/** `Double.parseDouble(text)` (decimal forms; no hexadecimal floats). */
export function parseJavaDouble(text: string): number {
  const trimmed = javaTrim(text);
  if (!FLOAT_TEXT.test(trimmed)) throw new NumberFormatError(`For input string: "${text}"`);
  const body = trimmed.replace(/[fFdD]$/, '');
  if (body.endsWith('NaN')) return Number.NaN;
  return Number(body);
}

/** `Float.parseFloat(text)`. */
export function parseJavaFloat(text: string): number {
  return Math.fround(parseJavaDouble(text));
}

/** `Float.toString(f)`: the shortest decimal that reads back as the same float, Java-formatted. */
export function javaFloatToString(value: number): string {
  const f = Math.fround(value);
  if (!Number.isFinite(f) || f === 0) return javaDoubleToString(f);
  for (let precision = 1; precision <= 9; precision++) {
    const candidate = Number(f.toPrecision(precision));
    if (Math.fround(candidate) === f) return javaDoubleToString(candidate);
  }
  return javaDoubleToString(f);
}
