/**
 * PostgreSQL's text output of `bytea` (hex or escape format) and of one-dimensional arrays
 * (`{1,2,NULL,"a \"b\""}`). Pure.
 */
import { DataError } from 'serverless-connect/connect';

/** The bytes of a `bytea` value in either `bytea_output` format. */
export function parseBytea(text: string): Uint8Array {
  if (text.startsWith('\\x')) {
    const hex = text.slice(2);
    if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
      throw new DataError(`Cannot read PostgreSQL bytea value (bad hex): ${text.slice(0, 40)}`);
    }
    return Uint8Array.from(Buffer.from(hex, 'hex'));
  }
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch !== 0x5c) {
      bytes.push(ch);
    } else if (text[i + 1] === '\\') {
      bytes.push(0x5c);
      i += 1;
    } else {
      const octal = text.slice(i + 1, i + 4);
      if (!/^[0-3][0-7]{2}$/.test(octal)) {
        throw new DataError(
          `Cannot read PostgreSQL bytea value (bad escape): ${text.slice(0, 40)}`,
        );
      }
      bytes.push(Number.parseInt(octal, 8));
      i += 3;
    }
  }
  return Uint8Array.from(bytes);
}

/**
 * The elements of a one-dimensional array literal, `null` for SQL NULL; `undefined` when the
 * text is not a one-dimensional array with default bounds (a nested array, `[0:2]={…}`), which
 * callers keep as text.
 */
export function parseArrayLiteral(text: string): (string | null)[] | undefined {
  if (!text.startsWith('{') || !text.endsWith('}')) return undefined;
  const body = text.slice(1, -1);
  if (body === '') return [];
  const elements: (string | null)[] = [];
  let i = 0;
  while (i <= body.length) {
    if (body[i] === '{') return undefined;
    if (body[i] === '"') {
      let value = '';
      i += 1;
      while (i < body.length && body[i] !== '"') {
        if (body[i] === '\\') i += 1;
        value += body[i] ?? '';
        i += 1;
      }
      if (i >= body.length) return undefined;
      elements.push(value);
      i += 1;
    } else {
      let end = body.indexOf(',', i);
      if (end === -1) end = body.length;
      const raw = body.slice(i, end);
      elements.push(raw.toUpperCase() === 'NULL' ? null : raw);
      i = end;
    }
    if (i === body.length) break;
    if (body[i] !== ',') return undefined;
    i += 1;
  }
  return elements;
}
