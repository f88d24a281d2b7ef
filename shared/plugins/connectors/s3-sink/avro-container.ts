/**
 * Avro object container files (Avro 1.12 specification, "Object Container Files"), written and
 * read by block: a header (magic `Obj\x01`, the metadata map with `avro.schema` and
 * `avro.codec`, a 16-byte sync marker), then blocks of `count`, `size`, the (compressed)
 * concatenated datums and the sync marker. Appending records to a container is appending
 * blocks, so the S3 sink grows Avro objects as it grows JSON lines: the stored bytes, then the
 * batch's block.
 *
 * Codecs: `null`, `deflate` (raw RFC 1951) and `snappy` (raw snappy followed by the CRC-32 of
 * the uncompressed data, big-endian), as Apache Avro's Java library writes them.
 *
 * @example
 * const sync = syncMarker(schemaText, key);
 * const bytes = concat([writeHeader(schemaText, 'deflate', sync), writeBlock(datums, 'deflate', sync)]);
 * const header = readHeader(bytes); // { schemaText, codec: 'deflate', sync, length }
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { snappyCompress } from 'hyparquet-writer/src/snappy.js';
import { ConnectError } from 'serverless-connect/connect';
import { uncompress as snappyUncompress } from 'snappyjs';

/** The codecs this writer supports (`avro.codec`). */
export const AVRO_FILE_CODECS = ['null', 'deflate', 'snappy'] as const;
export type AvroFileCodec = (typeof AVRO_FILE_CODECS)[number];

export const SYNC_SIZE = 16;
const MAGIC = Uint8Array.of(0x4f, 0x62, 0x6a, 0x01);
const UTF8 = new TextEncoder();
const UTF8_DECODER = new TextDecoder();

/** A container's header, as read. */
export interface ContainerHeader {
  readonly schemaText: string;
  readonly codec: string;
  readonly sync: Uint8Array;
  /** Its size in bytes: where the first block starts. */
  readonly length: number;
}

/** Avro's zig-zag varint of a (safe) integer. */
function longBytes(n: number): number[] {
  let z = n >= 0 ? n * 2 : -n * 2 - 1;
  const out: number[] = [];
  while (z >= 0x80) {
    out.push((z % 0x80) | 0x80);
    z = Math.floor(z / 0x80);
  }
  out.push(z);
  return out;
}

