/**
 * The PostgreSQL source connector's parsed configuration (the keys are in
 * postgres-source-config-def.ts): one parse for the connector, its tasks and `…/config/validate`.
 */
import { connectionSettingsOf } from '../postgres/connection-config.js';
import type { ConnectionSettings } from '../postgres/connection-url.js';
import { type TimeZone, timeZoneOf } from '../time-zone.js';
import type { NumericMapping } from './column-types.js';
import type { SourceMode } from './criteria.js';
import {
  BATCH_MAX_ROWS_CONFIG,
  DB_TIMEZONE_CONFIG,
  INCREMENTING_COLUMN_CONFIG,
  invalid,
  MODE_CONFIG,
  NUMERIC_MAPPING_CONFIG,
  NUMERIC_PRECISION_MAPPING_CONFIG,
  POLL_INTERVAL_CONFIG,
  POSTGRES_SOURCE_CONFIG_DEF,
  QUERY_CONFIG,
  SCHEMA_PATTERN_CONFIG,
  SOURCE_MODES,
  TABLE_BLACKLIST_CONFIG,
  TABLE_EXCLUDE_LIST_CONFIG,
  TABLE_INCLUDE_LIST_CONFIG,
  TABLE_POLL_INTERVAL_CONFIG,
  TABLE_TYPES_CONFIG,
  TABLE_WHITELIST_CONFIG,
  TIMESTAMP_COLUMN_CONFIG,
  TIMESTAMP_DELAY_CONFIG,
  TIMESTAMP_INITIAL_CONFIG,
  TOPIC_PREFIX_CONFIG,
  VALIDATE_NON_NULL_CONFIG,
} from './postgres-source-config-def.js';
import { type TableFilter, tableFilterOf } from './table-discovery.js';

export * from './postgres-source-config-def.js';

/** The parsed connector (and task) config. */
export interface PostgresSourceConfig {
  readonly connection: ConnectionSettings;
  readonly mode: SourceMode;
  /** `null`: detect the table's serial or identity column (table mode). */
  readonly incrementingColumn: string | null;
  readonly timestampColumns: readonly string[];
  readonly validateNonNull: boolean;
  /** Epoch ms, {@link TIMESTAMP_INITIAL_CURRENT}, or `null`. */
  readonly timestampInitial: number | null;
  readonly timestampDelayMs: number;
  readonly zone: TimeZone;
  readonly numericMapping: NumericMapping;
  readonly tableFilter: TableFilter;
  /** Upper case. */
  readonly tableTypes: readonly string[];
  readonly schemaPattern: string | null;
  /** The custom query (trailing semicolons removed), `null` in table mode. */
  readonly query: string | null;
  readonly topicPrefix: string;
  readonly pollIntervalMs: number;
  readonly batchMaxRows: number;
  readonly tablePollIntervalMs: number;
}

function modeOf(value: unknown): SourceMode {
  const mode = SOURCE_MODES.find((m) => m === value);
  if (mode === undefined) {
    throw invalid(MODE_CONFIG, value, `set one of ${SOURCE_MODES.join(', ')}`);
  }
  return mode;
}

/**
 * Parses a connector or task config. Throws ConfigError, reported on the offending key, for
 * Kafka's type and validator messages and for the cross-key rules: a mode is required; the
 * timestamp modes need timestamp.column.name; a custom query takes no table filters, must be
 * a SELECT, needs a topic.prefix and (incrementing modes) an incrementing.column.name; the
 * table filters exclude each other.
 */
