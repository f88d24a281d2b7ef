/**
 * Record headers (Kafka Connect's `Header` / `Headers` / `ConnectHeaders`): an ordered
 * multi-map from key to (schema, value). The same key may appear several times; the last one
 * wins for {@link Headers.lastWithName}.
 */
import { DataError, IllegalStateError } from './errors.js';
import { type Schema, schemaEquals, validateValue, valuesEqual } from './schema.js';

/** One header. `schema` is `null` for a schemaless value; `value` may be `null`. */
export interface Header {
  readonly key: string;
  readonly schema: Schema | null;
  readonly value: unknown;
}

/** The read-only view of headers a record exposes. Call `duplicate()` to get a mutable copy. */
export interface ReadonlyHeaders extends Iterable<Header> {
  readonly size: number;
  isEmpty(): boolean;
  /** The last header with `key`, or `null`. */
  lastWithName(key: string): Header | null;
  /** Every header with `key`, in insertion order. */
  allWithName(key: string): Header[];
  /** A mutable copy (the headers themselves are immutable and shared). */
  duplicate(): Headers;
  toArray(): Header[];
  equals(other: unknown): boolean;
}

function makeHeader(key: string, value: unknown, schema: Schema | null): Header {
  if (typeof key !== 'string') throw new DataError('Header key cannot be null.');
  if (schema !== null) validateValue(schema, value, `header ${key}`);
  return Object.freeze({ key, schema, value: value ?? null });
}

/**
 * Mutable, ordered headers. Records hold a read-only instance (see {@link Headers.readOnly});
 * its mutators throw IllegalStateError. To change a record's headers, `duplicate()` them,
 * change the copy, and pass it to `record.newRecord({ headers })`.
 *
 * @example
 * const headers = record.headers.duplicate().remove('trace').add('source', 'db1', Schemas.STRING);
 * return record.newRecord({ headers });
 */
export class Headers implements ReadonlyHeaders {
  #headers: Header[];
  #readOnly = false;

  constructor(headers: Iterable<Header> = []) {
    this.#headers = [...headers].map((h) => makeHeader(h.key, h.value, h.schema));
  }

  #mutable(): void {
    if (this.#readOnly) {
      throw new IllegalStateError('Record headers are read-only; call duplicate() to change them');
    }
  }

  get size(): number {
    return this.#headers.length;
  }

  isEmpty(): boolean {
    return this.#headers.length === 0;
  }

  /**
   * Appends a header. When `schema` is given the value is validated against it (DataError on
   * mismatch); without one the header is schemaless.
   */
  add(key: string, value: unknown, schema: Schema | null = null): this {
    this.#mutable();
    this.#headers.push(makeHeader(key, value, schema));
    return this;
  }

  addHeader(header: Header): this {
    return this.add(header.key, header.value, header.schema);
  }

  addAll(headers: Iterable<Header>): this {
    for (const header of headers) this.addHeader(header);
    return this;
  }

  lastWithName(key: string): Header | null {
    return this.#headers.findLast((h) => h.key === key) ?? null;
  }

  allWithName(key: string): Header[] {
    return this.#headers.filter((h) => h.key === key);
  }

  /** Removes every header with `key`. */
  remove(key: string): this {
    this.#mutable();
    this.#headers = this.#headers.filter((h) => h.key !== key);
    return this;
  }

  /** Keeps only the last header of `key`, or of every key when `key` is omitted. */
  retainLatest(key?: string): this {
    this.#mutable();
    const lastIndex = new Map<string, number>();
    this.#headers.forEach((h, i) => {
      lastIndex.set(h.key, i);
    });
    this.#headers = this.#headers.filter(
      (h, i) => (key !== undefined && h.key !== key) || lastIndex.get(h.key) === i,
    );
    return this;
  }

  clear(): this {
    this.#mutable();
    this.#headers = [];
    return this;
  }

  /**
   * Replaces each header (or each with `key`) by `transform`'s result; `null` removes it
   * (Connect's `Headers.apply(HeaderTransform)`).
   */
  apply(transform: (header: Header) => Header | null, key?: string): this {
    this.#mutable();
    const out: Header[] = [];
    for (const header of this.#headers) {
      const next = key === undefined || header.key === key ? transform(header) : header;
      if (next !== null) out.push(makeHeader(next.key, next.value, next.schema));
    }
    this.#headers = out;
    return this;
  }

  duplicate(): Headers {
    return new Headers(this.#headers);
  }

  /** A read-only copy: the form records hold. Returns `this` when already read-only. */
  readOnly(): Headers {
    if (this.#readOnly) return this;
    const copy = this.duplicate();
    copy.#readOnly = true;
    return copy;
  }

  toArray(): Header[] {
    return [...this.#headers];
  }

  [Symbol.iterator](): Iterator<Header> {
    return this.#headers[Symbol.iterator]();
  }

  /** Same headers in the same order, compared by key, schema and deep value equality. */
  equals(other: unknown): boolean {
    if (!(other instanceof Headers) || other.size !== this.size) return false;
    const theirs = other.toArray();
    return this.#headers.every((h, i) => {
      const o = theirs[i];
      return (
        o !== undefined &&
        h.key === o.key &&
        schemaEquals(h.schema, o.schema) &&
        valuesEqual(h.value, o.value)
      );
    });
  }

  toString(): string {
    return `ConnectHeaders(headers: ${this.#headers.map((h) => h.key).join(', ')})`;
  }
}

/** An empty read-only headers instance, shared by records created without headers. */
export const EMPTY_HEADERS: ReadonlyHeaders = new Headers().readOnly();
