/**
 * The PostgreSQL source connector's keys: their names, and the {@link ConfigDef} (types,
 * defaults, validators, documentation) serving both the runtime and `…/config/validate`.
 *
 * Names, defaults and meanings are Confluent's JDBC source's, so a JDBC source config for
 * PostgreSQL runs unchanged; keys of it this connector does not take are kept and reported as
 * unused (see README.md). Parsed by postgres-source-config.ts.
 */
import {
  ConfigDef,
  ConfigError,
  LambdaValidator,
  Range,
  ValidString,
} from 'serverless-connect/connect';
import { CONNECTION_CONFIG_DEF } from '../postgres/connection-config.js';
import { timeZoneOf } from '../time-zone.js';
import { NUMERIC_MAPPINGS, type NumericMapping } from './column-types.js';
import type { SourceMode } from './criteria.js';
import { TABLE_TYPES } from './table-discovery.js';

/** The version of the PostgreSQL source connector and task. */
export const POSTGRES_SOURCE_VERSION = '0.1.0';

export const MODE_CONFIG = 'mode';
export const INCREMENTING_COLUMN_CONFIG = 'incrementing.column.name';
export const TIMESTAMP_COLUMN_CONFIG = 'timestamp.column.name';
export const VALIDATE_NON_NULL_CONFIG = 'validate.non.null';
export const TIMESTAMP_INITIAL_CONFIG = 'timestamp.initial';
export const TIMESTAMP_DELAY_CONFIG = 'timestamp.delay.interval.ms';
export const DB_TIMEZONE_CONFIG = 'db.timezone';
export const NUMERIC_MAPPING_CONFIG = 'numeric.mapping';
export const NUMERIC_PRECISION_MAPPING_CONFIG = 'numeric.precision.mapping';
export const TABLE_WHITELIST_CONFIG = 'table.whitelist';
export const TABLE_BLACKLIST_CONFIG = 'table.blacklist';
export const TABLE_INCLUDE_LIST_CONFIG = 'table.include.list';
export const TABLE_EXCLUDE_LIST_CONFIG = 'table.exclude.list';
export const TABLE_TYPES_CONFIG = 'table.types';
export const SCHEMA_PATTERN_CONFIG = 'schema.pattern';
export const QUERY_CONFIG = 'query';
export const TOPIC_PREFIX_CONFIG = 'topic.prefix';
export const POLL_INTERVAL_CONFIG = 'poll.interval.ms';
export const BATCH_MAX_ROWS_CONFIG = 'batch.max.rows';
export const TABLE_POLL_INTERVAL_CONFIG = 'table.poll.interval.ms';

export const SOURCE_MODES: readonly SourceMode[] = Object.freeze([
  'bulk',
  'incrementing',
  'timestamp',
  'timestamp+incrementing',
]);
/** `timestamp.initial`'s value meaning "the database's current time". */
export const TIMESTAMP_INITIAL_CURRENT = -1;

const DATABASE_GROUP = 'Database';
const MODE_GROUP = 'Mode';
const CONNECTOR_GROUP = 'Connector';

const TOPIC_PREFIX_CHARS = /^[A-Za-z0-9._-]*$/;

export function invalid(key: string, value: unknown, why: string): ConfigError {
  return new ConfigError(`Invalid value ${String(value)} for configuration ${key}: ${why}`, key);
}

