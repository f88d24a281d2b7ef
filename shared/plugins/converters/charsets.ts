/**
 * The Java charsets the string converter supports (`converter.encoding`), with Java's names,
 * aliases (case-insensitive) and replacement behaviour: unmappable characters encode as `?`
 * in single-byte charsets and lone surrogates as `?` in UTF-8; malformed input decodes to
 * U+FFFD. `TextEncoder` only encodes UTF-8, so the others are encoded here.
 */

/** Encodes and decodes strings in one charset. */
export interface Charset {
  /** Java's canonical name, e.g. `UTF-8`, `ISO-8859-1`. */
  readonly name: string;
  encode(text: string): Uint8Array;
  decode(bytes: Uint8Array): string;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const UTF8_ENCODER = new TextEncoder();
const UTF8_DECODER = new TextDecoder('utf-8', { ignoreBOM: true });

const utf8: Charset = {
  name: 'UTF-8',
  encode: (text) => UTF8_ENCODER.encode(text.replace(LONE_SURROGATE, '?')),
  decode: (bytes) => UTF8_DECODER.decode(bytes),
};

function singleByte(name: string, max: number): Charset {
  return {
    name,
    encode(text) {
      const out = new Uint8Array(text.length);
      let n = 0;
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        // A surrogate pair is one unmappable character: one `?`.
        if (c >= 0xd800 && c <= 0xdbff) {
          const next = text.charCodeAt(i + 1);
          if (next >= 0xdc00 && next <= 0xdfff) i++;
        }
        out[n++] = c <= max ? c : 0x3f;
      }
      return out.slice(0, n);
    },
    decode(bytes) {
      let out = '';
      for (let i = 0; i < bytes.length; i += 4096) {
        const chunk = Array.from(bytes.subarray(i, i + 4096), (b) => (b <= max ? b : 0xfffd));
        out += String.fromCharCode(...chunk);
      }
      return out;
    },
  };
}

function utf16(name: string, littleEndian: boolean, bom: boolean): Charset {
  const decoder = new TextDecoder(littleEndian ? 'utf-16le' : 'utf-16be', { ignoreBOM: true });
  return {
    name,
    encode(text) {
      const wellFormed = text.replace(LONE_SURROGATE, '\ufffd');
      const offset = bom ? 2 : 0;
      const out = new Uint8Array(offset + wellFormed.length * 2);
      const view = new DataView(out.buffer);
      if (bom) view.setUint16(0, 0xfeff, false);
      for (let i = 0; i < wellFormed.length; i++) {
        view.setUint16(offset + i * 2, wellFormed.charCodeAt(i), littleEndian);
      }
      return out;
    },
    decode(bytes) {
      if (!bom) return decoder.decode(bytes);
      // Java's UTF-16 decoder honours a byte-order mark and defaults to big-endian.
      if (bytes[0] === 0xfe && bytes[1] === 0xff) return UTF16BE.decode(bytes.subarray(2));
      if (bytes[0] === 0xff && bytes[1] === 0xfe) return UTF16LE.decode(bytes.subarray(2));
      return UTF16BE.decode(bytes);
    },
  };
}

const UTF16BE = utf16('UTF-16BE', false, false);
const UTF16LE = utf16('UTF-16LE', true, false);

const CHARSETS: readonly [Charset, readonly string[]][] = [
  [utf8, ['utf-8', 'utf8', 'unicode-1-1-utf-8']],
  [utf16('UTF-16', false, true), ['utf-16', 'utf_16', 'utf16', 'unicode', 'unicodebig']],
  [UTF16BE, ['utf-16be', 'utf_16be', 'x-utf-16be', 'iso-10646-ucs-2', 'unicodebigunmarked']],
  [UTF16LE, ['utf-16le', 'utf_16le', 'x-utf-16le', 'unicodelittleunmarked']],
  [
    singleByte('ISO-8859-1', 0xff),
    ['iso-8859-1', 'iso8859_1', 'iso_8859_1', 'iso8859-1', 'iso_8859-1', 'latin1', 'l1'],
  ],
  [singleByte('US-ASCII', 0x7f), ['us-ascii', 'ascii', 'us', 'iso646-us', 'ascii7', 'default']],
];

/** The charset named `name` (a Java name or alias, any case), or `null` when unsupported. */
export function charsetFor(name: string): Charset | null {
  const key = name.trim().toLowerCase();
  for (const [charset, aliases] of CHARSETS) if (aliases.includes(key)) return charset;
  return null;
}

/** The canonical names of the supported charsets. */
export const SUPPORTED_CHARSETS: readonly string[] = CHARSETS.map(([c]) => c.name);
