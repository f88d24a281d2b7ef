/**
 * The PostgreSQL sink connector's configuration: the keys (a {@link ConfigDef} with docs, serving
 * both the runtime and `…/config/validate`) and their parsed form.
 *
 * Names and meanings are Confluent's JDBC sink's (`connection.url`, `connection.user`,
 * `connection.password`, `table.name.format`, `insert.mode`, `pk.mode`, `pk.fields`,
 * `fields.whitelist`, `delete.enabled`, `auto.create`, `auto.evolve`, `batch.size`), so a JDBC
 * sink config for PostgreSQL runs unchanged; `offsets.table.name` and `value.jsonb.column` are
 * ours.
 */
import {
  CaseInsensitiveValidString,
  ConfigDef,
  ConfigError,
  NonEmptyString,
  Range,
} from 'serverless-connect/connect';
import { CONNECTION_CONFIG_DEF, connectionSettingsOf } from '../postgres/connection-config.js';
import type { ConnectionSettings } from '../postgres/connection-url.js';
import { parseTableName, type TableName } from '../postgres/identifiers.js';

/** The version of the PostgreSQL sink connector and task. */
export const POSTGRES_SINK_VERSION = '0.1.0';

export const TABLE_NAME_FORMAT_CONFIG = 'table.name.format';
export const INSERT_MODE_CONFIG = 'insert.mode';
export const PK_MODE_CONFIG = 'pk.mode';
export const PK_FIELDS_CONFIG = 'pk.fields';
export const FIELDS_WHITELIST_CONFIG = 'fields.whitelist';
export const DELETE_ENABLED_CONFIG = 'delete.enabled';
export const AUTO_CREATE_CONFIG = 'auto.create';
export const AUTO_EVOLVE_CONFIG = 'auto.evolve';
export const BATCH_SIZE_CONFIG = 'batch.size';
export const OFFSETS_TABLE_CONFIG = 'offsets.table.name';
export const VALUE_JSONB_COLUMN_CONFIG = 'value.jsonb.column';

export type InsertMode = 'insert' | 'upsert' | 'update';
export const INSERT_MODES: readonly InsertMode[] = Object.freeze(['insert', 'upsert', 'update']);
export type PkMode = 'none' | 'kafka' | 'record_key' | 'record_value';
export const PK_MODES: readonly PkMode[] = Object.freeze([
  'none',
  'kafka',
  'record_key',
  'record_value',
]);

/** The JDBC sink's default column names for `pk.mode=kafka`. */
export const KAFKA_PK_DEFAULTS: readonly string[] = Object.freeze([
  '__connect_topic',
  '__connect_partition',
  '__connect_offset',
]);

