import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../../../shared/connect/headers.js';
import { Schemas } from '../../../../../shared/connect/schema.js';
import { ByteArrayConverter } from '../../../../../shared/plugins/converters/byte-array-converter.js';

describe('ByteArrayConverter', () => {
  it('passes bytes through unchanged in both directions', () => {
    // Prepare
    const c = new ByteArrayConverter();
    c.configure({}, false);
    const bytes = new Uint8Array([0, 255, 7]);

    // Act
    const written = c.fromConnectData('topic', EMPTY_HEADERS, Schemas.BYTES, bytes);
    const read = c.toConnectData('topic', EMPTY_HEADERS, bytes);

    // Assess
    expect(written).toBe(bytes);
    expect(read).toEqual({ schema: Schemas.OPTIONAL_BYTES, value: bytes });
  });

  it('accepts schemaless bytes and null values', () => {
    // Prepare
    const c = new ByteArrayConverter();

    // Act
    const schemaless = c.fromConnectData('topic', EMPTY_HEADERS, null, new Uint8Array([1]));
    const nothing = c.fromConnectData('topic', EMPTY_HEADERS, Schemas.OPTIONAL_BYTES, null);
    const tombstone = c.toConnectData('topic', EMPTY_HEADERS, null);

    // Assess
    expect([...(schemaless ?? [])]).toEqual([1]);
    expect(nothing).toBeNull();
    expect(tombstone).toEqual({ schema: Schemas.OPTIONAL_BYTES, value: null });
  });

  it('rejects a schema that is not bytes with Connect message', () => {
    // Act
    const act = () =>
      new ByteArrayConverter().fromConnectData('topic', EMPTY_HEADERS, Schemas.STRING, 'x');

    // Assess
    expect(act).toThrow(DataError);
    expect(act).toThrow('Invalid schema type for ByteArrayConverter: STRING');
  });

  it('rejects values that are not bytes', () => {
    // Act
    const act = () => new ByteArrayConverter().fromConnectData('topic', EMPTY_HEADERS, null, 'x');

    // Assess
    expect(act).toThrow(DataError);
    expect(act).toThrow('ByteArrayConverter is not compatible with objects of type string "x"');
  });

  it('converts header values like record values', () => {
    // Prepare
    const c = new ByteArrayConverter();
    c.configure({});
    const bytes = new Uint8Array([9]);

    // Act
    const written = c.fromConnectHeader('topic', 'h', Schemas.BYTES, bytes);
    const read = c.toConnectHeader('topic', 'h', bytes);

    // Assess
    expect(written).toBe(bytes);
    expect(read.value).toBe(bytes);
  });

  it('declares only converter.type', () => {
    // Act
    const names = new ByteArrayConverter().config().names();

    // Assess
    expect(names).toEqual(['converter.type']);
  });
});
