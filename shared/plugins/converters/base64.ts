/**
 * Standard base64 (RFC 4648 alphabet, with padding), as Jackson writes binary values and
 * `java.util.Base64` encodes them. Written here because plugins may not use `Buffer`.
 */
import { DataError } from 'serverless-connect/connect';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

/** Encodes `bytes` as padded standard base64. */
export function encodeBase64(bytes: Uint8Array): string {
  let out = '';
  const n = bytes.length;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out +=
      ALPHABET.charAt(v >> 18) +
      ALPHABET.charAt((v >> 12) & 63) +
      ALPHABET.charAt((v >> 6) & 63) +
      ALPHABET.charAt(v & 63);
  }
  const rest = n - i;
  if (rest === 1) {
    const v = (bytes[i] ?? 0) << 16;
    out += `${ALPHABET.charAt(v >> 18)}${ALPHABET.charAt((v >> 12) & 63)}==`;
  } else if (rest === 2) {
    const v = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8);
    out += `${ALPHABET.charAt(v >> 18)}${ALPHABET.charAt((v >> 12) & 63)}${ALPHABET.charAt((v >> 6) & 63)}=`;
  }
  return out;
}

function sextet(text: string, index: number): number {
  const code = text.charCodeAt(index);
  const value = code < 128 ? (DECODE[code] ?? -1) : -1;
  if (value < 0) {
    throw new DataError(`Illegal base64 character at index ${index} of the binary value`);
  }
  return value;
}

/**
 * Decodes padded standard base64. Throws DataError for another alphabet, a missing or
 * misplaced `=`, or a length that is not a multiple of 4.
 */
export function decodeBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0) {
    throw new DataError('Invalid base64 value: its length is not a multiple of 4');
  }
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    const a = sextet(text, i);
    const b = sextet(text, i + 1);
    const v = (a << 18) | (b << 12);
    if (last && padding === 2) {
      out[o++] = v >> 16;
      break;
    }
    const c = sextet(text, i + 2);
    if (last && padding === 1) {
      const w = v | (c << 6);
      out[o++] = w >> 16;
      out[o++] = (w >> 8) & 255;
      break;
    }
    const w = v | (c << 6) | sextet(text, i + 3);
    out[o++] = w >> 16;
    out[o++] = (w >> 8) & 255;
    out[o++] = w & 255;
  }
  return out;
}
