import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  kafkaJsCodecs,
  registerKafkaJsCodecs,
} from '../../../../../../shared/adapters/kafkajs/codecs/kafkajs-codecs.js';

const lookup = (type: CompressionTypes) =>
  (CompressionCodecs as unknown as Record<number, () => unknown>)[type]?.();

describe('registerKafkaJsCodecs', () => {
  it('puts the snappy, lz4 and zstd codecs in kafkajs, keeping its gzip', () => {
    // Prepare
    const gzip = lookup(CompressionTypes.GZIP);

    // Act
    registerKafkaJsCodecs();
    registerKafkaJsCodecs();

    // Assess
    expect(lookup(CompressionTypes.Snappy)).toBe(kafkaJsCodecs.snappy);
    expect(lookup(CompressionTypes.LZ4)).toBe(kafkaJsCodecs.lz4);
    expect(lookup(CompressionTypes.ZSTD)).toBe(kafkaJsCodecs.zstd);
    expect(lookup(CompressionTypes.GZIP)).toBe(gzip);
  });

  it.each(['snappy', 'lz4', 'zstd'] as const)(
    'gives kafkajs Buffers it can decode again (%s)',
    async (name) => {
      // Prepare
      const records = Buffer.from('encoded records '.repeat(500));

      // Act
      const compressed = await kafkaJsCodecs[name].compress({ buffer: records });
      const decompressed = await kafkaJsCodecs[name].decompress(compressed);

      // Assess
      expect(Buffer.isBuffer(compressed)).toBe(true);
      expect(compressed.length).toBeLessThan(records.length);
      expect(Buffer.isBuffer(decompressed)).toBe(true);
      expect(decompressed.equals(records)).toBe(true);
    },
  );
});
