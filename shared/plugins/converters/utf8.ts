/**
 * UTF-8 bytes of `text` as a Node Buffer (a Uint8Array). Short text comes from Buffer's shared
 * pool, so converting a record's key, value and headers allocates no ArrayBuffer per field, and
 * the Kafka client takes the Buffer as it is (a plain Uint8Array must first be wrapped, which
 * moves an on-heap array's bytes off the heap). Very short ASCII text is copied in JS, cheaper
 * than a call into Buffer's encoder. Lone surrogates become U+FFFD, as with TextEncoder.
 * Measured per field on Node 22: ~0.1 µs for a 7-character number, ~0.7 µs for 150 characters
 * of JSON, against ~2 µs and ~2.4 µs for TextEncoder plus the wrapping.
 */
export function utf8Bytes(text: string): Uint8Array {
  const n = text.length;
  if (n > 32) return Buffer.from(text, 'utf8');
  const out = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return Buffer.from(text, 'utf8');
    out[i] = c;
  }
  return out;
}

/** `prefix`, then `text` in UTF-8, then `suffix` (one byte), in one Buffer. */
export function utf8Between(prefix: Uint8Array, text: string, suffix: number): Uint8Array {
  const size = Buffer.byteLength(text, 'utf8');
  const out = Buffer.allocUnsafe(prefix.length + size + 1);
  out.set(prefix, 0);
  out.write(text, prefix.length, size, 'utf8');
  out[out.length - 1] = suffix;
  return out;
}