/** The placeholder of `table.name.format` replaced by the record's topic. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Connect's placeholder syntax
export const TOPIC_PLACEHOLDER = '${topic}';

const WRITES_GROUP = 'Writes';
const DATA_MAPPING_GROUP = 'Data Mapping';
const DDL_GROUP = 'DDL Support';

/** The connector's own keys, in documentation order. */
export const POSTGRES_SINK_CONFIG_DEF: ConfigDef = new ConfigDef(CONNECTION_CONFIG_DEF)
  .define({
    name: INSERT_MODE_CONFIG,
    type: 'STRING',
    defaultValue: 'insert',
    validator: CaseInsensitiveValidString.in(...INSERT_MODES),
    importance: 'HIGH',
    group: WRITES_GROUP,
    documentation:
      'insert: INSERT each record. upsert: INSERT … ON CONFLICT (the primary key columns) DO ' +
      'UPDATE. update: UPDATE the row with the primary key (no row, no write).',
  })
  .define({
    name: BATCH_SIZE_CONFIG,
    type: 'INT',
    defaultValue: 3000,
    validator: Range.atLeast(1),
    importance: 'MEDIUM',
    group: WRITES_GROUP,
    documentation:
      'The most rows per statement (multi-row INSERT, DELETE … WHERE key IN). A whole event ' +
      'source mapping batch of a partition commits in one transaction whatever this value.',
  })
  .define({
    name: DELETE_ENABLED_CONFIG,
    type: 'BOOLEAN',
    defaultValue: false,
    importance: 'MEDIUM',
    group: WRITES_GROUP,
    documentation:
      'Whether a tombstone (a record with a null value) deletes the row of its key. Requires ' +
      'pk.mode=record_key. false: tombstones are skipped.',
  })
  .define({
    name: OFFSETS_TABLE_CONFIG,
    type: 'STRING',
    defaultValue: '__connect_offsets',
    validator: new NonEmptyString(),
    importance: 'LOW',
    group: WRITES_GROUP,
    documentation:
      'The table (schema.table allowed) holding, per connector, topic and partition, the next ' +
      "Kafka offset to write. It commits in each batch's transaction, which makes writes exactly " +
      'once; it is created when missing.',
  })
  .define({
    name: TABLE_NAME_FORMAT_CONFIG,
    type: 'STRING',
    defaultValue: TOPIC_PLACEHOLDER,
    validator: new NonEmptyString(),
    importance: 'MEDIUM',
    group: DATA_MAPPING_GROUP,
    documentation:
      `The table each record is written to; '${TOPIC_PLACEHOLDER}' is replaced by the record's ` +
      `topic. As in the JDBC sink, dots separate the schema: 'sales.${TOPIC_PLACEHOLDER}'.`,
  })
  .define({
    name: PK_MODE_CONFIG,
    type: 'STRING',
    defaultValue: 'none',
    validator: CaseInsensitiveValidString.in(...PK_MODES),
    importance: 'HIGH',
    group: DATA_MAPPING_GROUP,
    documentation:
      'The primary key columns. none: no key. kafka: the Kafka coordinates, in the columns named ' +
      'by pk.fields (default __connect_topic,__connect_partition,__connect_offset). record_key: ' +
      'the key, a primitive (one column, named by pk.fields) or a struct or map (its fields named ' +
      'by pk.fields; all when empty). record_value: the value fields named by pk.fields (all ' +
      'when empty).',
  })
  .define({
    name: PK_FIELDS_CONFIG,
    type: 'LIST',
    defaultValue: '',
    importance: 'MEDIUM',
    group: DATA_MAPPING_GROUP,
    documentation: 'The primary key column or field names; their meaning depends on pk.mode.',
  })
  .define({
    name: FIELDS_WHITELIST_CONFIG,
    type: 'LIST',
    defaultValue: '',
    importance: 'MEDIUM',
    group: DATA_MAPPING_GROUP,
    documentation:
      'The value fields written (besides the primary key columns); empty: all of them.',
  })
  .define({
    name: VALUE_JSONB_COLUMN_CONFIG,
    type: 'STRING',
    defaultValue: null,
    validator: new NonEmptyString(),
    importance: 'MEDIUM',
    group: DATA_MAPPING_GROUP,
    documentation:
      'Writes the whole record value (schemaless JSON, or a struct) as one jsonb column of this ' +
      'name, beside the primary key columns. Unset: each value field is a column (schemaless ' +
      'maps then need an existing table whose column types PostgreSQL casts the values to).',
  })
  .define({
    name: AUTO_CREATE_CONFIG,
    type: 'BOOLEAN',
    defaultValue: false,
    importance: 'MEDIUM',
    group: DDL_GROUP,
    documentation:
      'Whether a missing table is created (CREATE TABLE IF NOT EXISTS) from the record schema, ' +
      'with the primary key of pk.mode.',
  })
  .define({
    name: AUTO_EVOLVE_CONFIG,
    type: 'BOOLEAN',
    defaultValue: false,
    importance: 'MEDIUM',
    group: DDL_GROUP,
    documentation:
      'Whether columns missing from the table are added (ALTER TABLE … ADD COLUMN, always ' +
      'nullable) when a record schema has new fields.',
  });

/** The parsed connector (and task) config. */
export interface PostgresSinkConfig {
  readonly connection: ConnectionSettings;
  readonly tableNameFormat: string;
  readonly insertMode: InsertMode;
  readonly pkMode: PkMode;
  /** The given `pk.fields`, or for `pk.mode=kafka` the default column names. */
  readonly pkFields: readonly string[];
  readonly fieldsWhitelist: ReadonlySet<string> | null;
  readonly deleteEnabled: boolean;
  readonly autoCreate: boolean;
  readonly autoEvolve: boolean;
  readonly batchSize: number;
  readonly offsetsTable: TableName;
  readonly valueJsonbColumn: string | null;
}

