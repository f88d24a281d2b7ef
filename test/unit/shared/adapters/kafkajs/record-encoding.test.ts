import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * The kafkajs record encoder as patched (patches/kafkajs+2.2.4.patch: varints written in place,
 * small varlongs through the 32-bit path, one buffer per record with its headers written in
 * place, record batches sized up front), checked against the Kafka protocol's record format
 * written out here with BigInt arithmetic, and against kafkajs' own decoder.
 */
const require = createRequire(import.meta.url);

interface KafkajsEncoder {
  readonly buffer: Buffer;
  writeVarLong(value: number | string): KafkajsEncoder;
  writeVarInt(value: number): KafkajsEncoder;
}
const Encoder = require('kafkajs/src/protocol/encoder.js') as {
  new (): KafkajsEncoder;
  sizeOfVarLong(value: number): number;
};
const Record = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (record: {
  offsetDelta: number;
  timestampDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers?: Record<string, Buffer | Buffer[]>;
}) => KafkajsEncoder;
const Decoder = require('kafkajs/src/protocol/decoder.js') as new (buffer: Buffer) => unknown;
const RecordDecoder = require('kafkajs/src/protocol/recordBatch/record/v0/decoder.js') as (
  decoder: unknown,
  batch: { firstOffset: string; firstTimestamp: string },
) => {
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | Buffer[]>;
  offset: string;
  timestamp: string;
};

/** Unsigned LEB128 of a non-negative BigInt. */
function uvarint(value: bigint): number[] {
  const bytes: number[] = [];
  let v = value;
  while (v >= 0x80n) {
    bytes.push(Number((v & 0x7fn) | 0x80n));
    v >>= 7n;
  }
  bytes.push(Number(v));
  return bytes;
}

/** Kafka's zigzag varlong (64-bit), which for int32 values is also its varint. */
function varlong(value: bigint): number[] {
  return uvarint(BigInt.asUintN(64, (value << 1n) ^ (value >> 63n)));
}

function varbytes(bytes: Buffer | null): number[] {
  return bytes === null ? varlong(-1n) : [...varlong(BigInt(bytes.length)), ...bytes];
}

/** A record as the protocol defines it (Record v2 of KIP-98). */
function referenceRecord(
  offsetDelta: number,
  timestampDelta: number,
  key: Buffer | null,
  value: Buffer | null,
  headers: [string, Buffer][],
): Buffer {
  const body = [
    0, // attributes
    ...varlong(BigInt(timestampDelta)),
    ...varlong(BigInt(offsetDelta)),
    ...varbytes(key),
    ...varbytes(value),
    ...varlong(BigInt(headers.length)),
    ...headers.flatMap(([k, v]) => [...varbytes(Buffer.from(k, 'utf8')), ...varbytes(v)]),
  ];
  return Buffer.from([...varlong(BigInt(body.length)), ...body]);
}

describe('kafkajs record encoding (patched)', () => {
  it('writes varlongs as the protocol defines them, small and large', () => {
    const edges = [0, 1, -1, 63, 64, -64, -65, 0x3fffffff, -0x40000000, 0x40000000, -0x40000001];
    const values = [
      ...edges,
      2 ** 40,
      -(2 ** 40),
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
    ];
    for (const value of values) {
      const encoded = new Encoder().writeVarLong(value).buffer;
      expect([...encoded], String(value)).toEqual(varlong(BigInt(value)));
      expect(Encoder.sizeOfVarLong(value), String(value)).toBe(encoded.length);
    }
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (value) => {
        expect([...new Encoder().writeVarInt(value).buffer]).toEqual(varlong(BigInt(value)));
      }),
    );
  });

  it('encodes a record with its headers byte for byte as the protocol defines it, and kafkajs reads it back', () => {
    // Keys start with a letter: a JavaScript object lists integer-like keys first.
    const header = fc.tuple(
      fc.string({ maxLength: 12 }).map((k) => `h${k}`),
      fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
    );
    fc.assert(
      fc.property(
        fc.nat(100_000),
        fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
        fc.option(fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b))),
        fc.option(fc.uint8Array({ maxLength: 2_000 }).map((b) => Buffer.from(b))),
        fc.uniqueArray(header, { maxLength: 4, selector: ([k]) => k }),
        (offsetDelta, timestampDelta, key, value, headers) => {
          const encoded = Record({
            offsetDelta,
            timestampDelta,
            key,
            value,
            headers: Object.fromEntries(headers),
          }).buffer;
          expect(encoded).toEqual(
            referenceRecord(offsetDelta, timestampDelta, key, value, headers),
          );
          const decoder = new Decoder(encoded) as { readVarInt(): number };
          decoder.readVarInt(); // the record's length
          const decoded = RecordDecoder(decoder, { firstOffset: '0', firstTimestamp: '0' });
          expect(decoded.offset).toBe(String(offsetDelta));
          expect(decoded.timestamp).toBe(String(timestampDelta));
          expect(decoded.key).toEqual(key);
          expect(decoded.value).toEqual(value);
          expect(Object.keys(decoded.headers)).toEqual(headers.map(([k]) => k));
        },
      ),
    );
  });

  it('keeps repeated header keys in order', () => {
    const a = Buffer.from('a');
    const b = Buffer.from('b');
    const encoded = Record({
      offsetDelta: 0,
      timestampDelta: 0,
      key: null,
      value: null,
      headers: { h: [a, b] },
    }).buffer;
    expect(encoded).toEqual(
      referenceRecord(0, 0, null, null, [
        ['h', a],
        ['h', b],
      ]),
    );
  });
});
