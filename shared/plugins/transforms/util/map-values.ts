/**
 * Copy-on-write helpers for schemaless map values. The input map is never changed: edits go
 * to a `Map` copy, which {@link toMapValueLike} turns back into the input's representation (a
 * `Map` stays a `Map`, a plain object stays a plain object).
 */
import { mapEntries } from 'serverless-connect/connect';
import type { MapValue } from './requirements.js';

/** The value stored under `key`, or `null` when absent. */
export function mapGet(map: MapValue, key: string): unknown {
  if (map instanceof Map) return map.get(key) ?? null;
  return Object.hasOwn(map, key) ? (map[key] ?? null) : null;
}

/** True when `key` is present (even with a `null` value). */
export function mapHas(map: MapValue, key: string): boolean {
  return map instanceof Map ? map.has(key) : Object.hasOwn(map, key);
}

/** A mutable copy of `map`'s entries, in order. */
export function mapCopy(map: MapValue): Map<unknown, unknown> {
  return new Map(mapEntries(map));
}

/**
 * `entries` in the representation of `like`: a `Map` when `like` is one (or when a key is
 * not a string), a plain object otherwise.
 */
export function toMapValueLike(like: MapValue, entries: Map<unknown, unknown>): MapValue {
  if (like instanceof Map) return entries;
  return fromEntries(entries);
}

/** A new map value: a plain object when every key is a string, a `Map` otherwise. */
export function fromEntries(entries: Map<unknown, unknown>): MapValue {
  for (const key of entries.keys()) if (typeof key !== 'string') return entries;
  return Object.fromEntries(entries) as Record<string, unknown>;
}
