/**
 * Avro's `long` as Connect's int64: safe integers as numbers, the rest of the 64-bit range as
 * bigints, each written as the specification's zigzag varint.
 *
 * avsc's own `long` doubles the value in floating point, exact only within ±2^52, and throws
 * beyond ±2^53; its abstract long (`LongType.__with`) is exact but goes through an 8-byte buffer
 * per value, which was most of an Avro record's cost. This type keeps avsc's varint code for
 * the values it handles exactly (almost every long: counters, ids, timestamps in milliseconds)
 * and decodes or encodes the rest through a bigint.
 */
import avroTypes from 'avsc/lib/types.js';

/** What of avsc's `Tap` (its cursor over a buffer) this type uses. */
interface Tap {
  readonly buf: Uint8Array;
  pos: number;
  readLong(): number;
  writeLong(n: number): void;
  skipLong(): void;
}

type Hook = (value: unknown, type: unknown) => void;

/** avsc's varint arithmetic is exact strictly within ±2^52 (the zigzag value below 2^53). */
const EXACT = 4_503_599_627_370_496;
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_LONG = -(2n ** 63n);
const MAX_LONG = 2n ** 63n - 1n;

function isLong(value: unknown): value is number | bigint {
  return typeof value === 'number'
    ? Number.isSafeInteger(value)
    : typeof value === 'bigint' && value >= MIN_LONG && value <= MAX_LONG;
}

/** The varint at `tap.pos` as a bigint (truncated input reads as zero bytes; avsc then throws). */
function readWide(tap: Tap): number | bigint {
  let zigzag = 0n;
  let shift = 0n;
  let byte: number;
  do {
    byte = tap.buf[tap.pos++] ?? 0;
    zigzag |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
  } while (byte & 0x80);
  const n = BigInt.asIntN(64, (zigzag >> 1n) ^ -(zigzag & 1n));
  return n >= MIN_SAFE && n <= MAX_SAFE ? Number(n) : n;
}

/** Writes `n` as a varint; bytes past the buffer's end are dropped, as avsc's writes are. */
function writeWide(tap: Tap, n: bigint): void {
  let zigzag = n >= 0n ? n << 1n : (-n << 1n) - 1n;
  const buf = tap.buf;
  while (zigzag >= 0x80n) {
    buf[tap.pos++] = Number(zigzag & 0x7fn) | 0x80;
    zigzag >>= 7n;
  }
  buf[tap.pos++] = Number(zigzag);
}

/** The `long` given to avsc's `Type.forSchema` through its `registry` option. */
class ExactLongType extends avroTypes.builtins.LongType {
  _check(value: unknown, _flags: unknown, hook?: Hook): boolean {
    const valid = isLong(value);
    if (!valid && hook !== undefined) hook(value, this);
    return valid;
  }

  _read(tap: Tap): number | bigint {
    const start = tap.pos;
    const n = tap.readLong();
    if (n > -EXACT && n < EXACT) return n;
    tap.pos = start;
    return readWide(tap);
  }

  _write(tap: Tap, value: unknown): void {
    if (typeof value === 'number' && value > -EXACT && value < EXACT && value % 1 === 0) {
      tap.writeLong(value);
    } else if (isLong(value)) {
      writeWide(tap, BigInt(value));
    } else {
      throw new Error(`invalid "long": ${String(value)}`);
    }
  }
}

/** The one instance (avsc types are immutable and shared). */
export const EXACT_LONG_TYPE = new ExactLongType();
