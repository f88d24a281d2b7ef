/**
 * The snappy, lz4 and zstd codecs in the shape kafkajs calls, and their registration in kafkajs'
 * process-wide `CompressionCodecs` table (kafkajs ships gzip only). Each codec loads its
 * implementation on first use, so a process that never meets a codec pays nothing for it (lz4js
 * allocates 5 MiB when loaded; zstd is Node's own zlib).
 */
import kafkajs from 'kafkajs';

// kafkajs is CommonJS and Node's ESM loader cannot see `CompressionCodecs` among its named
// exports (tsx and plain Node fail on a named import; bundles and vitest do not), so read it from
// the default export.
const { CompressionCodecs, CompressionTypes } = kafkajs;

/**
 * What kafkajs calls: `compress` receives its encoder (the encoded records in `buffer`) and
 * `decompress` the compressed records; both resolve with a Buffer (kafkajs reads it with Buffer
 * methods).
 */
export interface KafkaJsCodec {
  compress(encoder: { readonly buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

type Transform = (data: Uint8Array) => Uint8Array | Promise<Uint8Array>;

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

function lazyCodec(
  load: () => Promise<{ readonly compress: Transform; readonly decompress: Transform }>,
): KafkaJsCodec {
  let implementation: ReturnType<typeof load> | undefined;
  const loaded = () => {
    implementation ??= load();
    return implementation;
  };
  return {
    compress: async (encoder) => asBuffer(await (await loaded()).compress(encoder.buffer)),
    decompress: async (buffer) => asBuffer(await (await loaded()).decompress(buffer)),
  };
}

/** The codecs registered by {@link registerKafkaJsCodecs}, one object per process. */
export const kafkaJsCodecs = {
  snappy: lazyCodec(async () => {
    const m = await import('./xerial-snappy.js');
    return { compress: m.xerialSnappyCompress, decompress: m.xerialSnappyDecompress };
  }),
  lz4: lazyCodec(async () => {
    const m = await import('./lz4-frame.js');
    return { compress: m.lz4FrameCompress, decompress: m.lz4FrameDecompress };
  }),
  zstd: lazyCodec(async () => {
    const m = await import('./zstd.js');
    return { compress: (data) => m.zstdCompress(data), decompress: m.zstdDecompress };
  }),
} as const satisfies Record<string, KafkaJsCodec>;

let registered = false;

/**
 * Registers snappy, lz4 and zstd in kafkajs (producers compress with them, consumers decompress
 * with them). Idempotent: the table is written once per process.
 */
export function registerKafkaJsCodecs(): void {
  if (registered) return;
  registered = true;
  CompressionCodecs[CompressionTypes.Snappy] = () => kafkaJsCodecs.snappy;
  CompressionCodecs[CompressionTypes.LZ4] = () => kafkaJsCodecs.lz4;
  CompressionCodecs[CompressionTypes.ZSTD] = () => kafkaJsCodecs.zstd;
}
