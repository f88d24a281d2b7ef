import { describe, expect, it } from 'vitest';
import {
  crc32,
  readBlocks,
  readHeader,
  schemaFingerprint,
  syncMarker,
  writeBlock,
  writeHeader,
} from '../../../../../../shared/plugins/connectors/s3-sink/avro-container.js';

const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const datums = [Uint8Array.of(2), Uint8Array.of(4, 5), Uint8Array.of(6)];

describe('Avro object container files', () => {
  it('writes the header as the specification lays it out: magic, metadata map, sync marker', () => {
    // Prepare
    const sync = new Uint8Array(16).fill(7);

    // Act
    const header = writeHeader('"int"', 'null', sync);

    // Assess: Obj\x01, 2 entries (zig-zag 4), "avro.schema" (11 → 22), '"int"' (5 → 10), …, 0
    const text = new TextDecoder().decode(header);
    expect([...header.subarray(0, 6)]).toEqual([0x4f, 0x62, 0x6a, 0x01, 4, 22]);
    expect(text).toContain('avro.schema\n"int"\x14avro.codec\x08null\x00');
    expect([...header.subarray(header.length - 16)]).toEqual([...sync]);
  });

  it.each(['null', 'deflate', 'snappy'] as const)(
    'reads back blocks appended one after the other (%s)',
    (codec) => {
      // Prepare
      const sync = syncMarker('"int"', 'k');
      const file = concat(
        writeHeader('"int"', codec, sync),
        writeBlock(datums.slice(0, 2), codec, sync),
        writeBlock(datums.slice(2), codec, sync),
      );

      // Act
      const header = readHeader(file);
      const blocks = header === null ? [] : [...readBlocks(file, header)];

      // Assess
      expect(header).toMatchObject({ schemaText: '"int"', codec, sync });
      expect(blocks.map((b) => [b.count, [...b.data]])).toEqual([
        [2, [2, 4, 5]],
        [1, [6]],
      ]);
    },
  );

  it('ends snappy blocks with the big-endian CRC-32 of the uncompressed data, as Avro Java does', () => {
    // Act
    const block = writeBlock(datums, 'snappy', new Uint8Array(16));

    // Assess: CRC-32 of "123456789" is 0xCBF43926; the block's data ends with the data's CRC
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    const crc = new DataView(block.buffer).getUint32(block.length - 16 - 4);
    expect(crc).toBe(crc32(Uint8Array.of(2, 4, 5, 6)));
  });

  it('gives up to the header only when the bytes end before it does', () => {
    // Prepare
    const header = writeHeader('"string"', 'deflate', new Uint8Array(16));

    // Act / Assess
    expect(readHeader(header.subarray(0, header.length - 1))).toBeNull();
    expect(readHeader(header)?.length).toBe(header.length);
    expect(() => readHeader(Uint8Array.of(1, 2, 3, 4))).toThrow(/no Obj\\x01 magic/);
  });

  it('derives the sync marker from the schema and the object key, and fingerprints schemas', () => {
    // Act
    const a = syncMarker('"int"', 'a');
    const again = syncMarker('"int"', 'a');
    const b = syncMarker('"int"', 'b');

    // Assess
    expect(again).toEqual(a);
    expect(b).not.toEqual(a);
    expect(schemaFingerprint('"int"')).toMatch(/^[0-9a-f]{16}$/);
    expect(schemaFingerprint('"int"')).not.toBe(schemaFingerprint('"long"'));
  });
});
