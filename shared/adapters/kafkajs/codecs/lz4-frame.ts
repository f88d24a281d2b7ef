/**
 * LZ4 in the frame format, as Kafka's Java client writes it (`Lz4BlockOutputStream` for
 * record batch v2): version 1, independent blocks of at most 64 KiB, no block or content
 * checksum, no content size, a correct header checksum, then an end mark. lz4js supplies the
 * block codec only: its own frame writer leaves the block-independence flag unset (the Java
 * reader refuses such frames) and shares its hash table across blocks.
 *
 * Reading accepts what the frame format allows and Kafka writes or tolerates: the optional
 * content size, block checksums and content checksum are skipped, stored (incompressible)
 * blocks are copied, and the header checksum is not verified (Kafka's v0 message format wrote
 * a wrong one).
 */
import { compressBlock, compressBound, decompressBlock } from 'lz4js';
import { hash as xxh32 } from 'lz4js/xxh32.js';

const MAGIC = 0x184d2204;
/** FLG: version 01, block independence. */
const FLG_KAFKA = 0x60;
const FLG_VERSION_MASK = 0xc0;
const FLG_VERSION_1 = 0x40;
const FLG_BLOCK_INDEPENDENCE = 0x20;
const FLG_BLOCK_CHECKSUM = 0x10;
const FLG_CONTENT_SIZE = 0x08;
const FLG_CONTENT_CHECKSUM = 0x04;
/** BD: maximum block size 64 KiB (Kafka's default, code 4). */
const BD_64KB = 4 << 4;
const BLOCK_SIZE = 64 * 1024;
const UNCOMPRESSED = 0x80000000;

/** Block maximum sizes by BD code: 2^(2n+8). */
function maxBlockSize(bd: number): number {
  const code = (bd >> 4) & 7;
  if (code < 4) throw new Error(`lz4: invalid block maximum size code ${code}`);
  return 1 << (2 * code + 8);
}

let hashTable: Uint32Array | undefined;

/** Compresses `data` into one Kafka-compatible LZ4 frame. */
export function lz4FrameCompress(data: Uint8Array): Uint8Array {
  hashTable ??= new Uint32Array(1 << 16);
  const blocks = Math.ceil(data.length / BLOCK_SIZE);
  const out = new Uint8Array(7 + blocks * (4 + compressBound(BLOCK_SIZE)) + 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  out[4] = FLG_KAFKA;
  out[5] = BD_64KB;
  out[6] = (xxh32(0, out, 4, 2) >> 8) & 0xff;
  let at = 7;
  const scratch = new Uint8Array(compressBound(BLOCK_SIZE));
  for (let start = 0; start < data.length; start += BLOCK_SIZE) {
    const block = data.subarray(start, Math.min(start + BLOCK_SIZE, data.length));
    hashTable.fill(0); // independent blocks: no match may reach into an earlier block
    const size = compressBlock(block, scratch, 0, block.length, hashTable);
    if (size === 0 || size >= block.length) {
      view.setUint32(at, (block.length | UNCOMPRESSED) >>> 0, true);
      out.set(block, at + 4);
      at += 4 + block.length;
    } else {
      view.setUint32(at, size, true);
      out.set(scratch.subarray(0, size), at + 4);
      at += 4 + size;
    }
  }
  view.setUint32(at, 0, true);
  return out.slice(0, at + 4);
}

/** Decompresses one LZ4 frame; throws on a bad magic number, version or a truncated frame. */
export function lz4FrameDecompress(data: Uint8Array): Uint8Array {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.length < 7 || view.getUint32(0, true) !== MAGIC) {
    throw new Error('lz4: stream unsupported (invalid magic bytes)');
  }
  const flg = data[4] ?? 0;
  if ((flg & FLG_VERSION_MASK) !== FLG_VERSION_1) throw new Error('lz4: unsupported version');
  if ((flg & FLG_BLOCK_INDEPENDENCE) === 0) {
    throw new Error('lz4: dependent block stream is unsupported');
  }
  const blockMax = maxBlockSize(data[5] ?? 0);
  let at = 6 + ((flg & FLG_CONTENT_SIZE) !== 0 ? 8 : 0) + 1;
  const blockChecksum = (flg & FLG_BLOCK_CHECKSUM) !== 0;
  const parts: Uint8Array[] = [];
  let length = 0;
  const scratch = new Uint8Array(blockMax);
  for (;;) {
    if (at + 4 > data.length) throw new Error('lz4: stream ended prematurely');
    const word = view.getUint32(at, true);
    at += 4;
    if (word === 0) break;
    const size = word & 0x7fffffff;
    if (size > blockMax || at + size > data.length) {
      throw new Error('lz4: stream ended prematurely');
    }
    let part: Uint8Array;
    if ((word & UNCOMPRESSED) !== 0) {
      part = data.slice(at, at + size);
    } else {
      const end = decompressBlock(data, scratch, at, size, 0);
      if (end > blockMax) throw new Error(`lz4: block exceeds ${blockMax} bytes`);
      part = scratch.slice(0, end);
    }
    parts.push(part);
    length += part.length;
    at += size + (blockChecksum ? 4 : 0);
  }
  if ((flg & FLG_CONTENT_CHECKSUM) !== 0 && at + 4 > data.length) {
    throw new Error('lz4: stream ended prematurely');
  }
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
