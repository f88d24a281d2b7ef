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
 * `value.converter.` prefix removed), then any number of conversions. Conversions never
 * mutate their inputs, and are synchronous and pure apart from caches.
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
   * `headers`; never changes them. Throws DataError when `value` does not fit `schema`.
   */
  fromConnectData(
    topic: string,
    headers: ReadonlyHeaders,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null;
  /**
   * Deserializes `bytes` (null for a tombstone) read from `topic`. Throws DataError for bytes
   * that cannot be parsed.
   */
  toConnectData(topic: string, headers: ReadonlyHeaders, bytes: Uint8Array | null): SchemaAndValue;
}

/**
 * Serializes header values (Connect's `HeaderConverter`, `header.converter`). Same lifecycle
 * as {@link Converter}, configured once for all headers of a task.
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
