/** Integer ranges of Connect's integer types, and exact int64 arithmetic on decimals. */
import type { DecimalValue } from 'serverless-connect/connect';

/** The inclusive ranges of int8, int16 and int32. */
export const INT_RANGES: Readonly<Record<'int8' | 'int16' | 'int32', readonly [number, number]>> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-2147483648, 2147483647],
};

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** The integer `decimal` equals (`1.0`, `1E+3`), or `null` when it has a fraction or lies outside int64. */
export function exactInt64(decimal: DecimalValue): bigint | null {
  const { unscaled, scale } = decimal;
  if (unscaled === 0n) return 0n;
  let value: bigint;
  if (scale <= 0) {
    // More than 19 zeros cannot fit an int64 (and must not be computed for huge exponents).
    if (scale < -19) return null;
    value = unscaled * 10n ** BigInt(-scale);
  } else {
    // |unscaled| < 10^scale: a non-zero fraction (and no huge power of ten to compute).
    if (scale >= (unscaled < 0n ? -unscaled : unscaled).toString().length) return null;
    const divisor = 10n ** BigInt(scale);
    if (unscaled % divisor !== 0n) return null;
    value = unscaled / divisor;
  }
  return value < INT64_MIN || value > INT64_MAX ? null : value;
}

/** An int64 as the data model represents it: a number when safe, a bigint otherwise. */
export function int64Value(value: bigint): number | bigint {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value;
}
