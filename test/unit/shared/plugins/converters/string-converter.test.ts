import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../../../shared/connect/headers.js';
import { BigDecimal } from '../../../../../shared/connect/logical-types.js';
import { type Schema, SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import { StringConverter } from '../../../../../shared/plugins/converters/string-converter.js';

function converter(props: Record<string, string> = {}): StringConverter {
  const c = new StringConverter();
  c.configure(props, false);
  return c;
}

function written(schema: Schema | null, value: unknown): string | null {
  const bytes = converter().fromConnectData('topic', EMPTY_HEADERS, schema, value);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}

describe('StringConverter', () => {
  it('reads bytes as an optional string', () => {
    // Act
    const result = converter().toConnectData(
      'topic',
      EMPTY_HEADERS,
      new TextEncoder().encode('héllo ☃'),
    );

    // Assess
    expect(result).toEqual({ schema: Schemas.OPTIONAL_STRING, value: 'héllo ☃' });
  });

  it('reads null bytes as a null string with the optional string schema', () => {
    // Act
    const result = converter().toConnectData('topic', EMPTY_HEADERS, null);

    // Assess
    expect(result).toEqual({ schema: Schemas.OPTIONAL_STRING, value: null });
  });

  it('writes null as null bytes', () => {
    // Act
    const bytes = converter().fromConnectData(
      'topic',
      EMPTY_HEADERS,
      Schemas.OPTIONAL_STRING,
      null,
    );

    // Assess
    expect(bytes).toBeNull();
  });

  const person = SchemaBuilder.struct()
    .name('Person')
    .field('name', Schemas.STRING)
    .field('age', Schemas.OPTIONAL_INT32)
    .field('nick', Schemas.OPTIONAL_STRING)
    .build();

  it.each([
    ['a string', Schemas.STRING, 'plain', 'plain'],
    ['an int32', Schemas.INT32, 42, '42'],
    ['an int64 beyond 2^53', Schemas.INT64, 9007199254740993n, '9007199254740993'],
    ['a float64 with an integral value', Schemas.FLOAT64, 2, '2.0'],
    ['a tiny float64', Schemas.FLOAT64, 1e-7, '1.0E-7'],
    ['a float32', Schemas.FLOAT32, Math.fround(0.1), '0.1'],
    ['a schemaless integer', null, 7, '7'],
    ['a schemaless fraction', null, 0.5, '0.5'],
    ['a boolean', Schemas.BOOLEAN, true, 'true'],
    ['a list', SchemaBuilder.array(Schemas.FLOAT64).build(), [1, 2.5, null], '[1.0, 2.5, null]'],
    [
      'a map',
      null,
      new Map<string, unknown>([
        ['a', 1],
        ['b', 'x'],
      ]),
      '{a=1, b=x}',
    ],
    ['a plain object', null, { a: [true] }, '{a=[true]}'],
    [
      'a struct, skipping null fields',
      person,
      new Struct(person).put('name', 'Ada').put('age', 36),
      'Struct{name=Ada,age=36}',
    ],
    ['a decimal', null, BigDecimal.parse('12.50'), '12.50'],
    ['a date', null, new Date(0), 'Thu Jan 01 00:00:00 UTC 1970'],
    ['bytes (as base64)', Schemas.BYTES, new Uint8Array([1, 2, 3]), 'AQID'],
  ])('writes %s as Java toString would', (_what, schema, value, expected) => {
    // Act
    const text = written(schema, value);

    // Assess
    expect(text).toBe(expected);
  });

  describe('converter.encoding', () => {
    it('defaults to UTF-8', () => {
      // Act
      const c = converter();

      // Assess
      expect(c.encoding).toBe('UTF-8');
      expect(c.config().configKey('converter.encoding')?.defaultValue).toBe('UTF-8');
    });

    it.each([
      ['UTF-16', 'é', [0xfe, 0xff, 0x00, 0xe9]],
      ['utf-16le', 'é', [0xe9, 0x00]],
      ['UTF-16BE', 'é', [0x00, 0xe9]],
      ['ISO-8859-1', 'é☃', [0xe9, 0x3f]],
      ['latin1', 'é', [0xe9]],
      ['US-ASCII', 'aé😀', [0x61, 0x3f, 0x3f]],
      ['UTF8', '☃', [0xe2, 0x98, 0x83]],
    ])('encodes with %s as Java does', (encoding, text, bytes) => {
      // Prepare
      const c = converter({ 'converter.encoding': encoding });

      // Act
      const out = c.fromConnectData('topic', EMPTY_HEADERS, Schemas.STRING, text);

      // Assess
      expect([...(out ?? [])]).toEqual(bytes);
    });

    it.each([
      ['UTF-16', [0xff, 0xfe, 0xe9, 0x00], 'é'],
      ['UTF-16', [0x00, 0xe9], 'é'],
      ['ISO-8859-1', [0xe9, 0x80], 'é\u0080'],
      ['US-ASCII', [0x61, 0xe9], 'a\ufffd'],
      ['UTF-8', [0x61, 0xff], 'a\ufffd'],
    ])('decodes with %s as Java does', (encoding, bytes, text) => {
      // Prepare
      const c = converter({ 'converter.encoding': encoding });

      // Act
      const result = c.toConnectData('topic', EMPTY_HEADERS, new Uint8Array(bytes));

      // Assess
      expect(result.value).toBe(text);
    });

    it('rejects an unsupported encoding with a ConfigError on converter.encoding', () => {
      // Act
      const act = () => converter({ 'converter.encoding': 'EBCDIC' });

      // Assess
      expect(act).toThrow(ConfigError);
      expect(act).toThrow(/Invalid value EBCDIC for configuration converter.encoding/);
    });

    it.each(['UTF-8', 'UTF-16', 'UTF-16LE', 'UTF-16BE'])(
      'round-trips any string in %s',
      (encoding) => {
        // Prepare
        const c = converter({ 'converter.encoding': encoding });

        fc.assert(
          fc.property(fc.string({ unit: 'binary' }), (text) => {
            // Act
            const bytes = c.fromConnectData('topic', EMPTY_HEADERS, Schemas.STRING, text);
            const back = c.toConnectData('topic', EMPTY_HEADERS, bytes);

            // Assess
            expect(back.value).toBe(text);
          }),
        );
      },
    );

    it('round-trips any Latin-1 string in ISO-8859-1', () => {
      // Prepare
      const c = converter({ 'converter.encoding': 'ISO-8859-1' });
      const latin1 = fc.string({
        unit: fc.integer({ min: 0, max: 255 }).map((n) => String.fromCharCode(n)),
      });

      fc.assert(
        fc.property(latin1, (text) => {
          // Act
          const bytes = c.fromConnectData('topic', EMPTY_HEADERS, null, text);
          const back = c.toConnectData('topic', EMPTY_HEADERS, bytes);

          // Assess
          expect(back.value).toBe(text);
        }),
      );
    });
  });

  it('converts header values like record values', () => {
    // Prepare
    const c = new StringConverter();
    c.configure({});

    // Act
    const bytes = c.fromConnectHeader('topic', 'h', Schemas.INT32, 5);
    const back = c.toConnectHeader('topic', 'h', bytes);

    // Assess
    expect(back).toEqual({ schema: Schemas.OPTIONAL_STRING, value: '5' });
  });
});
