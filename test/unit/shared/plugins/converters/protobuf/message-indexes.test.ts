import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import {
  encodeMessageIndexes,
  frameProtobuf,
  unframeProtobuf,
} from '../../../../../../shared/plugins/converters/protobuf/message-indexes.js';

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

describe('message indexes', () => {
  it("writes the file's first message as the single byte 0", () => {
    expect(hex(encodeMessageIndexes([0]))).toBe('00');
    expect(hex(frameProtobuf(7, [0], Uint8Array.of(8, 1)))).toBe('0000000007000801');
  });

  it('writes the count and each index as zigzag varints', () => {
    // [1, 0]: count 2 → 04, 1 → 02, 0 → 00; index 64 → zigzag 128 → 80 01.
    expect(hex(encodeMessageIndexes([1, 0]))).toBe('040200');
    expect(hex(encodeMessageIndexes([64]))).toBe('028001');
  });

  it('reads the id, the indexes and the payload back', () => {
    const framed = frameProtobuf(300, [2, 1, 70], Uint8Array.of(0x0a, 0x00));

    const { schemaId, indexes, payload } = unframeProtobuf(framed);

    expect(schemaId).toBe(300);
    expect(indexes).toEqual([2, 1, 70]);
    expect(hex(payload)).toBe('0a00');
  });

  it('reads the count 0 as the first message', () => {
    expect(unframeProtobuf(Uint8Array.of(0, 0, 0, 0, 1, 0)).indexes).toEqual([0]);
  });

  it('refuses bytes without the magic byte, or with corrupt indexes, as record errors', () => {
    expect(() => unframeProtobuf(Uint8Array.of(1, 0, 0, 0, 1, 0))).toThrow(DataError);
    expect(() => unframeProtobuf(new TextEncoder().encode('{"id":1}'))).toThrow(/magic byte/);
    expect(() => unframeProtobuf(Uint8Array.of(0, 0, 0, 0, 1))).toThrow(/ends inside a varint/);
    expect(() => unframeProtobuf(Uint8Array.of(0, 0, 0, 0, 1, 0x03))).toThrow(/count of -2/);
    expect(() => unframeProtobuf(Uint8Array.of(0, 0, 0, 0, 1, 0x02, 0x01))).toThrow(
      /negative index/,
    );
  });
});
