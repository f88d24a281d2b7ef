import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  zstdCompress,
  zstdDecompress,
} from '../../../../../../shared/adapters/kafkajs/codecs/zstd.js';
import { bytesOf, hex, javaCompressed, javaInput, utf8 } from './java-fixtures.js';

describe('zstd', () => {
  it('reads what the Java producer writes (a streaming frame without a content size)', async () => {
    // Act
    const decoded = await zstdDecompress(hex(javaCompressed.zstd));

    // Assess
    expect(utf8(decoded)).toBe(javaInput);
  });

  it('writes standard zstd frames', async () => {
    // Act
    const encoded = await zstdCompress(bytesOf('abc'.repeat(10_000)));

    // Assess
    expect([...encoded.subarray(0, 4)]).toEqual([0x28, 0xb5, 0x2f, 0xfd]);
    expect(encoded.length).toBeLessThan(100);
  });

  it('round-trips any bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 100_000 }), async (input) => {
        expect(await zstdDecompress(await zstdCompress(input))).toEqual(Buffer.from(input));
      }),
      { numRuns: 40 },
    );
  });

  it('reads concatenated frames', async () => {
    // Prepare
    const first = await zstdCompress(bytesOf('first '));
    const second = await zstdCompress(bytesOf('second'));

    // Act
    const decoded = await zstdDecompress(Uint8Array.from([...first, ...second]));

    // Assess
    expect(utf8(decoded)).toBe('first second');
  });
});

describe('zstd frames', () => {
  it('skips skippable frames between data frames and reads frames with a checksum', async () => {
    // Prepare: a skippable frame (magic 0x184D2A53, 3 bytes) between two data frames
    const { zstdCompressSync, constants } = await import('node:zlib');
    const first = zstdCompressSync(bytesOf('with checksum '), {
      params: { [constants.ZSTD_c_checksumFlag]: 1 },
    });
    const skippable = Uint8Array.from([0x53, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9]);
    const second = await zstdCompress(bytesOf('and after'));

    // Act
    const decoded = await zstdDecompress(Uint8Array.from([...first, ...skippable, ...second]));

    // Assess
    expect(utf8(decoded)).toBe('with checksum and after');
  });

  it('refuses a truncated frame and bytes that are not zstd', async () => {
    // Prepare
    const whole = await zstdCompress(bytesOf('x'.repeat(1000)));

    // Act / Assess
    await expect(zstdDecompress(whole.subarray(0, whole.length - 2))).rejects.toThrow(/zstd/);
    await expect(zstdDecompress(bytesOf('not zstd at all'))).rejects.toThrow('not a zstd frame');
  });
});
