import fc from 'fast-check';
import { compress } from 'snappyjs';
import { describe, expect, it } from 'vitest';
import {
  xerialSnappyCompress,
  xerialSnappyDecompress,
} from '../../../../../../shared/adapters/kafkajs/codecs/xerial-snappy.js';
import { bytesOf, hex, javaCompressed, javaInput, utf8 } from './java-fixtures.js';

describe('xerial snappy', () => {
  it('reads what the Java producer writes', () => {
    // Act
    const decoded = xerialSnappyDecompress(hex(javaCompressed.snappy));

    // Assess
    expect(utf8(decoded)).toBe(javaInput);
  });

  it('writes the xerial framing the Java client writes, byte for byte on a small input', () => {
    // Act
    const encoded = xerialSnappyCompress(bytesOf(javaInput));

    // Assess
    expect(Buffer.from(encoded).toString('hex')).toBe(javaCompressed.snappy);
  });

  it('splits input into 32 KiB chunks, each with its length', () => {
    // Prepare
    const input = new Uint8Array(70 * 1024).map((_, i) => (i * 7) % 251);

    // Act
    const encoded = xerialSnappyCompress(input);

    // Assess
    const view = new DataView(encoded.buffer, encoded.byteOffset, encoded.byteLength);
    const chunks: number[] = [];
    for (let at = 16; at < encoded.length; at += 4 + view.getInt32(at)) {
      chunks.push(view.getInt32(at));
    }
    expect(chunks).toHaveLength(3);
    expect(xerialSnappyDecompress(encoded)).toEqual(input);
  });

  it('round-trips any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100_000 }), (input) => {
        expect(xerialSnappyDecompress(xerialSnappyCompress(input))).toEqual(input);
      }),
      { numRuns: 50 },
    );
  });

  it('also reads raw snappy without the xerial header (librdkafka, older kafkajs codecs)', () => {
    // Prepare
    const raw = compress(bytesOf('raw snappy block'));

    // Act
    const decoded = xerialSnappyDecompress(raw);

    // Assess
    expect(utf8(decoded)).toBe('raw snappy block');
  });

  it('throws on a truncated xerial stream', () => {
    // Prepare
    const encoded = xerialSnappyCompress(bytesOf(javaInput));

    // Act + Assess
    expect(() => xerialSnappyDecompress(encoded.subarray(0, encoded.length - 3))).toThrow(
      /truncated/,
    );
  });
});
