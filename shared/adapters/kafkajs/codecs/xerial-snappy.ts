/**
 * Snappy as Kafka's Java client writes it: the xerial `SnappyOutputStream` framing (a 16-byte
 * header, then chunks of at most 32 KiB, each a big-endian int32 length and a raw snappy block),
 * which is what `org.apache.kafka.common.compress.SnappyCompression` produces for every
 * record batch. Reading accepts both that framing and raw snappy (librdkafka and older kafkajs
 * codecs write raw snappy; xerial's `SnappyInputStream` reads both too).
 */
import { compress, uncompress } from 'snappyjs';

/** xerial's magic: 0x82 "SNAPPY" 0x00, then version 1 and minimum compatible version 1. */
const MAGIC = Uint8Array.of(0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00);
const HEADER_LENGTH = 16;
/** xerial's default block size. */
const CHUNK_SIZE = 32 * 1024;

function hasXerialHeader(data: Uint8Array): boolean {
  if (data.length < HEADER_LENGTH) return false;
  return MAGIC.every((byte, i) => data[i] === byte);
}

/** Compresses `data` into a xerial-framed snappy stream. */
export function xerialSnappyCompress(data: Uint8Array): Uint8Array {
  const chunks: Uint8Array[] = [];
  let length = HEADER_LENGTH;
  for (let start = 0; start < data.length; start += CHUNK_SIZE) {
    const chunk = compress(data.subarray(start, Math.min(start + CHUNK_SIZE, data.length)));
    chunks.push(chunk);
    length += 4 + chunk.length;
  }
  const out = new Uint8Array(length);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setInt32(8, 1);
  view.setInt32(12, 1);
  let at = HEADER_LENGTH;
  for (const chunk of chunks) {
    view.setInt32(at, chunk.length);
    out.set(chunk, at + 4);
    at += 4 + chunk.length;
  }
  return out;
}

/** Decompresses a xerial-framed or raw snappy stream; throws on a truncated or malformed one. */
export function xerialSnappyDecompress(data: Uint8Array): Uint8Array {
  if (!hasXerialHeader(data)) return uncompress(data);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const parts: Uint8Array[] = [];
  let length = 0;
  for (let at = HEADER_LENGTH; at < data.length; ) {
    if (at + 4 > data.length) throw new Error('snappy: truncated xerial chunk header');
    const size = view.getInt32(at);
    at += 4;
    if (size < 0 || at + size > data.length) throw new Error('snappy: truncated xerial chunk');
    const part = uncompress(data.subarray(at, at + size));
    parts.push(part);
    length += part.length;
    at += size;
  }
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
