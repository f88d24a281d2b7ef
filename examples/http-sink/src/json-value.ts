/**
 * A record's key, value and header values as JSON: what the converters give a sink (schemaless
 * maps and arrays, or Structs) made plain, with bytes as base64 and 64-bit integers as strings.
 */
import { Struct } from 'serverless-connect/connect';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Base64 without `Buffer`: the example imports nothing but the plugin API. */
function base64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a = 0, b = 0, c = 0] = [bytes[i], bytes[i + 1], bytes[i + 2]];
    const n = (a << 16) | (b << 8) | c;
    out += BASE64.charAt((n >> 18) & 63) + BASE64.charAt((n >> 12) & 63);
    out += i + 1 < bytes.length ? BASE64.charAt((n >> 6) & 63) : '=';
    out += i + 2 < bytes.length ? BASE64.charAt(n & 63) : '=';
  }
  return out;
}

/** `value` as plain JSON data. */
export function jsonValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return base64(value);
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Struct) {
    return Object.fromEntries(value.schema.fields.map((f) => [f.name, jsonValue(value.get(f))]));
  }
  if (Array.isArray(value)) return value.map(jsonValue);
  if (value instanceof Map) {
    return Object.fromEntries([...value].map(([k, v]) => [String(k), jsonValue(v)]));
  }
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonValue(v)]));
  }
  return value;
}