export function parsePostgresSourceConfig(
  props: Readonly<Record<string, string>>,
): PostgresSourceConfig {
  const values = POSTGRES_SOURCE_CONFIG_DEF.parse(props);
  const mode = modeOf(values[MODE_CONFIG]);
  const rawQuery = String(values[QUERY_CONFIG] ?? '')
    .trim()
    .replace(/[;\s]+$/, '');
  const query = rawQuery === '' ? null : rawQuery;
  const incrementing = String(values[INCREMENTING_COLUMN_CONFIG] ?? '').trim();
  const timestamps = (values[TIMESTAMP_COLUMN_CONFIG] as string[]).filter((c) => c !== '');
  const usesTimestamp = mode === 'timestamp' || mode === 'timestamp+incrementing';
  const usesIncrementing = mode === 'incrementing' || mode === 'timestamp+incrementing';
  if (usesTimestamp && timestamps.length === 0) {
    throw invalid(TIMESTAMP_COLUMN_CONFIG, '', `mode ${mode} needs a timestamp column`);
  }
  const filterKeys = [
    TABLE_WHITELIST_CONFIG,
    TABLE_BLACKLIST_CONFIG,
    TABLE_INCLUDE_LIST_CONFIG,
    TABLE_EXCLUDE_LIST_CONFIG,
  ];
  const lists = Object.fromEntries(
    filterKeys.map((k) => [k, (values[k] as string[]).filter((v) => v !== '')]),
  ) as Record<string, string[]>;
  const prefix = String(values[TOPIC_PREFIX_CONFIG] ?? '').trim();
  if (query !== null) {
    const filter = filterKeys.find((k) => (lists[k] ?? []).length > 0);
    if (filter !== undefined) {
      throw invalid(QUERY_CONFIG, query, `a custom query takes no table filter (${filter} is set)`);
    }
    if (!/^(SELECT|WITH)\b/i.test(query)) {
      throw invalid(QUERY_CONFIG, query, 'only SELECT statements are supported');
    }
    if (prefix === '') {
      throw invalid(
        TOPIC_PREFIX_CONFIG,
        '',
        'a custom query writes to the topic named by topic.prefix: set it',
      );
    }
    if (usesIncrementing && incrementing === '') {
      throw invalid(
        INCREMENTING_COLUMN_CONFIG,
        '',
        `mode ${mode} with a custom query needs the incrementing column named (there is no table to find it in)`,
      );
    }
  }
  const explicit = values[NUMERIC_MAPPING_CONFIG];
  const numericMapping: NumericMapping =
    explicit === null
      ? values[NUMERIC_PRECISION_MAPPING_CONFIG] === true
        ? 'precision_only'
        : 'none'
      : (String(explicit).toLowerCase() as NumericMapping);
  const initial = values[TIMESTAMP_INITIAL_CONFIG];
  return {
    connection: connectionSettingsOf(values, 'postgres-source'),
    mode,
    incrementingColumn: incrementing === '' ? null : incrementing,
    timestampColumns: timestamps,
    validateNonNull: values[VALIDATE_NON_NULL_CONFIG] === true,
    timestampInitial: initial === null ? null : Number(initial),
    timestampDelayMs: Number(values[TIMESTAMP_DELAY_CONFIG]),
    zone: timeZoneOf(String(values[DB_TIMEZONE_CONFIG])),
    numericMapping,
    tableFilter: tableFilterOf({
      whitelist: lists[TABLE_WHITELIST_CONFIG] ?? [],
      blacklist: lists[TABLE_BLACKLIST_CONFIG] ?? [],
      include: lists[TABLE_INCLUDE_LIST_CONFIG] ?? [],
      exclude: lists[TABLE_EXCLUDE_LIST_CONFIG] ?? [],
    }),
    tableTypes: (values[TABLE_TYPES_CONFIG] as string[]).map((t) => t.toUpperCase()),
    schemaPattern:
      values[SCHEMA_PATTERN_CONFIG] === null ? null : String(values[SCHEMA_PATTERN_CONFIG]),
    query,
    topicPrefix: prefix,
    pollIntervalMs: Number(values[POLL_INTERVAL_CONFIG]),
    batchMaxRows: Number(values[BATCH_MAX_ROWS_CONFIG]),
    tablePollIntervalMs: Number(values[TABLE_POLL_INTERVAL_CONFIG]),
  };
}
