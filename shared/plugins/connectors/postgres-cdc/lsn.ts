/**
 * PostgreSQL log sequence numbers (LSNs): 64-bit WAL positions, written `XXXXXXXX/XXXXXXXX` by
 * the server and as numbers in Debezium's offsets. Held as `bigint`; pure.
 */
import { DataError } from 'serverless-connect/connect';

/** A WAL position. */
export type Lsn = bigint;

const MAX_LSN = (1n << 64n) - 1n;
const TEXT_FORM = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** `16/B374D848` → LSN. @throws DataError when `text` is not one. */
export function parseLsn(text: string): Lsn {
  const match = TEXT_FORM.exec(text.trim());
  if (match === null) throw new DataError(`Not a PostgreSQL LSN: ${JSON.stringify(text)}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** LSN → `16/B374D848`, as PostgreSQL writes it. */
export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/**
 * An LSN as an offset value: a JSON number, as Debezium stores it, while it is a safe integer
 * (below 8 PiB of WAL), else its decimal string.
 */
export function lsnToOffsetValue(lsn: Lsn): number | string {
  return lsn <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(lsn) : lsn.toString();
}

/**
 * An offset value (a number, a decimal string, a bigint or the `X/Y` text form) as an LSN;
 * `undefined` when it is not one.
 */
export function lsnFromOffsetValue(value: unknown): Lsn | undefined {
  let lsn: bigint | undefined;
  if (typeof value === 'bigint') lsn = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) lsn = BigInt(value);
  else if (typeof value === 'string' && /^\d+$/.test(value)) lsn = BigInt(value);
  else if (typeof value === 'string' && TEXT_FORM.test(value)) lsn = parseLsn(value);
  return lsn !== undefined && lsn >= 0n && lsn <= MAX_LSN ? lsn : undefined;
}

/** The larger of two LSNs. */
export function maxLsn(a: Lsn, b: Lsn): Lsn {
  return a > b ? a : b;
}