function oneOf<T extends string>(values: readonly T[], value: unknown): T {
  const lower = String(value).toLowerCase();
  return values.find((v) => v === lower) ?? (values[0] as T);
}

function invalid(key: string, value: string, why: string): ConfigError {
  return new ConfigError(`Invalid value ${value} for configuration ${key}: ${why}`, key);
}

function pkFieldsOf(pkMode: PkMode, fields: readonly string[]): readonly string[] {
  if (fields.some((f) => f === '') || new Set(fields).size !== fields.length) {
    throw invalid(PK_FIELDS_CONFIG, fields.join(','), 'field names must be non-empty and distinct');
  }
  if (pkMode === 'none' && fields.length > 0) {
    throw invalid(PK_FIELDS_CONFIG, fields.join(','), `${PK_MODE_CONFIG}=none takes no fields`);
  }
  if (pkMode === 'kafka') {
    if (fields.length === 0) return KAFKA_PK_DEFAULTS;
    if (fields.length !== 3) {
      throw invalid(
        PK_FIELDS_CONFIG,
        fields.join(','),
        `${PK_MODE_CONFIG}=kafka needs exactly three names (topic, partition and offset columns)`,
      );
    }
  }
  return fields;
}

/**
 * Parses a connector or task config. Throws ConfigError, reported on the offending key, for
 * Kafka's type and validator messages and for the cross-key rules: upsert and update need a
 * primary key (`pk.mode` other than none), deletes need `pk.mode=record_key`, `pk.mode=kafka`
 * takes three column names, the URL must be a PostgreSQL one.
 */
export function parsePostgresSinkConfig(
  props: Readonly<Record<string, string>>,
): PostgresSinkConfig {
  const values = POSTGRES_SINK_CONFIG_DEF.parse(props);
  const insertMode = oneOf(INSERT_MODES, values[INSERT_MODE_CONFIG]);
  const pkMode = oneOf(PK_MODES, values[PK_MODE_CONFIG]);
  const deleteEnabled = values[DELETE_ENABLED_CONFIG] === true;
  if (insertMode !== 'insert' && pkMode === 'none') {
    throw invalid(
      INSERT_MODE_CONFIG,
      insertMode,
      `${insertMode} needs primary key columns: set ${PK_MODE_CONFIG} to kafka, record_key or record_value`,
    );
  }
  if (deleteEnabled && pkMode !== 'record_key') {
    throw invalid(
      DELETE_ENABLED_CONFIG,
      'true',
      `deletes are only supported for ${PK_MODE_CONFIG}=record_key`,
    );
  }
  const connection = connectionSettingsOf(values, 'postgres-sink');
  const whitelist = values[FIELDS_WHITELIST_CONFIG] as string[];
  const jsonb = values[VALUE_JSONB_COLUMN_CONFIG];
  return {
    connection,
    tableNameFormat: String(values[TABLE_NAME_FORMAT_CONFIG]),
    insertMode,
    pkMode,
    pkFields: pkFieldsOf(pkMode, values[PK_FIELDS_CONFIG] as string[]),
    fieldsWhitelist: whitelist.length === 0 ? null : new Set(whitelist),
    deleteEnabled,
    autoCreate: values[AUTO_CREATE_CONFIG] === true,
    autoEvolve: values[AUTO_EVOLVE_CONFIG] === true,
    batchSize: Number(values[BATCH_SIZE_CONFIG]),
    offsetsTable: parseTableName(String(values[OFFSETS_TABLE_CONFIG]), OFFSETS_TABLE_CONFIG),
    valueJsonbColumn: typeof jsonb === 'string' ? jsonb : null,
  };
}

/** The table of a record of `topic`: `table.name.format` with {@link TOPIC_PLACEHOLDER} replaced. */
export function tableNameFor(config: PostgresSinkConfig, topic: string): TableName {
  return parseTableName(
    config.tableNameFormat.replaceAll(TOPIC_PLACEHOLDER, topic),
    TABLE_NAME_FORMAT_CONFIG,
  );
}
