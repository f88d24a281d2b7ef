/**
 * Connect's int64 in Avro: safe integers as numbers (through the two 32-bit halves), the rest of
 * the 64-bit range as bigints, each written as the Avro specification's zigzag varint (computed
 * here in bigints; avsc's own `long` rounds numbers beyond 2^52 when it doubles them).
 */
import { describe, expect, it } from 'vitest';
import { Schemas } from '../../../../../../shared/connect/schema.js';
import { AvroData } from '../../../../../../shared/plugins/converters/avro/avro-codec.js';

const TWO_32 = 2 ** 32;

/** The Avro spec's long encoding of `n`: zigzag, then 7 bits a byte, low bits first, as hex. */
function zigzagVarintHex(n: bigint): string {
  let zz = n >= 0n ? n << 1n : (-n << 1n) - 1n;
  const bytes: number[] = [];
  while (zz >= 0x80n) {
    bytes.push(Number(zz & 0x7fn) | 0x80);
    zz >>= 7n;
  }
  bytes.push(Number(zz));
  return Buffer.from(bytes).toString('hex');
}

const SAFE_LONGS = [
  0,
  1,
  -1,
  TWO_32 - 1,
  TWO_32,
  -TWO_32,
  -TWO_32 - 1,
  (2 ** 21 - 1) * TWO_32,
  -(2 ** 21 - 1) * TWO_32,
  (2 ** 21 - 1) * TWO_32 + (TWO_32 - 1),
  -(2 ** 21) * TWO_32 + 1, // the high half at -2^21: read through a bigint
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  1_733_212_800_000, // a timestamp in milliseconds
];

describe('Avro long (Connect int64)', () => {
  const codec = new AvroData({ cacheSize: 10 }).forConnectSchema(Schemas.INT64);

  it('encodes as the specification says (the reference itself checked on known bytes)', () => {
    expect(zigzagVarintHex(0n)).toBe('00');
    expect(zigzagVarintHex(-1n)).toBe('01');
    expect(zigzagVarintHex(1n)).toBe('02');
    expect(zigzagVarintHex(-64n)).toBe('7f');
    expect(zigzagVarintHex(64n)).toBe('8001');
  });

  it.each(SAFE_LONGS)('writes %d as a zigzag varint and reads it back as that number', (n) => {
    // Act
    const bytes = codec.encode(n);
    // Assess
    expect(Buffer.from(bytes).toString('hex')).toBe(zigzagVarintHex(BigInt(n)));
    expect(codec.decode(bytes)).toBe(n);
  });

  it.each([2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n, -(2n ** 53n)])(
    'keeps %s, beyond 2^53, a bigint both ways',
    (n) => {
      // Act
      const bytes = codec.encode(n);
      // Assess
      expect(Buffer.from(bytes).toString('hex')).toBe(zigzagVarintHex(n));
      expect(codec.decode(bytes)).toBe(n);
    },
  );

  it('refuses a number that is not an integer', () => {
    // Act / Assess
    expect(() => codec.encode(1.5)).toThrow();
  });
});
