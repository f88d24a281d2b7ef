/**
 * Confluent's Protobuf framing: after the magic byte and the schema id (`../schema-registry/
 * wire-format.ts`) comes the message-index array, which names the message within the schema's
 * .proto file, then the Protobuf payload.
 *
 * The array is a count and that many indexes, each a zigzag varint (Kafka's `ByteUtils.
 * writeVarint`). An index is a message's position among the message types of its scope (the
 * file, then the enclosing message), so `[1, 0]` is the first nested message of the file's
 * second message. The array `[0]`, the file's first message and by far the most common, is
 * written as the count 0 alone (one byte `00`).
 *
 * @example
 * const bytes = frameProtobuf(7, [0], payload);   // 00 00000007 00 <payload>
 * const { schemaId, indexes, payload } = unframeProtobuf(bytes);
 */
import { DataError } from 'serverless-connect/connect';
import { frame, unframe } from '../schema-registry/wire-format.js';

/** The file's first message: what the count 0 stands for. */
export const FIRST_MESSAGE: readonly number[] = Object.freeze([0]);

/** The most indexes a reader accepts: deeper nesting than this is a corrupt record. */
const MAX_INDEXES = 100;

function zigzag(n: number): number {
  return ((n << 1) ^ (n >> 31)) >>> 0;
}

function writeVarint(out: number[], n: number): void {
  let v = zigzag(n);
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
}

/** The encoded message-index array of `indexes` (`[0]` and `[]` both as the single byte 0). */
export function encodeMessageIndexes(indexes: readonly number[]): Uint8Array {
  if (indexes.length === 0 || (indexes.length === 1 && indexes[0] === 0)) {
    return Uint8Array.of(0);
  }
  const out: number[] = [];
  writeVarint(out, indexes.length);
  for (const index of indexes) {
    if (!Number.isInteger(index) || index < 0 || index > 0x7fffffff) {
      throw new DataError(`Invalid message index ${index}`);
    }
    writeVarint(out, index);
  }
  return Uint8Array.from(out);
}

/** Reads zigzag varints from `bytes`, keeping the position. */
class VarintReader {
  position = 0;
  constructor(readonly bytes: Uint8Array) {}

  read(): number {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.bytes[this.position++];
      if (byte === undefined) {
        throw new DataError('Invalid message indexes: the data ends inside a varint');
      }
      result |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return (result >>> 1) ^ -(result & 1);
    }
    throw new DataError('Invalid message indexes: a varint longer than 5 bytes');
  }
}

/**
 * The message-index array at the start of `bytes` and where the payload begins.
 * @throws DataError for a truncated or negative count or index.
 */
export function decodeMessageIndexes(bytes: Uint8Array): {
  readonly indexes: readonly number[];
  readonly length: number;
} {
  const reader = new VarintReader(bytes);
  const count = reader.read();
  if (count === 0) return { indexes: FIRST_MESSAGE, length: reader.position };
  if (count < 0 || count > MAX_INDEXES) {
    throw new DataError(`Invalid message indexes: a count of ${count}`);
  }
  const indexes: number[] = [];
  for (let i = 0; i < count; i++) {
    const index = reader.read();
    if (index < 0) throw new DataError(`Invalid message indexes: a negative index ${index}`);
    indexes.push(index);
  }
  return { indexes, length: reader.position };
}

/** `payload` framed with the magic byte, `schemaId` and the message `indexes`. */
export function frameProtobuf(
  schemaId: number,
  indexes: readonly number[],
  payload: Uint8Array,
): Uint8Array {
  const prefix = encodeMessageIndexes(indexes);
  const body = new Uint8Array(prefix.length + payload.length);
  body.set(prefix, 0);
  body.set(payload, prefix.length);
  return frame(schemaId, body);
}

/**
 * The schema id, message indexes and payload (a view, not a copy) of framed `bytes`.
 * @throws DataError without the magic byte, shorter than the header, or with corrupt indexes.
 */
export function unframeProtobuf(bytes: Uint8Array): {
  readonly schemaId: number;
  readonly indexes: readonly number[];
  readonly payload: Uint8Array;
} {
  const { schemaId, payload } = unframe(bytes);
  const { indexes, length } = decodeMessageIndexes(payload);
  return { schemaId, indexes, payload: payload.subarray(length) };
}
