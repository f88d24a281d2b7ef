/**
 * Zstandard, as Kafka's Java client writes it (zstd-jni streaming frames, no dictionary, level 3
 * by default), through Node's own zlib: the reference C library the runtime already carries
 * (Node.js 22.15 and newer, so the nodejs24.x Lambda runtime and the project's pinned Node 22).
 * Its decoder is a streaming one, so it reads frames that do not declare their decompressed size
 * (the Java client's) and concatenated frames. Node's zlib runs the work on its thread pool.
 */

import { promisify } from 'node:util';
import * as zlib from 'node:zlib';

/** Kafka's default `compression.zstd.level`. */
const DEFAULT_LEVEL = 3;

/** The first Node.js release line whose zlib has zstd. */
const NEEDS = 'Node.js 22.15 or newer';

type Transform = (buf: zlib.InputType, options: zlib.ZstdOptions) => Promise<Buffer>;

/** zlib's zstd functions, or an error naming what this Node.js lacks. */
function zstdOf(name: 'zstdCompress' | 'zstdDecompress'): Transform {
  const native = (zlib as Partial<typeof zlib>)[name];
  if (typeof native !== 'function') {
    throw new Error(
      `compression.type=zstd needs ${NEEDS} (node:zlib zstd); this process runs ${process.version}`,
    );
  }
  return promisify(native) as Transform;
}

/**
 * zlib's output chunk for `bytes` of expected output: its 16 KiB default makes a large batch
 * many thread-pool round trips (decoding 1 MiB of JSON records took 5x longer than with one
 * chunk; measured with Node 22.23).
 */
function chunkSize(bytes: number): number {
  return Math.min(8 << 20, Math.max(64 << 10, bytes));
}

let compress: Transform | undefined;
let decompress: Transform | undefined;

/** Compresses `data` into one zstd frame (with its content size). */
export function zstdCompress(data: Uint8Array, level = DEFAULT_LEVEL): Promise<Uint8Array> {
  compress ??= zstdOf('zstdCompress');
  return compress(data, {
    params: { [zlib.constants.ZSTD_c_compressionLevel]: level },
    pledgedSrcSize: data.length,
    chunkSize: chunkSize(data.length),
  });
}

const FRAME_MAGIC = 0xfd2fb528;
/** Skippable frames: magic 0x184D2A50 to 0x184D2A5F, then a 4-byte size. */
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;

/** A frame of `data`: where it starts, how long it is, whether it holds data. */
interface Frame {
  readonly start: number;
  readonly length: number;
  readonly skippable: boolean;
}

/**
 * The frame at `start` (RFC 8878 section 3.1), found by walking its header and block headers
 * without decoding.
 */
function frameAt(view: DataView, start: number): Frame {
  const magic = view.getUint32(start, true);
  if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
    return { start, length: 8 + view.getUint32(start + 4, true), skippable: true };
  }
  if (magic !== FRAME_MAGIC) throw new Error('zstd: not a zstd frame');
  const descriptor = view.getUint8(start + 4);
  const singleSegment = (descriptor & 0x20) !== 0;
  const contentSizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][descriptor >> 6] ?? 0;
  const dictionaryBytes = [0, 1, 2, 4][descriptor & 0x03] ?? 0;
  let at = start + 5 + (singleSegment ? 0 : 1) + dictionaryBytes + contentSizeBytes;
  let last = false;
  while (!last) {
    const header = view.getUint8(at) | (view.getUint8(at + 1) << 8) | (view.getUint8(at + 2) << 16);
    last = (header & 1) === 1;
    const rle = ((header >> 1) & 0x03) === 1;
    at += 3 + (rle ? 1 : header >>> 3);
  }
  const checksum = (descriptor & 0x04) !== 0 ? 4 : 0;
  return { start, length: at + checksum - start, skippable: false };
}

/** The frames of `data`, in order. */
function framesOf(data: Uint8Array): Frame[] {
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  const frames: Frame[] = [];
  try {
    for (let at = 0; at < data.length; ) {
      const frame = frameAt(view, at);
      frames.push(frame);
      at += frame.length;
    }
  } catch (error) {
    if (error instanceof RangeError) throw new Error('zstd: truncated frame');
    throw error;
  }
  const end = frames.at(-1);
  if (end !== undefined && end.start + end.length > data.length) {
    throw new Error('zstd: truncated frame');
  }
  return frames;
}

/**
 * Decompresses one or more concatenated zstd frames, with or without a declared content size.
 * zlib's decoder stops after the first frame, so several frames (a producer may send them back
 * to back) are decoded one by one; skippable frames are skipped.
 */
export async function zstdDecompress(data: Uint8Array): Promise<Uint8Array> {
  decompress ??= zstdOf('zstdDecompress');
  const frames = framesOf(data);
  // Records compress about 3 to 5 times; a larger output only takes more chunks.
  const options = { chunkSize: chunkSize(data.length * 4) };
  if (frames.length === 1 && frames[0]?.skippable === false) return decompress(data, options);
  const parts: Buffer[] = [];
  for (const frame of frames) {
    if (frame.skippable) continue;
    parts.push(await decompress(data.subarray(frame.start, frame.start + frame.length), options));
  }
  return Buffer.concat(parts);
}
