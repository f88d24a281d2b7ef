/**
 * Connect's int64 in Avro: safe integers as numbers, the rest of the 64-bit range as bigints,
 * each written as the Avro specification's zigzag varint (computed here in bigints; avsc's own
 * `long` rounds numbers beyond 2^52 when it doubles them, so the edges at 2^52 are tested).
 */
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
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
  2 ** 52 - 1, // the last value avsc's own varint code writes exactly
  -(2 ** 52) + 1,
  2 ** 52, // from here on, through a bigint
  -(2 ** 52),
  2 ** 52 + 1,
  -(2 ** 52) - 1,
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

  it('refuses a number that is not an integer, and a bigint beyond 64 bits', () => {
    // Act / Assess
    expect(() => codec.encode(0.5)).toThrow(DataError);
    expect(() => codec.encode(2n ** 63n)).toThrow(DataError);
  });

  it('refuses bytes that end inside a long', () => {
    // Arrange: the first bytes of 2^62's varint
    const bytes = Buffer.from(zigzagVarintHex(2n ** 62n), 'hex').subarray(0, 5);
    // Act / Assess
    expect(() => codec.decode(bytes)).toThrow(DataError);
  });

  it('keeps the longs of a record, optional or not, small or beyond 2^53', () => {
    // Arrange
    const schema = SchemaBuilder.struct()
      .name('Longs')
      .field('id', Schemas.INT64)
      .field('maybe', Schemas.OPTIONAL_INT64)
      .build();
    const records = new AvroData({ cacheSize: 10 }).forConnectSchema(schema);
    for (const [id, maybe] of [
      [7, null],
      [-(2n ** 60n), 2n ** 62n],
      [2 ** 52, -(2 ** 52) - 1],
    ] as const) {
      // Act
      const back = records.decode(
        records.encode(new Struct(schema).put('id', id).put('maybe', maybe)),
      );
      // Assess
      expect((back as Struct).get('id')).toBe(id);
      expect((back as Struct).get('maybe')).toBe(maybe);
    }
  });
});
