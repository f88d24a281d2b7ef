import fc from 'fast-check';
import { hash as xxh32 } from 'lz4js/xxh32.js';
import { describe, expect, it } from 'vitest';
import {
  lz4FrameCompress,
  lz4FrameDecompress,
} from '../../../../../../shared/adapters/kafkajs/codecs/lz4-frame.js';
import { bytesOf, hex, javaCompressed, javaInput, utf8 } from './java-fixtures.js';

/** A frame holding `payload` as stored blocks, with the optional parts of the format. */
function frame(
  payload: Uint8Array,
  options: { blockChecksum?: boolean; contentSize?: boolean; contentChecksum?: boolean } = {},
): Uint8Array {
  const flg =
    0x60 |
    (options.blockChecksum ? 0x10 : 0) |
    (options.contentSize ? 0x08 : 0) |
    (options.contentChecksum ? 0x04 : 0);
  const parts: number[] = [0x04, 0x22, 0x4d, 0x18, flg, 0x40];
  if (options.contentSize) parts.push(payload.length, 0, 0, 0, 0, 0, 0, 0);
  parts.push(0xab); // header checksum (not verified on read)
  const size = payload.length | 0x80000000;
  parts.push(size & 0xff, (size >>> 8) & 0xff, (size >>> 16) & 0xff, size >>> 24, ...payload);
  if (options.blockChecksum) parts.push(1, 2, 3, 4);
  parts.push(0, 0, 0, 0);
  if (options.contentChecksum) parts.push(5, 6, 7, 8);
  return Uint8Array.from(parts);
}

describe('LZ4 frame (Kafka dialect)', () => {
  it('reads what the Java producer writes', () => {
    // Act
    const decoded = lz4FrameDecompress(hex(javaCompressed.lz4));

    // Assess
    expect(utf8(decoded)).toBe(javaInput);
  });

  it('writes the frame the Java client writes, byte for byte on a small input', () => {
    // Act
    const encoded = lz4FrameCompress(bytesOf(javaInput));

    // Assess
    expect(Buffer.from(encoded).toString('hex')).toBe(javaCompressed.lz4);
  });

  it('declares independent 64 KiB blocks with a correct header checksum', () => {
    // Act
    const encoded = lz4FrameCompress(new Uint8Array(200_000).fill(7));

    // Assess
    expect(encoded[4]).toBe(0x60);
    expect(encoded[5]).toBe(0x40);
    expect(encoded[6]).toBe((xxh32(0, encoded, 4, 2) >> 8) & 0xff);
  });

  it('round-trips any bytes, across blocks and for incompressible input', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 70_000 }),
          fc
            .tuple(
              fc.uint8Array({ minLength: 1, maxLength: 40 }),
              fc.integer({ min: 1, max: 9000 }),
            )
            .map(([unit, times]) =>
              Uint8Array.from(
                { length: unit.length * times },
                (_, i) => unit[i % unit.length] ?? 0,
              ),
            ),
        ),
        (input) => {
          expect(lz4FrameDecompress(lz4FrameCompress(input))).toEqual(input);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('compresses repetitive input', () => {
    // Act
    const encoded = lz4FrameCompress(bytesOf('abc'.repeat(100_000)));

    // Assess
    expect(encoded.length).toBeLessThan(5_000);
  });

  it('skips content size, block checksums and content checksum when a writer adds them', () => {
    // Prepare
    const payload = bytesOf('stored block');

    // Act
    const decoded = lz4FrameDecompress(
      frame(payload, { blockChecksum: true, contentSize: true, contentChecksum: true }),
    );

    // Assess
    expect(utf8(decoded)).toBe('stored block');
  });

  it('refuses frames with dependent blocks and input that is not an LZ4 frame', () => {
    // Prepare
    const dependent = frame(bytesOf('x'));
    dependent[4] = 0x40;

    // Act + Assess
    expect(() => lz4FrameDecompress(dependent)).toThrow(/dependent block/);
    expect(() => lz4FrameDecompress(bytesOf('not lz4 at all'))).toThrow(/invalid magic/);
    expect(() => lz4FrameDecompress(frame(bytesOf('x')).subarray(0, 9))).toThrow(/prematurely/);
  });
});
