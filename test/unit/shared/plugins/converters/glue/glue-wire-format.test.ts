/**
 * The Glue Schema Registry wire format both ways: the header bytes as the AWS library writes
 * them (version 3, compression 0 or 5, the UUID as Java's `UUID` most significant half first),
 * zlib as Java's `Deflater` writes it (the zlib container, default level), and the refusals the
 * library's data parser makes.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import {
  GLUE_HEADER_SIZE,
  glueFrame,
  glueUnframe,
  uuidText,
} from '../../../../../../shared/plugins/converters/glue/glue-wire-format.js';

const UUID = 'b7b4a7f0-54a2-4b0c-9c1e-0123456789ab';
const PAYLOAD = Uint8Array.from([0x02, 0x06, 0x66, 0x6f, 0x6f]); // Avro: long 1, string "foo"

describe('Glue wire format', () => {
  it('writes header version 3, compression 0, the UUID bytes in order, then the payload', () => {
    // Act
    const bytes = glueFrame(UUID, PAYLOAD, 'NONE');

    // Assess
    expect(Buffer.from(bytes).toString('hex')).toBe(
      `0300${UUID.replaceAll('-', '')}${Buffer.from(PAYLOAD).toString('hex')}`,
    );
  });

  it('compresses the payload with zlib (RFC 1950, default level) under compression byte 5', () => {
    // Prepare
    const payload = new TextEncoder().encode('an order, an order, an order, an order');

    // Act
    const bytes = glueFrame(UUID, payload, 'ZLIB');

    // Assess
    const body = bytes.subarray(GLUE_HEADER_SIZE);
    expect(bytes[0]).toBe(3);
    expect(bytes[1]).toBe(5);
    expect([body[0], body[1]]).toEqual([0x78, 0x9c]); // Java's Deflater() header
    expect(Buffer.from(inflateSync(body))).toEqual(Buffer.from(payload));
    expect(body.length).toBeLessThan(payload.length);
  });

  it.each(['NONE', 'ZLIB'] as const)('reads back what it writes (%s)', (compression) => {
    // Act
    const { schemaVersionId, payload } = glueUnframe(glueFrame(UUID, PAYLOAD, compression));

    // Assess
    expect(schemaVersionId).toBe(UUID);
    expect(Buffer.from(payload)).toEqual(Buffer.from(PAYLOAD));
  });

  it('reads a zlib record written by another zlib (any level) as the library reads it', () => {
    // Prepare
    const header = Buffer.from(`0305${UUID.replaceAll('-', '')}`, 'hex');
    const bytes = Buffer.concat([header, deflateSync(PAYLOAD, { level: 9 })]);

    // Act
    const { payload } = glueUnframe(bytes);

    // Assess
    expect(Buffer.from(payload)).toEqual(Buffer.from(PAYLOAD));
  });

  it('reads an upper-case UUID back as canonical lower case', () => {
    // Act
    const bytes = glueFrame(UUID.toUpperCase(), PAYLOAD, 'NONE');

    // Assess
    expect(uuidText(bytes, 2)).toBe(UUID);
  });

  it.each([
    ['shorter than the header', Buffer.from('0300', 'hex'), 'size: 2'],
    ['another header version (Confluent magic byte 0)', Buffer.alloc(20), 'header version byte 0'],
    [
      'an unknown compression byte',
      Buffer.concat([Buffer.from('0301', 'hex'), Buffer.alloc(17)]),
      'compression byte 1',
    ],
    [
      'a zlib body that does not inflate',
      Buffer.concat([Buffer.from('0305', 'hex'), Buffer.alloc(16), Buffer.from('nope')]),
      'not compressed properly',
    ],
  ])('refuses bytes %s as a DataError', (_what, bytes, message) => {
    // Act
    const read = () => glueUnframe(bytes);

    // Assess
    expect(read).toThrow(DataError);
    expect(read).toThrow(message);
  });

  it('refuses a schema version id that is not a UUID', () => {
    expect(() => glueFrame('version-1', PAYLOAD, 'NONE')).toThrow(DataError);
  });
});
