/**
 * Debezium's PostgreSQL change event shapes: topic names, the key and value schemas of a table
 * (`<prefix>.<schema>.<table>.Key`, `.Value`, `.Envelope`), the `source` block
 * (`io.debezium.connector.postgresql.Source`) and the heartbeat record, so that consumers of
 * Debezium topics read ours unchanged. Pure.
 */
import { type Schema, SchemaBuilder, Schemas, Struct } from 'serverless-connect/connect';
import {
  type ColumnDescriptor,
  type ColumnMapping,
  columnMapping,
  type TypeMappingOptions,
  type UserType,
} from './column-types.js';
import type { Lsn } from './lsn.js';
import { int64Value as int64 } from './text-values.js';

/** Debezium's `op` codes. */
export type Operation = 'r' | 'c' | 'u' | 'd' | 't';

/** Debezium's `source.snapshot` values (`false` is left unset: the schema's default). */
export type SnapshotMarker =
  | 'true'
  | 'first'
  | 'first_in_data_collection'
  | 'last_in_data_collection'
  | 'last'
  | 'false';

const SNAPSHOT_MARKERS: readonly SnapshotMarker[] = [
  'true',
  'first',
  'first_in_data_collection',
  'last_in_data_collection',
  'last',
  'false',
  // Debezium's incremental snapshots; never written here, but part of the enum consumers know.
  'incremental' as SnapshotMarker,
];

/** Debezium replaces characters Kafka refuses in topic names by `_`. */
function sanitizeTopic(name: string): string {
  return name.replace(/[^a-zA-Z0-9._-]/g, '_');
}

/** `<prefix>.<schema>.<table>`, Debezium's default topic naming. */
export function topicNameOf(prefix: string, schema: string, table: string): string {
  return sanitizeTopic(`${prefix}.${schema}.${table}`);
}

/** `__debezium-heartbeat.<prefix>`, Debezium's heartbeat topic. */
export function heartbeatTopicOf(heartbeatPrefix: string, prefix: string): string {
  return sanitizeTopic(`${heartbeatPrefix}.${prefix}`);
}

export const SOURCE_SCHEMA: Schema = SchemaBuilder.struct()
  .name('io.debezium.connector.postgresql.Source')
  .version(1)
  .field('version', Schemas.STRING)
  .field('connector', Schemas.STRING)
  .field('name', Schemas.STRING)
  .field('ts_ms', Schemas.INT64)
  .field(
    'snapshot',
    SchemaBuilder.string()
      .name('io.debezium.data.Enum')
      .version(1)
      .parameter('allowed', SNAPSHOT_MARKERS.join(','))
      .defaultValue('false')
      .optional(),
  )
  .field('db', Schemas.STRING)
  .field('sequence', Schemas.OPTIONAL_STRING)
  .field('ts_us', Schemas.OPTIONAL_INT64)
  .field('ts_ns', Schemas.OPTIONAL_INT64)
  .field('schema', Schemas.STRING)
  .field('table', Schemas.STRING)
  .field('txId', Schemas.OPTIONAL_INT64)
  .field('lsn', Schemas.OPTIONAL_INT64)
  .field('xmin', Schemas.OPTIONAL_INT64)
  .build();

/** Debezium's transaction block (null unless transaction metadata is provided, which it is not). */
const TRANSACTION_SCHEMA: Schema = SchemaBuilder.struct()
  .optional()
  .name('event.block')
  .version(1)
  .field('id', Schemas.STRING)
  .field('total_order', Schemas.INT64)
  .field('data_collection_order', Schemas.INT64)
  .build();

/** What the `source` block of an event says. */
export interface SourceInfo {
  readonly version: string;
  /** `topic.prefix`. */
  readonly name: string;
  readonly db: string;
  readonly schema: string;
  readonly table: string;
  /** Commit time of the transaction (streaming) or read time (snapshot), Unix microseconds. */
  readonly timeMicros: bigint;
  readonly snapshot: SnapshotMarker;
  readonly txId: number | null;
  readonly lsn: Lsn | null;
  /** `["<last commit LSN>","<event LSN>"]`, Debezium's ordering pair. */
  readonly sequence: string | null;
}

