/**
 * Writing JSON trees (`JsonNode`s of `../json-text.ts`: objects as ordered `Map`s, numbers as
 * their text) as compact JSON, and the order a Java `HashMap` iterates its keys in, which is the
 * order Confluent's JSON Schema text has its properties and `connect.*` keywords in (everit's
 * schema objects keep them in `HashMap`s).
 */
import { quoteJson } from '../json-quote.js';
import { type JsonNode, JsonNumber } from '../json-text.js';

/** `node` as compact JSON text, strings escaped as Jackson escapes them. */
export function jsonNodeText(node: JsonNode): string {
  if (node === null) return 'null';
  if (typeof node === 'boolean') return node ? 'true' : 'false';
  if (typeof node === 'string') return quoteJson(node);
  if (node instanceof JsonNumber) return node.text;
  if (Array.isArray(node)) return `[${node.map(jsonNodeText).join(',')}]`;
  let out = '{';
  for (const [key, value] of node) {
    if (out.length > 1) out += ',';
    out += `${quoteJson(key)}:${jsonNodeText(value)}`;
  }
  return `${out}}`;
}

/** A JSON integer node. */
export function jsonInt(value: number): JsonNumber {
  return new JsonNumber(String(value), true);
}

/** Java's `String.hashCode()`, spread as `HashMap.hash` spreads it. */
function spreadHash(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (Math.imul(31, h) + key.charCodeAt(i)) | 0;
  return h ^ (h >>> 16);
}

/**
 * `keys` (inserted in this order) in the order a `java.util.HashMap` iterates them: by bucket,
 * for the table size the map has grown to (16, doubled past a load of 0.75), then by insertion.
 */
export function javaHashMapOrder(keys: readonly string[]): string[] {
  let capacity = 16;
  while (keys.length > capacity * 0.75) capacity *= 2;
  return keys
    .map((key, i) => ({ key, i, bucket: spreadHash(key) & (capacity - 1) }))
    .sort((a, b) => a.bucket - b.bucket || a.i - b.i)
    .map((e) => e.key);
}

/** A `Map` of `entries` in Java `HashMap` order. */
export function javaHashMap(
  entries: ReadonlyArray<readonly [string, JsonNode]>,
): Map<string, JsonNode> {
  const byKey = new Map(entries);
  return new Map(javaHashMapOrder([...byKey.keys()]).map((k) => [k, byKey.get(k) as JsonNode]));
}
