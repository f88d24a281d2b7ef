/** A small least-recently-used cache (Kafka's `LRUCache`); a capacity below 1 caches nothing. */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();

  readonly #onEvict: ((key: K, value: V) => void) | undefined;

  /** @param onEvict called with each entry the cache lets go of to stay within `capacity`. */
  constructor(
    readonly capacity: number,
    onEvict?: (key: K, value: V) => void,
  ) {
    this.#onEvict = onEvict;
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    if (this.capacity < 1) return;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) {
        const evicted = this.#entries.get(oldest.value) as V;
        this.#entries.delete(oldest.value);
        this.#onEvict?.(oldest.value, evicted);
      }
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
