/**
 * Converters between Kafka's bytes and Connect data (Kafka Connect's `Converter` and
 * `HeaderConverter`).
 */
import type { ConfigDef } from './config-def.js';
import type { ReadonlyHeaders } from './headers.js';
import type { Schema, SchemaAndValue } from './schema.js';

/**
 * Serializes record keys or values. One instance converts either keys or values
 * (`configure(props, isKey)`), for one task.
 *
 * Lifecycle: a fresh instance, `configure` once (with the `key.converter.` /
 * `value.converter.` prefix removed), then any number of conversions, one at a time (the
 * runtime awaits a conversion before it starts the next). Conversions never mutate their
 * inputs and are pure apart from caches.
 *
 * Synchronous or asynchronous: a converter that needs I/O for a conversion (a schema registry
 * to register or fetch a schema) returns a Promise, and may return the value itself when it
 * needs none (a schema it has cached); a converter that never does I/O returns values, which
 * costs its callers no promise. Callers check {@link isPromiseLike} and await only then. A
 * conversion that fails throws, or rejects: a RetriableError (the registry is unreachable) is
 * retried under `errors.retry.*`, other errors follow `errors.tolerance`.
 *
 * Values follow the representation in `schema-core.ts` (int64 as number or bigint, bytes as
 * Uint8Array, maps as Map, logical types as their logical values).
 */
export interface Converter {
  /** Throws ConfigError for an invalid config. */
  configure(props: Readonly<Record<string, string>>, isKey: boolean): void;
  config(): ConfigDef;
  /**
   * Serializes `value` (described by `schema`, `null` when schemaless) for `topic`. Returns
   * `null` for a null value when the format has no encoding of null (a tombstone). May read
   * `headers`; never changes them. Throws (or rejects with) DataError when `value` does not fit
   * `schema`; a Promise when the conversion needs I/O (see the interface notes).
   */
  fromConnectData(
    topic: string,
    headers: ReadonlyHeaders,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null | Promise<Uint8Array | null>;
  /**
   * Deserializes `bytes` (null for a tombstone) read from `topic`. Throws (or rejects with)
   * DataError for bytes that cannot be parsed; a Promise when the conversion needs I/O.
   */
  toConnectData(
    topic: string,
    headers: ReadonlyHeaders,
    bytes: Uint8Array | null,
  ): SchemaAndValue | Promise<SchemaAndValue>;
}

/**
 * Whether a converter's result is still to come (a Promise or another thenable), for callers
 * that take synchronous and asynchronous converters alike and await only when they must.
 */
export function isPromiseLike<T>(result: T | PromiseLike<T>): result is PromiseLike<T> {
  return (
    typeof result === 'object' &&
    result !== null &&
    typeof (result as { then?: unknown }).then === 'function'
  );
}

/**
 * Serializes header values (Connect's `HeaderConverter`, `header.converter`). Same lifecycle
 * as {@link Converter}, configured once for all headers of a task; always synchronous.
 */
export interface HeaderConverter {
  /** Throws ConfigError for an invalid config. */
  configure(props: Readonly<Record<string, string>>): void;
  config(): ConfigDef;
  /** Serializes one header value; `null` for a null value. */
  fromConnectHeader(
    topic: string,
    headerKey: string,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null;
  /** Deserializes one header value; `bytes` is `null` for a header without a value. */
  toConnectHeader(topic: string, headerKey: string, bytes: Uint8Array | null): SchemaAndValue;
}