function concat(parts: readonly (Uint8Array | number[])[]): Uint8Array {
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The header of a container holding values of `schemaText`. */
export function writeHeader(
  schemaText: string,
  codec: AvroFileCodec,
  sync: Uint8Array,
): Uint8Array {
  const entries: [string, Uint8Array][] = [
    ['avro.schema', UTF8.encode(schemaText)],
    ['avro.codec', UTF8.encode(codec)],
  ];
  const parts: (Uint8Array | number[])[] = [MAGIC, longBytes(entries.length)];
  for (const [key, value] of entries) {
    const k = UTF8.encode(key);
    parts.push(longBytes(k.length), k, longBytes(value.length), value);
  }
  parts.push([0], sync);
  return concat(parts);
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO-HDLC, as java.util.zip.CRC32) of `bytes`. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) crc = (CRC_TABLE[(crc ^ b) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function compress(data: Uint8Array, codec: AvroFileCodec): Uint8Array {
  if (codec === 'null') return data;
  if (codec === 'deflate') return deflateRawSync(data);
  const compressed = snappyCompress(data);
  const out = new Uint8Array(compressed.length + 4);
  out.set(compressed);
  new DataView(out.buffer).setUint32(compressed.length, crc32(data));
  return out;
}

/** One block holding `datums` (Avro binary values), compressed with `codec`. */
export function writeBlock(
  datums: readonly Uint8Array[],
  codec: AvroFileCodec,
  sync: Uint8Array,
): Uint8Array {
  const data = compress(concat(datums), codec);
  return concat([longBytes(datums.length), longBytes(data.length), data, sync]);
}

/** Reads Avro varints and byte strings from a buffer; `null` from a read past its end. */
class Cursor {
  at: number;
  constructor(
    readonly bytes: Uint8Array,
    at = 0,
  ) {
    this.at = at;
  }

  long(): number | null {
    let z = 0;
    let scale = 1;
    for (;;) {
      const b = this.bytes[this.at++];
      if (b === undefined) return null;
      z += (b & 0x7f) * scale;
      if (b < 0x80) break;
      scale *= 0x80;
      if (scale > 2 ** 56) throw notAContainer('a varint is too long');
    }
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  take(n: number): Uint8Array | null {
    if (n < 0) throw notAContainer('a negative length');
    if (this.at + n > this.bytes.length) return null;
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
}

function notAContainer(why: string): ConnectError {
  return new ConnectError(`Not an Avro object container file written by this sink: ${why}`);
}

/**
 * The header at the start of `bytes`, or `null` when `bytes` ends before it does. Throws
 * ConnectError when `bytes` is not an Avro container (or one without a schema).
 */
export function readHeader(bytes: Uint8Array): ContainerHeader | null {
  const cursor = new Cursor(bytes);
  const magic = cursor.take(MAGIC.length);
  if (magic === null) return null;
  if (!magic.every((b, i) => b === MAGIC[i])) throw notAContainer('no Obj\\x01 magic');
  const meta = new Map<string, string>();
  for (;;) {
    let count = cursor.long();
    if (count === null) return null;
    if (count === 0) break;
    if (count < 0) {
      count = -count;
      if (cursor.long() === null) return null; // the block's size in bytes
    }
    for (let i = 0; i < count; i++) {
      const keyLength = cursor.long();
      const key = keyLength === null ? null : cursor.take(keyLength);
      const valueLength = key === null ? null : cursor.long();
      const value = valueLength === null ? null : cursor.take(valueLength);
      if (key === null || value === null) return null;
      meta.set(UTF8_DECODER.decode(key), UTF8_DECODER.decode(value));
    }
  }
  const sync = cursor.take(SYNC_SIZE);
  if (sync === null) return null;
  const schemaText = meta.get('avro.schema');
  if (schemaText === undefined) throw notAContainer('no avro.schema in its metadata');
  return {
    schemaText,
    codec: meta.get('avro.codec') ?? 'null',
    sync: sync.slice(),
    length: cursor.at,
  };
}

/** One block of a container: how many datums it holds, and their bytes, decompressed. */
export interface ContainerBlock {
  readonly count: number;
  readonly data: Uint8Array;
}

function decompress(data: Uint8Array, codec: string): Uint8Array {
  if (codec === 'null') return data;
  if (codec === 'deflate') return inflateRawSync(data);
  if (codec !== 'snappy' || data.length < 4) {
    throw notAContainer(`blocks compressed with ${codec} cannot be read back by this sink`);
  }
  const out = snappyUncompress(data.subarray(0, data.length - 4));
  const crc = new DataView(data.buffer, data.byteOffset + data.length - 4, 4).getUint32(0);
  if (crc !== crc32(out)) throw notAContainer('a snappy block whose CRC-32 does not match');
  return out;
}

/**
 * The blocks of the container `bytes` (all of it) whose header is `header`. Throws ConnectError
 * for a truncated block or one not followed by the sync marker.
 */
export function* readBlocks(bytes: Uint8Array, header: ContainerHeader): Generator<ContainerBlock> {
  const cursor = new Cursor(bytes, header.length);
  while (cursor.at < bytes.length) {
    const count = cursor.long();
    const size = count === null ? null : cursor.long();
    const data = size === null ? null : cursor.take(size);
    const sync = data === null ? null : cursor.take(SYNC_SIZE);
    if (count === null || data === null || sync === null) throw notAContainer('a truncated block');
    if (!sync.every((b, i) => b === header.sync[i])) throw notAContainer('a wrong sync marker');
    yield { count, data: decompress(data, header.codec) };
  }
}

const RABIN_EMPTY = 0xc15d213aa4d7a795n;
const MASK_64 = (1n << 64n) - 1n;
const RABIN_TABLE = (() => {
  const table: bigint[] = [];
  for (let i = 0; i < 256; i++) {
    let fp = BigInt(i);
    for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (RABIN_EMPTY & -(fp & 1n) & MASK_64);
    table.push(fp);
  }
  return table;
})();

/** Avro's 64-bit Rabin fingerprint (CRC-64-AVRO) of `bytes`. */
export function rabinFingerprint(bytes: Uint8Array): bigint {
  let fp = RABIN_EMPTY;
  for (const b of bytes)
    fp = (fp >> 8n) ^ (RABIN_TABLE[Number((fp ^ BigInt(b)) & 0xffn)] as bigint);
  return fp;
}

/** The fingerprint of a schema text, as 16 hex digits (the sink's `schema-fingerprint`). */
export function schemaFingerprint(schemaText: string): string {
  return rabinFingerprint(UTF8.encode(schemaText)).toString(16).padStart(16, '0');
}

/**
 * The sync marker of the object `key` holding values of `schemaText`: a function of both, so
 * that every write of an object (a replay included) uses the same marker, and a marker differs
 * between objects.
 */
export function syncMarker(schemaText: string, key: string): Uint8Array {
  const out = new Uint8Array(SYNC_SIZE);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, rabinFingerprint(UTF8.encode(schemaText)));
  view.setBigUint64(8, rabinFingerprint(UTF8.encode(key)));
  return out;
}