/** The connector's keys, in documentation order. */
export const POSTGRES_SOURCE_CONFIG_DEF: ConfigDef = new ConfigDef(CONNECTION_CONFIG_DEF)
  .define({
    name: TABLE_WHITELIST_CONFIG,
    type: 'LIST',
    defaultValue: '',
    importance: 'MEDIUM',
    group: DATABASE_GROUP,
    documentation:
      'Tables to copy: each a table name, schema.table or "schema"."table". If set, ' +
      'table.blacklist may not be. Empty with no other filter: every table of table.types.',
  })
  .define({
    name: TABLE_BLACKLIST_CONFIG,
    type: 'LIST',
    defaultValue: '',
    importance: 'MEDIUM',
    group: DATABASE_GROUP,
    documentation: 'Tables not to copy (same forms). If set, table.whitelist may not be.',
  })
  .define({
    name: TABLE_INCLUDE_LIST_CONFIG,
    type: 'LIST',
    defaultValue: '',
    importance: 'MEDIUM',
    group: DATABASE_GROUP,
    documentation:
      'Regular expressions matching the schema.table names of the tables to copy (the whole ' +
      'name, case-sensitive). Not with table.whitelist or table.blacklist.',
  })
  .define({
    name: TABLE_EXCLUDE_LIST_CONFIG,
    type: 'LIST',
    defaultValue: '',
    importance: 'MEDIUM',
    group: DATABASE_GROUP,
    documentation:
      'Regular expressions matching schema.table names not to copy among those table.include.list matches (which it requires).',
  })
  .define({
    name: SCHEMA_PATTERN_CONFIG,
    type: 'STRING',
    defaultValue: null,
    importance: 'MEDIUM',
    group: DATABASE_GROUP,
    documentation:
      'A LIKE pattern the schema of a table must match (null: any schema, as the JDBC source).',
  })
  .define({
    name: NUMERIC_MAPPING_CONFIG,
    type: 'STRING',
    defaultValue: null,
    validator: LambdaValidator.with(
      (name, value) => {
        if (
          value !== null &&
          !NUMERIC_MAPPINGS.includes(String(value).toLowerCase() as NumericMapping)
        ) {
          throw invalid(name, value, `String must be one of: ${NUMERIC_MAPPINGS.join(', ')}`);
        }
      },
      () => `[${NUMERIC_MAPPINGS.join(', ')}]`,
    ),
    importance: 'LOW',
    group: DATABASE_GROUP,
    documentation:
      'How numeric columns map. none (the default): Connect Decimal. best_fit: INT8 to INT64 ' +
      'by precision when the scale is 0 or less and the precision at most 18, FLOAT64 when the ' +
      'scale is positive, Decimal otherwise. best_fit_eager_double: best_fit, and FLOAT64 ' +
      'whatever the precision when the scale is positive. precision_only: integers by precision ' +
      'when the scale is 0.',
  })
  .define({
    name: NUMERIC_PRECISION_MAPPING_CONFIG,
    type: 'BOOLEAN',
    defaultValue: false,
    importance: 'LOW',
    group: DATABASE_GROUP,
    documentation:
      'Deprecated: true is numeric.mapping=precision_only when numeric.mapping is unset.',
  })
  .define({
    name: DB_TIMEZONE_CONFIG,
    type: 'STRING',
    defaultValue: 'UTC',
    validator: LambdaValidator.with(
      (name, value) => {
        try {
          timeZoneOf(String(value));
        } catch {
          throw invalid(
            name,
            value,
            'not a time zone (an IANA id such as Europe/Paris, UTC, or +02:00)',
          );
        }
      },
      () => 'an IANA time zone id or a fixed offset',
    ),
    importance: 'MEDIUM',
    group: DATABASE_GROUP,
    documentation:
      'The zone of timestamp (without time zone) columns: their values are read as wall times ' +
      'there, and the timestamp criteria are written in it. timestamptz columns need none.',
  })
  .define({
    name: MODE_CONFIG,
    type: 'STRING',
    defaultValue: '',
    validator: ValidString.in('', ...SOURCE_MODES),
    importance: 'HIGH',
    group: MODE_GROUP,
    documentation:
      'bulk: the whole table each poll interval. incrementing: new rows by a strictly ' +
      'increasing column. timestamp: new and changed rows by a timestamp column. ' +
      'timestamp+incrementing: both, each row at a unique position. Required.',
  })
  .define({
    name: INCREMENTING_COLUMN_CONFIG,
    type: 'STRING',
    defaultValue: '',
    importance: 'MEDIUM',
    group: MODE_GROUP,
    documentation:
      'The strictly increasing column (incrementing and timestamp+incrementing modes). Empty: ' +
      "the table's first serial or identity column.",
  })
  .define({
    name: TIMESTAMP_COLUMN_CONFIG,
    type: 'LIST',
    defaultValue: '',
    importance: 'MEDIUM',
    group: MODE_GROUP,
    documentation:
      'The timestamp column, or several: their COALESCE, first non-null wins (timestamp and ' +
      'timestamp+incrementing modes).',
  })
  .define({
    name: VALIDATE_NON_NULL_CONFIG,
    type: 'BOOLEAN',
    defaultValue: true,
    importance: 'LOW',
    group: MODE_GROUP,
    documentation:
      'Whether a task checks that the incrementing column, and at least one timestamp column, ' +
      'are NOT NULL (table mode). Views need false.',
  })
  .define({
    name: QUERY_CONFIG,
    type: 'STRING',
    defaultValue: '',
    importance: 'MEDIUM',
    group: MODE_GROUP,
    documentation:
      'A SELECT to run instead of copying tables (one task). With a mode other than bulk, the ' +
      'criteria are appended to it (WHERE … ORDER BY … LIMIT), so it must not have a WHERE of its own.',
  })
  .define({
    name: TIMESTAMP_INITIAL_CONFIG,
    type: 'LONG',
    defaultValue: null,
    importance: 'LOW',
    group: MODE_GROUP,
    documentation:
      'Epoch milliseconds to start the timestamp criteria at when no offset is stored; -1: the ' +
      "database's current time. Unset: every row.",
  })
  .define({
    name: TIMESTAMP_DELAY_CONFIG,
    type: 'LONG',
    defaultValue: 0,
    validator: Range.atLeast(0),
    importance: 'HIGH',
    group: MODE_GROUP,
    documentation:
      'Rows are read only once their timestamp is this much older than the database time, ' +
      'so that transactions that committed late with an earlier timestamp are not missed.',
  })
  .define({
    name: TABLE_TYPES_CONFIG,
    type: 'LIST',
    defaultValue: 'TABLE',
    validator: LambdaValidator.with(
      (name, value) => {
        for (const item of Array.isArray(value) ? value : []) {
          if (!TABLE_TYPES.includes(String(item).toUpperCase())) {
            throw invalid(name, item, `String must be one of: ${TABLE_TYPES.join(', ')}`);
          }
        }
      },
      () => `[${TABLE_TYPES.join(', ')}]`,
    ),
    importance: 'LOW',
    group: CONNECTOR_GROUP,
    documentation: `The kinds of relations copied: ${TABLE_TYPES.join(', ')}.`,
  })
  .define({
    name: POLL_INTERVAL_CONFIG,
    type: 'INT',
    defaultValue: 5000,
    validator: Range.atLeast(0),
    importance: 'HIGH',
    group: CONNECTOR_GROUP,
    documentation: 'How often each table is queried for new data, in milliseconds.',
  })
  .define({
    name: BATCH_MAX_ROWS_CONFIG,
    type: 'INT',
    defaultValue: 1000,
    validator: Range.atLeast(1),
    importance: 'LOW',
    group: CONNECTOR_GROUP,
    documentation: 'The most rows one query reads (LIMIT), and one poll returns.',
  })
  .define({
    name: TABLE_POLL_INTERVAL_CONFIG,
    type: 'LONG',
    defaultValue: 60_000,
    validator: Range.atLeast(0),
    importance: 'LOW',
    group: CONNECTOR_GROUP,
    documentation:
      'How often a running connector looks for added or removed tables, in milliseconds ' +
      '(0: never; the runtime also lists them on each of its reconciliations).',
  })
  .define({
    name: TOPIC_PREFIX_CONFIG,
    type: 'STRING',
    defaultValue: '',
    validator: LambdaValidator.with(
      (name, value) => {
        const text = String(value ?? '').trim();
        if (text.length > 249) throw invalid(name, value, 'longer than a topic name (249)');
        if (!TOPIC_PREFIX_CHARS.test(text)) {
          throw invalid(name, value, "only ASCII letters, digits, '.', '_' and '-' are allowed");
        }
      },
      () => 'a topic name prefix',
    ),
    importance: 'HIGH',
    group: CONNECTOR_GROUP,
    documentation:
      "The topic of a table is this prefix followed by the table's name; of a custom query, this prefix itself.",
  });
