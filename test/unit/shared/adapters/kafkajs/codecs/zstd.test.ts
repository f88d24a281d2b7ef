import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  zstdCompress,
  zstdDecompress,
} from '../../../../../../shared/adapters/kafkajs/codecs/zstd.js';
import { bytesOf, hex, javaCompressed, javaInput, utf8 } from './java-fixtures.js';

describe('zstd', () => {
  it('reads what the Java producer writes (a streaming frame without a content size)', () => {
    // Act
    const decoded = zstdDecompress(hex(javaCompressed.zstd));

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
        expect(zstdDecompress(await zstdCompress(input))).toEqual(input);
      }),
      { numRuns: 40 },
    );
  });

  it('reads concatenated frames', async () => {
    // Prepare
    const first = await zstdCompress(bytesOf('first '));
    const second = await zstdCompress(bytesOf('second'));

    // Act
    const decoded = zstdDecompress(Uint8Array.from([...first, ...second]));

    // Assess
    expect(utf8(decoded)).toBe('first second');
  });
});
