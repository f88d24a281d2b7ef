/**
 * Zstandard, as Kafka's Java client writes it (zstd-jni streaming frames, no dictionary, level 3
 * by default). Compression runs the reference C library compiled to WebAssembly
 * (`@hpcc-js/wasm-zstd`, the wasm embedded in its JavaScript, so it bundles as one file);
 * decompression runs `fzstd` in plain JavaScript, because frames from streaming compressors
 * (the Java client's among them) do not declare their decompressed size, which the wasm
 * one-shot decoder needs.
 */
import { Zstd } from '@hpcc-js/wasm-zstd';
import { decompress } from 'fzstd';

/** Kafka's default `compression.zstd.level`. */
const DEFAULT_LEVEL = 3;

let zstd: Promise<Zstd> | undefined;

/** Instantiates the WebAssembly module on first use (tens of milliseconds, once per process). */
function loaded(): Promise<Zstd> {
  zstd ??= Zstd.load().catch((error: unknown) => {
    zstd = undefined;
    throw error;
  });
  return zstd;
}

/** Compresses `data` into one zstd frame (with its content size). */
export async function zstdCompress(data: Uint8Array, level = DEFAULT_LEVEL): Promise<Uint8Array> {
  return (await loaded()).compress(data, level);
}

/** Decompresses one or more concatenated zstd frames, with or without a declared content size. */
export function zstdDecompress(data: Uint8Array): Uint8Array {
  return decompress(data);
}
