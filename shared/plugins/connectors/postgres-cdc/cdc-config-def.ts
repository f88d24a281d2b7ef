/**
 * The PostgreSQL CDC source's configuration keys: Debezium's PostgreSQL connector keys (names,
 * defaults and meanings), so a Debezium config runs unchanged, plus the JDBC connectors'
 * `connection.url`/`connection.user`/`connection.password` (the shared PostgreSQL keys) as the
 * other way to say where the server is. One {@link ConfigDef}, with docs, serves the runtime and
 * `…/config/validate`; `cdc-config.ts` parses it.
 */
import {
  CaseInsensitiveValidString,
  ConfigDef,
  ConfigError,
  type ConfigKey,
  LambdaValidator,
  NonEmptyString,
  PatternValidator,
  Range,
  RegexListValidator,
} from 'serverless-connect/connect';
import {
  CONNECTION_CONFIG_DEF,
  CONNECTION_PASSWORD_CONFIG,
  CONNECTION_URL_CONFIG,
  CONNECTION_USER_CONFIG,
} from '../postgres/connection-config.js';

/** The version of the PostgreSQL CDC connector and task (also `source.version`). */
export const POSTGRES_CDC_VERSION = '0.1.0';

export const HOSTNAME_CONFIG = 'database.hostname';
export const PORT_CONFIG = 'database.port';
export const USER_CONFIG = 'database.user';
export const PASSWORD_CONFIG = 'database.password';
export const DBNAME_CONFIG = 'database.dbname';
export const SSLMODE_CONFIG = 'database.sslmode';
export const TOPIC_PREFIX_CONFIG = 'topic.prefix';
export const PLUGIN_NAME_CONFIG = 'plugin.name';
export const SLOT_NAME_CONFIG = 'slot.name';
export const PUBLICATION_NAME_CONFIG = 'publication.name';
export const PUBLICATION_AUTOCREATE_CONFIG = 'publication.autocreate.mode';
export const TABLE_INCLUDE_CONFIG = 'table.include.list';
export const TABLE_EXCLUDE_CONFIG = 'table.exclude.list';
export const SCHEMA_INCLUDE_CONFIG = 'schema.include.list';
export const SCHEMA_EXCLUDE_CONFIG = 'schema.exclude.list';
export const SNAPSHOT_MODE_CONFIG = 'snapshot.mode';
export const HEARTBEAT_INTERVAL_CONFIG = 'heartbeat.interval.ms';
export const HEARTBEAT_ACTION_QUERY_CONFIG = 'heartbeat.action.query';
export const HEARTBEAT_TOPIC_PREFIX_CONFIG = 'topic.heartbeat.prefix';
export const SLOT_DROP_ON_STOP_CONFIG = 'slot.drop.on.stop';
export const TOMBSTONES_ON_DELETE_CONFIG = 'tombstones.on.delete';
export const SKIPPED_OPERATIONS_CONFIG = 'skipped.operations';
export const DECIMAL_HANDLING_CONFIG = 'decimal.handling.mode';
export const TIME_PRECISION_CONFIG = 'time.precision.mode';
export const MAX_BATCH_SIZE_CONFIG = 'max.batch.size';
export const POLL_INTERVAL_CONFIG = 'poll.interval.ms';
export const STATUS_UPDATE_INTERVAL_CONFIG = 'status.update.interval.ms';
export const UNAVAILABLE_PLACEHOLDER_CONFIG = 'unavailable.value.placeholder';
/** Task config only (set by the connector): this task's index among `task.count`. */
export const TASK_INDEX_CONFIG = 'task.index';
export const TASK_COUNT_CONFIG = 'task.count';

export type SnapshotMode = 'initial' | 'initial_only' | 'no_data';
export type AutocreateMode = 'all_tables' | 'disabled' | 'filtered';
export const SNAPSHOT_MODES = ['initial', 'initial_only', 'no_data', 'never'] as const;
const AUTOCREATE_MODES: readonly AutocreateMode[] = ['all_tables', 'disabled', 'filtered'];
const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];
const OPERATIONS = ['c', 'u', 'd', 't', 'none'];