export function sourceStruct(info: SourceInfo): Struct {
  const struct = new Struct(SOURCE_SCHEMA)
    .put('version', info.version)
    .put('connector', 'postgresql')
    .put('name', info.name)
    .put('ts_ms', int64(info.timeMicros / 1000n))
    .put('db', info.db)
    .put('sequence', info.sequence)
    .put('ts_us', int64(info.timeMicros))
    .put('ts_ns', info.timeMicros * 1000n)
    .put('schema', info.schema)
    .put('table', info.table)
    .put('txId', info.txId)
    .put('lsn', info.lsn === null ? null : int64(info.lsn));
  if (info.snapshot !== 'false') struct.put('snapshot', info.snapshot);
  return struct;
}

/** Debezium's `sequence`: the last committed transaction's LSN and the event's, as strings. */
export function sequenceOf(lastCommitLsn: Lsn | null, lsn: Lsn): string {
  // LSNs are digits only: no escaping needed.
  return `[${lastCommitLsn === null ? 'null' : `"${lastCommitLsn}"`},"${lsn}"]`;
}

/** A captured table: its topic, schemas and column mappings. */
export interface TableShape {
  readonly schema: string;
  readonly table: string;
  readonly topic: string;
  /** One per column, in the table's column order. */
  readonly columns: readonly ColumnMapping[];
  /** The primary key columns' indexes in `columns`, in key order; empty without a key. */
  readonly keyIndexes: readonly number[];
  readonly keySchema: Schema | null;
  readonly valueSchema: Schema;
  readonly envelopeSchema: Schema;
}

/** What a table's shape is built from. */
export interface TableDefinition {
  readonly schema: string;
  readonly table: string;
  readonly columns: readonly ColumnDescriptor[];
  /** Primary key column names in key order; empty when the table has none. */
  readonly primaryKey: readonly string[];
}

/** The shape of `definition` under `prefix`: Debezium's schema names and field optionality. */
export function tableShapeOf(
  prefix: string,
  definition: TableDefinition,
  options: TypeMappingOptions,
  userTypes: ReadonlyMap<number, UserType> = new Map(),
): TableShape {
  const topic = topicNameOf(prefix, definition.schema, definition.table);
  const pk = new Set(definition.primaryKey);
  const columns = definition.columns.map((c) =>
    columnMapping(c, options, userTypes, c.notNull || pk.has(c.name)),
  );
  const keyIndexes = definition.primaryKey.map((name) =>
    definition.columns.findIndex((c) => c.name === name),
  );
  const value = SchemaBuilder.struct().name(`${topic}.Value`).optional();
  for (const column of columns) value.field(column.name, column.schema);
  const valueSchema = value.build();
  let keySchema: Schema | null = null;
  if (keyIndexes.length > 0 && keyIndexes.every((i) => i >= 0)) {
    const key = SchemaBuilder.struct().name(`${topic}.Key`);
    for (const i of keyIndexes) {
      const column = columns[i] as ColumnMapping;
      key.field(column.name, column.schema);
    }
    keySchema = key.build();
  }
  const envelopeSchema = SchemaBuilder.struct()
    .name(`${topic}.Envelope`)
    .version(2)
    .field('before', valueSchema)
    .field('after', valueSchema)
    .field('source', SOURCE_SCHEMA)
    .field('transaction', TRANSACTION_SCHEMA)
    .field('op', Schemas.STRING)
    .field('ts_ms', Schemas.OPTIONAL_INT64)
    .field('ts_us', Schemas.OPTIONAL_INT64)
    .field('ts_ns', Schemas.OPTIONAL_INT64)
    .build();
  return {
    schema: definition.schema,
    table: definition.table,
    topic,
    columns,
    keyIndexes: keySchema === null ? [] : keyIndexes,
    keySchema,
    valueSchema,
    envelopeSchema,
  };
}

/** An envelope value: `op` with its images and source, `ts_*` the processing time. */
export function envelopeStruct(
  shape: TableShape,
  op: Operation,
  before: Struct | null,
  after: Struct | null,
  source: Struct,
  nowMicros: bigint,
): Struct {
  return new Struct(shape.envelopeSchema)
    .put('before', before)
    .put('after', after)
    .put('source', source)
    .put('op', op)
    .put('ts_ms', int64(nowMicros / 1000n))
    .put('ts_us', int64(nowMicros))
    .put('ts_ns', nowMicros * 1000n);
}

export const HEARTBEAT_KEY_SCHEMA: Schema = SchemaBuilder.struct()
  .name('io.debezium.connector.common.ServerNameKey')
  .version(1)
  .field('serverName', Schemas.STRING)
  .build();

export const HEARTBEAT_VALUE_SCHEMA: Schema = SchemaBuilder.struct()
  .name('io.debezium.connector.common.Heartbeat')
  .version(1)
  .field('ts_ms', Schemas.INT64)
  .build();
