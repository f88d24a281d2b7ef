/**
 * The PostgreSQL CDC source's parsed configuration (the keys are in `cdc-config-def.ts`).
 *
 * Connection, one clean rule: the server is `database.hostname` (+ `database.port`,
 * `database.dbname`, `database.sslmode`) OR `connection.url`, never both; the credentials are
 * `database.user`/`database.password` or their synonyms `connection.user`/`connection.password`.
 */
import { ConfigError, Password } from 'serverless-connect/connect';
import {
  CONNECTION_PASSWORD_CONFIG,
  CONNECTION_URL_CONFIG,
  CONNECTION_USER_CONFIG,
  connectionSettingsOf,
} from '../postgres/connection-config.js';
import { type ConnectionSettings, parseConnectionUrl } from '../postgres/connection-url.js';
import {
  type AutocreateMode,
  DBNAME_CONFIG,
  DECIMAL_HANDLING_CONFIG,
  HEARTBEAT_ACTION_QUERY_CONFIG,
  HEARTBEAT_INTERVAL_CONFIG,
  HEARTBEAT_TOPIC_PREFIX_CONFIG,
  HOSTNAME_CONFIG,
  MAX_BATCH_SIZE_CONFIG,
  PASSWORD_CONFIG,
  POLL_INTERVAL_CONFIG,
  PORT_CONFIG,
  POSTGRES_CDC_TASK_CONFIG_DEF,
  PUBLICATION_AUTOCREATE_CONFIG,
  PUBLICATION_NAME_CONFIG,
  SCHEMA_EXCLUDE_CONFIG,
  SCHEMA_INCLUDE_CONFIG,
  SKIPPED_OPERATIONS_CONFIG,
  SLOT_DROP_ON_STOP_CONFIG,
  SLOT_NAME_CONFIG,
  SNAPSHOT_MODE_CONFIG,
  type SNAPSHOT_MODES,
  type SnapshotMode,
  SSLMODE_CONFIG,
  STATUS_UPDATE_INTERVAL_CONFIG,
  TABLE_EXCLUDE_CONFIG,
  TABLE_INCLUDE_CONFIG,
  TASK_COUNT_CONFIG,
  TASK_INDEX_CONFIG,
  TIME_PRECISION_CONFIG,
  TOMBSTONES_ON_DELETE_CONFIG,
  TOPIC_PREFIX_CONFIG,
  UNAVAILABLE_PLACEHOLDER_CONFIG,
  USER_CONFIG,
} from './cdc-config-def.js';
import type { DecimalHandlingMode, TimePrecisionMode, TypeMappingOptions } from './column-types.js';
import type { TableFilterConfig } from './table-filter.js';

/** The connector's name in its connections' `application_name`. */
const CONNECTOR = 'postgres-cdc';

/** The parsed config of a task (the connector's is task 0 of 1). */
export interface PostgresCdcConfig extends TableFilterConfig {
  readonly connection: ConnectionSettings;
  readonly database: string;
  readonly topicPrefix: string;
  readonly slotName: string;
  readonly publicationName: string;
  readonly autocreate: AutocreateMode;
  readonly snapshotMode: SnapshotMode;
  readonly heartbeatIntervalMs: number;
  readonly heartbeatActionQuery: string | null;
  readonly heartbeatTopicPrefix: string;
  readonly slotDropOnStop: boolean;
  readonly tombstonesOnDelete: boolean;
  readonly skippedOperations: ReadonlySet<string>;
  readonly types: TypeMappingOptions;
  readonly maxBatchSize: number;
  readonly pollIntervalMs: number;
  readonly statusUpdateIntervalMs: number;
  readonly taskIndex: number;
  readonly taskCount: number;
}

function invalid(key: string, value: unknown, why: string): ConfigError {
  return new ConfigError(`Invalid value ${String(value)} for configuration ${key}: ${why}`, key);
}

