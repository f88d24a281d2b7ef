import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../shared/connect/errors.js';
import { decodeBase64, encodeBase64 } from '../../../../../shared/plugins/converters/base64.js';
import { quoteJson } from '../../../../../shared/plugins/converters/json-quote.js';
import {
  type JsonNode,
  JsonNumber,
  parseJson,
  parseJsonText,
} from '../../../../../shared/plugins/converters/json-text.js';

const encoder = new TextEncoder();

/** A parsed node as a plain JS value (numbers through Number), to compare with JSON.parse. */
function plain(node: JsonNode | undefined): unknown {
  if (node instanceof JsonNumber) return Number(node.text);
  if (Array.isArray(node)) return node.map(plain);
  if (node instanceof Map) return Object.fromEntries([...node].map(([k, v]) => [k, plain(v)]));
  return node;
}

describe('parseJson', () => {
  it('reads what JSON.parse reads', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        // Prepare
        const text = JSON.stringify(value, null, 1);

        // Act
        const parsed = parseJson(encoder.encode(text));

        // Assess
        expect(plain(parsed.root)).toEqual(JSON.parse(text));
      }),
    );
  });

  it('keeps numbers as written, marking integers', () => {
    // Act
    const { root } = parseJson(encoder.encode('[9223372036854775807, 1.50, -2e3, 0]'));

    // Assess
    expect(root).toEqual([
      new JsonNumber('9223372036854775807', true),
      new JsonNumber('1.50', false),
      new JsonNumber('-2e3', false),
      new JsonNumber('0', true),
    ]);
  });

  it.each([
    ['{ "schema" : {"type":"int8","a":["}"]} , "payload":1}', '{"type":"int8","a":["}"]}'],
    ['{"payload":1,"schema":"x\\\\"}', '"x\\\\"'],
    ['{"schema":"a\\"}"}', '"a\\"}"'],
    ['{"schema":null}', 'null'],
    ['{"schema":-1.5e3 }', '-1.5e3'],
  ])('defers a top-level member of %s as its text', (json, text) => {
    // Act
    const parsed = parseJson(encoder.encode(json), { key: 'schema' });

    // Assess
    expect(parsed.deferred).toBe(text);
    expect((parsed.root as Map<string, JsonNode>).get('schema')).toBeNull();
  });

  it.each([
    ['{"schema":{"a":1},"payload":2}', '{"a":1}', '{"a":1}'],
    ['{"schema":{"a":1}, "payload":2}', '{"a":1}', '{"a":1}'],
    ['{"schema":12,"payload":2}', '1', '12'],
    ['{"schema":{"a":2},"payload":2}', '{"a":1}', '{"a":2}'],
  ])(
    'takes the expected text of a deferred member only when the input has it: %s',
    (json, expected, text) => {
      // Act
      const parsed = parseJson(encoder.encode(json), { key: 'schema', expected });

      // Assess
      expect(parsed.deferred).toBe(text);
    },
  );

  it.each(['{"schema":{"a":1}}}', '{"schema":', '{"schema":"abc}', '{"schema":[1,2}'])(
    'still rejects malformed JSON around a deferred member: %s',
    (json) => {
      // Act
      const act = () => {
        const parsed = parseJson(encoder.encode(json), { key: 'schema' });
        parseJsonText(parsed.deferred ?? '');
      };

      // Assess
      expect(act).toThrow(DataError);
    },
  );

  it('skips a UTF-8 byte order mark', () => {
    // Act
    const { root } = parseJson(new Uint8Array([0xef, 0xbb, 0xbf, 0x31]));

    // Assess
    expect(root).toEqual(new JsonNumber('1', true));
  });

  it.each(['{"a":1,}', '[1,]', '-', '1.', '1e', '"\\u12"', 'tru', '{"a" 1}', '[1 2]'])(
    'rejects %j',
    (text) => {
      // Act
      const act = () => parseJson(encoder.encode(text));

      // Assess
      expect(act).toThrow(DataError);
    },
  );

  it('rejects numbers longer than 1000 characters, as Jackson does', () => {
    // Act
    const act = () => parseJson(encoder.encode('1'.repeat(1001)));

    // Assess
    expect(act).toThrow(/number longer than 1000 characters/);
  });
});

describe('quoteJson', () => {
  it('writes JSON string literals that JSON.parse reads back to the same string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        // Act
        const quoted = quoteJson(a + b);

        // Assess
        expect(JSON.parse(quoted)).toBe(a + b);
      }),
    );
  });

  it('escapes lone surrogates so the output stays valid UTF-8', () => {
    // Act
    const quoted = quoteJson('\udc00x\ud800');

    // Assess
    expect(quoted).toBe('"\\uDC00x\\uD800"');
  });
});

describe('base64', () => {
  it('encodes as java.util.Base64 and Jackson do (standard alphabet, padded)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        // Act
        const text = encodeBase64(bytes);

        // Assess
        expect(text).toBe(Buffer.from(bytes).toString('base64'));
        expect(decodeBase64(text)).toEqual(bytes);
      }),
    );
  });

  it.each(['A', 'AB=', 'A===', 'AB-_', 'AA==AA==', 'AAA*'])('rejects %j', (text) => {
    // Act
    const act = () => decodeBase64(text);

    // Assess
    expect(act).toThrow(DataError);
  });
});
