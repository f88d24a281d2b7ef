/**
 * Single message transformations (Kafka Connect's `Transformation<R>`).
 */
import type { ConfigDef } from './config-def.js';
import type { ConnectRecord } from './records.js';

/**
 * Transforms one record at a time, for sources (after `poll`, before conversion) and sinks
 * (after conversion, before `put`).
 *
 * Lifecycle: a fresh instance from the plugin descriptor, `configure(props)` once with the
 * transformation's own keys (the `transforms.<alias>.` prefix removed), then `apply` for each
 * record, then `close()` once. One instance serves one task; `apply` calls never overlap.
 *
 * Contract for `apply`:
 * - never mutate `record`, its headers, or its key/value (a Struct, array or Map): build new
 *   ones and return `record.newRecord({...})`, which keeps the record's kind;
 * - return `null` to drop the record (the chain stops; a source record's offset is still
 *   committed);
 * - return `record` itself when nothing changes;
 * - throw a DataError for a record that cannot be transformed (errors.tolerance decides).
 */
export interface Transformation<R extends ConnectRecord> {
  /** The transformation's config keys (reported by `GET /connector-plugins/{p}/config`). */
  config(): ConfigDef;
  /** Configures the instance; throws ConfigError for an invalid config. */
  configure(props: Readonly<Record<string, string>>): void;
  /** The transformed record, a new one or `record` itself, or `null` to drop it. */
  apply(record: R): R | null;
  /** Releases resources; called once, last. */
  close(): void;
}