function text(values: Record<string, unknown>, key: string): string | null {
  const value = values[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** `database.*` or `connection.*`, by the rule in the module comment. */
function connectionOf(values: Record<string, unknown>): ConnectionSettings {
  const host = text(values, HOSTNAME_CONFIG);
  const url = text(values, CONNECTION_URL_CONFIG);
  const pick = (debezium: string, jdbc: string) => {
    if (values[debezium] != null && values[jdbc] != null) {
      throw invalid(debezium, values[debezium], `give ${debezium} or ${jdbc}, not both`);
    }
    return values[debezium] ?? values[jdbc];
  };
  const user = pick(USER_CONFIG, CONNECTION_USER_CONFIG);
  const password = pick(PASSWORD_CONFIG, CONNECTION_PASSWORD_CONFIG);
  if (host !== null && url !== null) {
    throw invalid(
      HOSTNAME_CONFIG,
      host,
      `give ${HOSTNAME_CONFIG} or ${CONNECTION_URL_CONFIG}, not both`,
    );
  }
  const credentials = {
    [CONNECTION_USER_CONFIG]: typeof user === 'string' ? user : null,
    [CONNECTION_PASSWORD_CONFIG]: password instanceof Password ? password : null,
  };
  let settings: ConnectionSettings;
  if (url !== null) {
    settings = connectionSettingsOf({ ...credentials, [CONNECTION_URL_CONFIG]: url }, CONNECTOR);
  } else {
    if (host === null)
      throw invalid(
        HOSTNAME_CONFIG,
        null,
        `give ${HOSTNAME_CONFIG} (with ${DBNAME_CONFIG}) or ${CONNECTION_URL_CONFIG}`,
      );
    const dbname = text(values, DBNAME_CONFIG);
    if (dbname === null) throw invalid(DBNAME_CONFIG, null, `required with ${HOSTNAME_CONFIG}`);
    const hostPart = host.includes(':') ? `[${host}]` : host;
    const built = `postgres://${hostPart}:${values[PORT_CONFIG]}/${encodeURIComponent(dbname)}?sslmode=${String(values[SSLMODE_CONFIG]).toLowerCase()}`;
    try {
      settings = parseConnectionUrl(built, {
        connector: CONNECTOR,
        user: credentials[CONNECTION_USER_CONFIG] ?? undefined,
        password: credentials[CONNECTION_PASSWORD_CONFIG]?.value(),
      });
    } catch (error) {
      if (error instanceof ConfigError) throw invalid(HOSTNAME_CONFIG, host, 'not a host name');
      throw error;
    }
  }
  return settings;
}

function exclusive(values: Record<string, unknown>, include: string, exclude: string): void {
  if ((values[include] as string[]).length > 0 && (values[exclude] as string[]).length > 0) {
    throw invalid(
      exclude,
      (values[exclude] as string[]).join(','),
      `${include} and ${exclude} cannot both be set`,
    );
  }
}

function lower<T extends string>(value: unknown): T {
  return String(value).toLowerCase() as T;
}

/**
 * Parses a connector or task config. Throws ConfigError on the offending key: Kafka's type and
 * validator messages, a missing or doubled server, include and exclude lists together.
 */
export function parsePostgresCdcConfig(props: Readonly<Record<string, string>>): PostgresCdcConfig {
  const values = POSTGRES_CDC_TASK_CONFIG_DEF.parse(props);
  const connection = connectionOf(values);
  exclusive(values, TABLE_INCLUDE_CONFIG, TABLE_EXCLUDE_CONFIG);
  exclusive(values, SCHEMA_INCLUDE_CONFIG, SCHEMA_EXCLUDE_CONFIG);
  const taskIndex = Number(values[TASK_INDEX_CONFIG]);
  const taskCount = Number(values[TASK_COUNT_CONFIG]);
  if (taskIndex >= taskCount)
    throw invalid(
      TASK_INDEX_CONFIG,
      taskIndex,
      `must be below ${TASK_COUNT_CONFIG} (${taskCount})`,
    );
  const snapshot = lower<(typeof SNAPSHOT_MODES)[number]>(values[SNAPSHOT_MODE_CONFIG]);
  const skipped = (values[SKIPPED_OPERATIONS_CONFIG] as string[]).map((o) => o.trim());
  const suffix = taskCount > 1 ? `_${taskIndex}` : '';
  return {
    connection,
    database: connection.database,
    topicPrefix: String(values[TOPIC_PREFIX_CONFIG]),
    slotName: `${values[SLOT_NAME_CONFIG]}${suffix}`,
    publicationName: `${values[PUBLICATION_NAME_CONFIG]}${suffix}`,
    autocreate: lower<AutocreateMode>(values[PUBLICATION_AUTOCREATE_CONFIG]),
    snapshotMode: snapshot === 'never' ? 'no_data' : snapshot,
    heartbeatIntervalMs: Number(values[HEARTBEAT_INTERVAL_CONFIG]),
    heartbeatActionQuery: text(values, HEARTBEAT_ACTION_QUERY_CONFIG),
    heartbeatTopicPrefix: String(values[HEARTBEAT_TOPIC_PREFIX_CONFIG]),
    slotDropOnStop: values[SLOT_DROP_ON_STOP_CONFIG] === true,
    tombstonesOnDelete: values[TOMBSTONES_ON_DELETE_CONFIG] === true,
    skippedOperations: new Set(skipped.includes('none') ? [] : skipped),
    types: {
      decimalHandling: lower<DecimalHandlingMode>(values[DECIMAL_HANDLING_CONFIG]),
      timePrecision: lower<TimePrecisionMode>(values[TIME_PRECISION_CONFIG]),
      unavailablePlaceholder: String(values[UNAVAILABLE_PLACEHOLDER_CONFIG]),
    },
    tableInclude: values[TABLE_INCLUDE_CONFIG] as string[],
    tableExclude: values[TABLE_EXCLUDE_CONFIG] as string[],
    schemaInclude: values[SCHEMA_INCLUDE_CONFIG] as string[],
    schemaExclude: values[SCHEMA_EXCLUDE_CONFIG] as string[],
    maxBatchSize: Number(values[MAX_BATCH_SIZE_CONFIG]),
    pollIntervalMs: Number(values[POLL_INTERVAL_CONFIG]),
    statusUpdateIntervalMs: Number(values[STATUS_UPDATE_INTERVAL_CONFIG]),
    taskIndex,
    taskCount,
  };
}

/** The slot names of every task of a connector config with `taskCount` tasks. */
export function slotNamesOf(props: Readonly<Record<string, string>>, taskCount: number): string[] {
  const base = parsePostgresCdcConfig(props).slotName;
  return taskCount <= 1 ? [base] : Array.from({ length: taskCount }, (_, i) => `${base}_${i}`);
}

/** One task config per task: the connector config plus `task.index` and `task.count`. */
export function postgresCdcTaskConfigs(
  props: Readonly<Record<string, string>>,
  maxTasks: number,
): Record<string, string>[] {
  const count = Math.max(1, maxTasks);
  return Array.from({ length: count }, (_, i) => ({
    ...props,
    [TASK_INDEX_CONFIG]: String(i),
    [TASK_COUNT_CONFIG]: String(count),
  }));
}
