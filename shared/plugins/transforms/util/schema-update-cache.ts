/**
 * Caches the output schema a transformation derives from an input schema, like the
 * `LRUCache<Schema, Schema>(16)` every Connect transformation keeps: records of one topic
 * usually share a schema, so the output schema is built once. Lookups try identity first, then
 * deep schema equality, so equal schemas from different records hit the same entry.
 */
import { type Schema, schemaEquals } from 'serverless-connect/connect';

/** A small least-recently-used map from input schema to derived schema. */
export class SchemaUpdateCache {
  readonly #entries = new Map<Schema, Schema>();
  readonly #capacity: number;

  /** @param capacity - the most entries kept. @default 16 */
  constructor(capacity = 16) {
    this.#capacity = capacity;
  }

  /** The cached schema derived from `input`, or `undefined`. */
  get(input: Schema): Schema | undefined {
    let key: Schema | undefined = this.#entries.has(input) ? input : undefined;
    if (key === undefined) {
      for (const candidate of this.#entries.keys()) {
        if (schemaEquals(candidate, input)) {
          key = candidate;
          break;
        }
      }
    }
    if (key === undefined) return undefined;
    const output = this.#entries.get(key) as Schema;
    this.#entries.delete(key);
    this.#entries.set(key, output);
    return output;
  }

  put(input: Schema, output: Schema): void {
    this.#entries.delete(input);
    this.#entries.set(input, output);
    if (this.#entries.size > this.#capacity) {
      const [oldest] = this.#entries.keys();
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  /** The schema derived from `input`, computing and caching it with `build` on a miss. */
  getOrBuild(input: Schema, build: (input: Schema) => Schema): Schema {
    const cached = this.get(input);
    if (cached !== undefined) return cached;
    const output = build(input);
    this.put(input, output);
    return output;
  }

  clear(): void {
    this.#entries.clear();
  }
}
