import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_HEADERS } from '../../../../../shared/connect/headers.js';
import {
  JsonConverter,
  sourceJsonOf,
} from '../../../../../shared/plugins/converters/json-converter.js';

/**
 * `sourceJsonOf`: the bytes a schemaless JsonConverter read an object or array from, kept only
 * when writing the value again gives exactly those bytes (the S3 sink's JSON format writes
 * them as they are).
 */
const utf8 = new TextEncoder();
const converter = new JsonConverter();
converter.configure({ 'schemas.enable': 'false' }, false);

function read(text: string) {
  const bytes = utf8.encode(text);
  const { value } = converter.toConnectData('t', EMPTY_HEADERS, bytes);
  return { bytes, value, source: sourceJsonOf(value) };
}

describe('sourceJsonOf', () => {
  it.each([
    '{"id":"0-1","n":7,"ok":true,"none":null,"list":[1,-2,"é☃"],"nested":{"a":{}}}',
    '[]',
    '{"big":9223372036854775807,"neg":-9223372036854775808}',
  ])('keeps the bytes of canonical JSON: %s', (text) => {
    const { bytes, value, source } = read(text);
    expect(source).toBe(bytes);
    expect(converter.serializeToString(null, value)).toBe(text);
  });

  it.each([
    ['whitespace', '{"a": 1}'],
    ['leading whitespace', ' {"a":1}'],
    ['a unicode escape', '{"a":"\\u0041"}'],
    ['an escaped slash', '{"a":"\\/"}'],
    ['a fraction', '{"a":1.0}'],
    ['an exponent', '{"a":1e3}'],
    ['a negative zero', '[-0]'],
    ['a repeated key', '{"a":1,"a":2}'],
    ['a character outside the BMP', '{"a":"😀"}'],
  ])('keeps no bytes for JSON the converter writes otherwise (%s)', (_name, text) => {
    const { value, source } = read(text);
    expect(source).toBeUndefined();
    expect(converter.serializeToString(null, value)).not.toBe(text);
  });

  it('keeps no bytes for primitives or for values it did not read', () => {
    expect(read('"text"').source).toBeUndefined();
    expect(read('42').source).toBeUndefined();
    expect(sourceJsonOf(new Map([['a', 1]]))).toBeUndefined();
    expect(sourceJsonOf(null)).toBeUndefined();
  });

  it('keeps bytes only when writing the value again gives exactly them (property)', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 4 }), fc.boolean(), (json, spaced) => {
        const text = spaced ? JSON.stringify(JSON.parse(json), null, 1) : json;
        let parsed: ReturnType<typeof read>;
        try {
          parsed = read(text);
        } catch {
          return; // integers beyond int64 are refused
        }
        if (parsed.source === undefined) return;
        expect(converter.serializeToString(null, parsed.value)).toBe(text);
      }),
      { numRuns: 2_000 },
    );
  });
});
