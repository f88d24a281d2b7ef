/** JSON string literals escaped exactly as Jackson (and so Kafka Connect) writes them. */

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters JSON must escape
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
const HEX = '0123456789ABCDEF';

function hex4(c: number): string {
  return `\\u${HEX.charAt((c >> 12) & 15)}${HEX.charAt((c >> 8) & 15)}${HEX.charAt((c >> 4) & 15)}${HEX.charAt(c & 15)}`;
}

/**
 * A JSON string literal escaped as Jackson writes it: `"` and `\` escaped, control characters
 * as `\n`, `\t`, `\r`, `\b`, `\f` or `\u00XX`, every UTF-16 surrogate (each half of a non-BMP
 * character) as `\uXXXX` with upper-case hex; everything else (é, ☃) as is.
 */
export function quoteJson(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let escaped: string | null = null;
    if (c === 0x22) escaped = '\\"';
    else if (c === 0x5c) escaped = '\\\\';
    else if (c < 0x20) {
      escaped =
        c === 0x0a
          ? '\\n'
          : c === 0x09
            ? '\\t'
            : c === 0x0d
              ? '\\r'
              : c === 0x08
                ? '\\b'
                : c === 0x0c
                  ? '\\f'
                  : hex4(c);
    } else if (c >= 0xd800 && c <= 0xdfff) escaped = hex4(c);
    if (escaped !== null) {
      out += s.slice(from, i) + escaped;
      from = i + 1;
    }
  }
  return `${out}${s.slice(from)}"`;
}
