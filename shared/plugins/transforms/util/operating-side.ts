/**
 * Which part of a record a keyed transformation works on: the key (`$Key` variants) or the
 * value (`$Value` variants), like the `operatingSchema` / `operatingValue` / `newRecord`
 * trio Connect's `Transformation$Key` and `$Value` subclasses override.
 */
import type { ConnectRecord, Schema } from 'serverless-connect/connect';

/** Reads and replaces the key or the value (with its schema) of a record. */
export interface OperatingSide {
  /** `'key'` or `'value'`, for messages. */
  readonly name: 'key' | 'value';
  schema(record: ConnectRecord): Schema | null;
  value(record: ConnectRecord): unknown;
  /** A copy of `record` whose side has `schema` and `value`; everything else is kept. */
  update<R extends ConnectRecord>(record: R, schema: Schema | null, value: unknown): R;
}

/** The record key (Connect's `$Key` transformations). */
export const KEY_SIDE: OperatingSide = Object.freeze({
  name: 'key' as const,
  schema: (record: ConnectRecord) => record.keySchema,
  value: (record: ConnectRecord) => record.key,
  update: <R extends ConnectRecord>(record: R, schema: Schema | null, value: unknown): R =>
    record.newRecord({ keySchema: schema, key: value }),
});

/** The record value (Connect's `$Value` transformations). */
export const VALUE_SIDE: OperatingSide = Object.freeze({
  name: 'value' as const,
  schema: (record: ConnectRecord) => record.valueSchema,
  value: (record: ConnectRecord) => record.value,
  update: <R extends ConnectRecord>(record: R, schema: Schema | null, value: unknown): R =>
    record.newRecord({ valueSchema: schema, value }),
});