const CONNECTION = 'Connection';
const REPLICATION = 'Replication';
const FILTERS = 'Filters';
const EVENTS = 'Events';

/** PostgreSQL's rule for slot names, Debezium's validation. */
const SLOT_NAME = PatternValidator.matching(
  '[a-z0-9_]{1,63}',
  'lower-case letters, digits and underscores, at most 63',
);

/** `connection.url` from the shared keys, made optional: `database.hostname` is the other way. */
const OPTIONAL_URL: ConfigKey = {
  ...(CONNECTION_CONFIG_DEF.configKey(CONNECTION_URL_CONFIG) as ConfigKey),
  defaultValue: null,
  hasDefault: true,
  validator: undefined,
  documentation:
    `${(CONNECTION_CONFIG_DEF.configKey(CONNECTION_URL_CONFIG) as ConfigKey).documentation} ` +
    `Give this or ${HOSTNAME_CONFIG}, not both.`,
};

function list(
  name: string,
  documentation: string,
  group: string,
  defaultValue = '',
): Parameters<ConfigDef['define']>[0] {
  return {
    name,
    type: 'LIST',
    defaultValue,
    validator: new RegexListValidator(),
    importance: 'HIGH',
    group,
    documentation,
  };
}

/** The connector's keys, in documentation order. */
export const POSTGRES_CDC_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: HOSTNAME_CONFIG,
    type: 'STRING',
    defaultValue: null,
    importance: 'HIGH',
    group: CONNECTION,
    documentation: `The PostgreSQL server's host (Debezium's form). Give this or ${CONNECTION_URL_CONFIG}, not both.`,
  })
  .define({
    name: PORT_CONFIG,
    type: 'INT',
    defaultValue: 5432,
    validator: Range.between(1, 65535),
    importance: 'HIGH',
    group: CONNECTION,
    documentation: 'The server port.',
  })
  .define({
    name: DBNAME_CONFIG,
    type: 'STRING',
    defaultValue: null,
    importance: 'HIGH',
    group: CONNECTION,
    documentation: `The database to capture (required with ${HOSTNAME_CONFIG}).`,
  })
  .define({
    name: USER_CONFIG,
    type: 'STRING',
    defaultValue: null,
    importance: 'HIGH',
    group: CONNECTION,
    documentation: `The user, with the REPLICATION attribute (or rds_replication). Synonym: ${CONNECTION_USER_CONFIG}.`,
  })
  .define({
    name: PASSWORD_CONFIG,
    type: 'PASSWORD',
    defaultValue: null,
    importance: 'HIGH',
    group: CONNECTION,
    documentation: `The user's password (a config provider placeholder keeps it out of the stored config). Synonym: ${CONNECTION_PASSWORD_CONFIG}.`,
  })
  .define({
    name: SSLMODE_CONFIG,
    type: 'STRING',
    defaultValue: 'prefer',
    validator: CaseInsensitiveValidString.in(...SSL_MODES),
    importance: 'MEDIUM',
    group: CONNECTION,
    documentation:
      'disable, allow and prefer connect without TLS; require encrypts; verify-ca and verify-full also check the certificate.',
  })
  .defineKey(OPTIONAL_URL)
  .defineKey(CONNECTION_CONFIG_DEF.configKey(CONNECTION_USER_CONFIG) as ConfigKey)
  .defineKey(CONNECTION_CONFIG_DEF.configKey(CONNECTION_PASSWORD_CONFIG) as ConfigKey)
  .define({
    name: TOPIC_PREFIX_CONFIG,
    type: 'STRING',
    validator: PatternValidator.matching('[a-zA-Z0-9._-]+', 'letters, digits, ., _ and -'),
    importance: 'HIGH',
    group: EVENTS,
    documentation:
      'The logical server name: the prefix of every topic (<topic.prefix>.<schema>.<table>), the source partition and source.name.',
  })
  .define({
    name: PLUGIN_NAME_CONFIG,
    type: 'STRING',
    defaultValue: 'pgoutput',
    validator: CaseInsensitiveValidString.in('pgoutput'),
    importance: 'MEDIUM',
    group: REPLICATION,
    documentation:
      "The logical decoding plugin: only 'pgoutput' (built into PostgreSQL 10+; Debezium's decoderbufs is not supported).",
  })
  .define({
    name: SLOT_NAME_CONFIG,
    type: 'STRING',
    defaultValue: 'debezium',
    validator: SLOT_NAME,
    importance: 'MEDIUM',
    group: REPLICATION,
    documentation: 'The logical replication slot. With several tasks, task i uses <slot.name>_<i>.',
  })
  .define({
    name: PUBLICATION_NAME_CONFIG,
    type: 'STRING',
    defaultValue: 'dbz_publication',
    validator: new NonEmptyString(),
    importance: 'MEDIUM',
    group: REPLICATION,
    documentation:
      'The publication streamed. With several tasks, task i uses <publication.name>_<i>.',
  })
  .define({
    name: PUBLICATION_AUTOCREATE_CONFIG,
    type: 'STRING',
    defaultValue: 'all_tables',
    validator: CaseInsensitiveValidString.in(...AUTOCREATE_MODES),
    importance: 'MEDIUM',
    group: REPLICATION,
    documentation:
      'all_tables: create the publication FOR ALL TABLES when missing (needs a superuser) and filter here. filtered: create it, and keep it set, FOR TABLE the captured tables. disabled: the publication must exist. With several tasks, all_tables behaves as filtered (each task publishes its own tables).',
  })
  .define({
    name: SLOT_DROP_ON_STOP_CONFIG,
    type: 'BOOLEAN',
    defaultValue: false,
    importance: 'LOW',
    group: REPLICATION,
    documentation:
      'Drop the slot whenever a task stops (every invocation here): changes made while no invocation runs are lost. For tests only, as in Debezium.',
  })
  .define({
    name: STATUS_UPDATE_INTERVAL_CONFIG,
    type: 'INT',
    defaultValue: 10_000,
    validator: Range.atLeast(100),
    importance: 'LOW',
    group: REPLICATION,
    documentation:
      'How often the task tells the server it is alive (a status update confirming only committed positions).',
  })
  .define({
    name: SNAPSHOT_MODE_CONFIG,
    type: 'STRING',
    defaultValue: 'initial',
    validator: CaseInsensitiveValidString.in(...SNAPSHOT_MODES),
    importance: 'HIGH',
    group: REPLICATION,
    documentation:
      'initial: snapshot the captured tables when there is no committed offset, then stream. initial_only: snapshot, then stop reading. no_data (or never): stream only, from the slot.',
  })
  .define(
    list(
      TABLE_INCLUDE_CONFIG,
      'Regular expressions (comma-separated) matching the whole schema.table of the tables to capture; empty: all. Not with table.exclude.list.',
      FILTERS,
    ),
  )
  .define(
    list(
      TABLE_EXCLUDE_CONFIG,
      'Regular expressions of schema.table not to capture. Not with table.include.list.',
      FILTERS,
    ),
  )
  .define(
    list(
      SCHEMA_INCLUDE_CONFIG,
      'Regular expressions of the schemas to capture; empty: all but the system schemas. Not with schema.exclude.list.',
      FILTERS,
    ),
  )
  .define(
    list(
      SCHEMA_EXCLUDE_CONFIG,
      'Regular expressions of schemas not to capture. Not with schema.include.list.',
      FILTERS,
    ),
  )
  .define({
    name: TOMBSTONES_ON_DELETE_CONFIG,
    type: 'BOOLEAN',
    defaultValue: true,
    importance: 'MEDIUM',
    group: EVENTS,
    documentation:
      'Follow each delete event with a tombstone (the key, a null value) so compaction can drop the row.',
  })
  .define({
    name: SKIPPED_OPERATIONS_CONFIG,
    type: 'LIST',
    defaultValue: 't',
    validator: LambdaValidator.with(
      (name, value) => {
        for (const op of value as string[])
          if (!OPERATIONS.includes(op.trim()))
            throw new ConfigError(
              `Invalid value ${op} for configuration ${name}: operations are c, u, d, t or none`,
              name,
            );
      },
      () => 'c, u, d, t or none',
    ),
    importance: 'LOW',
    group: EVENTS,
    documentation:
      "Operations not emitted: c (create), u (update), d (delete), t (truncate); 'none' skips nothing. Default t: truncates are not emitted.",
  })
  .define({
    name: DECIMAL_HANDLING_CONFIG,
    type: 'STRING',
    defaultValue: 'precise',
    validator: CaseInsensitiveValidString.in('precise', 'double', 'string'),
    importance: 'MEDIUM',
    group: EVENTS,
    documentation:
      'numeric and money: precise (Connect Decimal; numeric without a scale as io.debezium.data.VariableScaleDecimal), double, or string.',
  })
  .define({
    name: TIME_PRECISION_CONFIG,
    type: 'STRING',
    defaultValue: 'adaptive',
    validator: CaseInsensitiveValidString.in('adaptive', 'adaptive_time_microseconds', 'connect'),
    importance: 'MEDIUM',
    group: EVENTS,
    documentation:
      "date/time/timestamp: adaptive (io.debezium.time.* by the column's precision), adaptive_time_microseconds (time always MicroTime), connect (Connect's Date, Time, Timestamp: milliseconds).",
  })
  .define({
    name: UNAVAILABLE_PLACEHOLDER_CONFIG,
    type: 'STRING',
    defaultValue: '__debezium_unavailable_value',
    importance: 'LOW',
    group: EVENTS,
    documentation:
      'Stands for a TOASTed value an update did not change (PostgreSQL does not send it).',
  })
  .define({
    name: HEARTBEAT_INTERVAL_CONFIG,
    type: 'INT',
    defaultValue: 0,
    validator: Range.atLeast(0),
    importance: 'MEDIUM',
    group: EVENTS,
    documentation:
      'When no captured change arrives for this long, a heartbeat record (topic.heartbeat.prefix.topic.prefix) carries the server WAL position as the offset, so the slot advances while tables are idle. 0: no heartbeats.',
  })
  .define({
    name: HEARTBEAT_ACTION_QUERY_CONFIG,
    type: 'STRING',
    defaultValue: null,
    importance: 'LOW',
    group: EVENTS,
    documentation:
      'A statement run at each heartbeat (e.g. an update of a heartbeat table), so that WAL of this database is written.',
  })
  .define({
    name: HEARTBEAT_TOPIC_PREFIX_CONFIG,
    type: 'STRING',
    defaultValue: '__debezium-heartbeat',
    validator: new NonEmptyString(),
    importance: 'LOW',
    group: EVENTS,
    documentation: "The heartbeat topic's prefix.",
  })
  .define({
    name: MAX_BATCH_SIZE_CONFIG,
    type: 'INT',
    defaultValue: 2048,
    validator: Range.atLeast(1),
    importance: 'MEDIUM',
    group: EVENTS,
    documentation: 'The most events per poll (and snapshot rows per query).',
  })
  .define({
    name: POLL_INTERVAL_CONFIG,
    type: 'INT',
    defaultValue: 500,
    validator: Range.between(1, 5_000),
    importance: 'LOW',
    group: EVENTS,
    documentation: 'How long a poll waits for changes before returning none.',
  });

/** The task config keys: the connector's plus {@link TASK_INDEX_CONFIG} and {@link TASK_COUNT_CONFIG}. */
export const POSTGRES_CDC_TASK_CONFIG_DEF: ConfigDef = new ConfigDef(POSTGRES_CDC_CONFIG_DEF)
  .define({
    name: TASK_INDEX_CONFIG,
    type: 'INT',
    defaultValue: 0,
    validator: Range.atLeast(0),
    importance: 'LOW',
    documentation: "This task's index (set by the connector).",
  })
  .define({
    name: TASK_COUNT_CONFIG,
    type: 'INT',
    defaultValue: 1,
    validator: Range.atLeast(1),
    importance: 'LOW',
    documentation: 'How many tasks the connector runs (set by the connector).',
  });
