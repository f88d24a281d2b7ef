/**
 * Predicates that gate transformations (Kafka Connect's `Predicate<R>`, KIP-585).
 */
import type { ConfigDef } from './config-def.js';
import type { ConnectRecord } from './records.js';

/**
 * Decides whether a transformation applies to a record: the transformation configured with
 * `predicate=<alias>` runs when `test` is true (or false with `negate=true`).
 *
 * Lifecycle: a fresh instance, `configure(props)` once with its own keys (the
 * `predicates.<alias>.` prefix removed), `test` per record, `close()` once. `test` must not
 * mutate the record and should have no side effects.
 */
export interface Predicate<R extends ConnectRecord> {
  config(): ConfigDef;
  /** Throws ConfigError for an invalid config. */
  configure(props: Readonly<Record<string, string>>): void;
  test(record: R): boolean;
  close(): void;
}
