import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import {
  frame,
  unframe,
} from '../../../../../../shared/plugins/converters/schema-registry/wire-format.js';

describe("Confluent's wire format", () => {
  it('puts magic byte 0 and the schema id, big-endian, before the payload', () => {
    expect([...frame(0x01020304, Uint8Array.of(0xaa, 0xbb))]).toEqual([0, 1, 2, 3, 4, 0xaa, 0xbb]);
  });

  it('reads the id and the payload back, from a view into a larger buffer', () => {
    const backing = Uint8Array.of(9, 9, 0, 0, 0, 1, 44, 7, 8);
    const { schemaId, payload } = unframe(backing.subarray(2));
    expect(schemaId).toBe(300);
    expect([...payload]).toEqual([7, 8]);
  });

  it('frames an empty payload', () => {
    expect(unframe(frame(7, new Uint8Array(0)))).toMatchObject({ schemaId: 7 });
  });

  it('refuses data without the magic byte, or shorter than the header, as a record error', () => {
    expect(() => unframe(Uint8Array.of(1, 0, 0, 0, 1))).toThrow(DataError);
    expect(() => unframe(Uint8Array.of(0, 0, 0))).toThrow(/shorter than the 5-byte header/);
    expect(() => unframe(new TextEncoder().encode('{"json":1}'))).toThrow(/Unknown magic byte 123/);
  });

  it('refuses an id that does not fit 4 bytes', () => {
    expect(() => frame(2 ** 31, new Uint8Array(0))).toThrow(DataError);
  });
});
