/**
 * The PostgreSQL source connector: copies tables (or a custom query) into Kafka by querying
 * them (Confluent's JDBC source for PostgreSQL), exactly once with the runtime's exactly-once
 * protocol. Keys: postgres-source-config.ts; records and offsets: postgres-source-task.ts.
 */
import {
  type ConfigDef,
  ConfigError,
  type ConfigValue,
  type ConnectorContext,
  type ConnectorTransactionBoundaries,
  type ExactlyOnceSupport,
  IllegalStateError,
  SourceConnector,
  type SourcePartitionOffset,
} from 'serverless-connect/connect';
import { toConnectError } from '../postgres/pg-client.js';
import {
  MODE_CONFIG,
  POSTGRES_SOURCE_CONFIG_DEF,
  POSTGRES_SOURCE_VERSION,
  type PostgresSourceConfig,
  parsePostgresSourceConfig,
} from './postgres-source-config.js';
import { type PostgresSourceDeps, PostgresSourceTask } from './postgres-source-task.js';
import {
  BULK_SNAPSHOT_FIELD,
  checkPartition,
  parsePosition,
  type SourceTable,
} from './source-offsets.js';
import {
  checkDistinctNames,
  encodeTables,
  filterTables,
  groupTables,
  listTables,
  TABLES_TASK_CONFIG,
} from './table-discovery.js';

/**
 * Task configs: a custom query runs in one task; tables are listed (`table.types`,
 * `schema.pattern`, the table filters) and split into `min(tables, maxTasks)` contiguous
 * groups, each task config the connector config plus its `tables`. With no table selected,
 * one task that idles. While started, the connector lists the tables every
 * `table.poll.interval.ms` and asks for new task configs when they changed (the serverless
 * runtime also asks for task configs on every reconciliation).
 *
 * Exactly once: supported for incrementing, timestamp and timestamp+incrementing modes (a
 * task resumes at the committed offset of each table; see the task and README for the limits
 * of timestamps themselves); not for bulk, whose snapshots restart from the beginning.
 *
 * @example
 * const connector = new PostgresSourceConnector(deps);
 * await connector.start({ 'connection.url': 'jdbc:postgresql://db:5432/shop', mode: 'incrementing',
 *   'incrementing.column.name': 'id', 'table.whitelist': 'orders', 'topic.prefix': 'pg-' }, ctx);
 * await connector.taskConfigs(2); // one config: { ..., tables: '"public"."orders"' }
 */
export class PostgresSourceConnector extends SourceConnector {
  readonly #deps: PostgresSourceDeps;
  #props: Readonly<Record<string, string>> | null = null;
  #config: PostgresSourceConfig | null = null;
  #known: string | null = null;
  #monitor: ReturnType<typeof setInterval> | null = null;

  constructor(deps: PostgresSourceDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return POSTGRES_SOURCE_VERSION;
  }

  config(): ConfigDef {
    return POSTGRES_SOURCE_CONFIG_DEF;
  }

  /** Validates every key, then the cross-key rules, reported on the offending key. */
  override validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    const values = super.validate(props);
    if (values.some((v) => v.errors.length > 0)) return values;
    try {
      parsePostgresSourceConfig(props);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const target =
        values.find((v) => v.name === error.key) ?? values.find((v) => v.name === MODE_CONFIG);
      target?.errors.push(error.message);
    }
    return values;
  }

  /** Parses the config (ConfigError when invalid; no I/O) and starts watching the tables. */
  async start(props: Readonly<Record<string, string>>, context: ConnectorContext): Promise<void> {
    const config = parsePostgresSourceConfig(props);
    this.#props = { ...props };
    this.#config = config;
    if (config.query === null && config.tablePollIntervalMs > 0) {
      this.#monitor = setInterval(() => {
        void this.#checkTables(config, context);
      }, config.tablePollIntervalMs);
      this.#monitor.unref?.();
    }
  }

  async #checkTables(config: PostgresSourceConfig, context: ConnectorContext): Promise<void> {
    try {
      const names = encodeTables(await this.#tables(config));
      if (this.#known !== null && names !== this.#known && this.#monitor !== null) {
        context.requestTaskReconfiguration();
      }
      this.#known = names;
    } catch {
      // The database is unreachable for now: the next check (or reconciliation) tries again.
    }
  }

  async #tables(config: PostgresSourceConfig): Promise<SourceTable[]> {
    const lease = this.#deps.pools.acquire(config.connection);
    try {
      const client = await lease.pool.connect().catch((error: unknown) => {
        throw toConnectError(error, `connecting to ${config.connection.host}`);
      });
      try {
        const all = await listTables(client, config.tableTypes, config.schemaPattern);
        return filterTables(all, config.tableFilter, config.connection.database);
      } catch (error) {
        throw toConnectError(error, 'listing the tables');
      } finally {
        client.release();
      }
    } finally {
      await lease.release();
    }
  }

  /** See the class comment. Lists the tables (I/O) unless a custom query is configured. */
  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    const props = this.#props;
    const config = this.#config;
    if (props === null || config === null) {
      throw new IllegalStateError(
        'The PostgreSQL source connector must be started before taskConfigs',
      );
    }
    if (config.query !== null) return [{ ...props, [TABLES_TASK_CONFIG]: '' }];
    const tables = await this.#tables(config);
    checkDistinctNames(tables);
    this.#known = encodeTables(tables);
    if (tables.length === 0) return [{ ...props, [TABLES_TASK_CONFIG]: '' }];
    return groupTables(tables, Math.min(tables.length, Math.max(1, maxTasks))).map((group) => ({
      ...props,
      [TABLES_TASK_CONFIG]: encodeTables(group),
    }));
  }

  async stop(): Promise<void> {
    if (this.#monitor !== null) clearInterval(this.#monitor);
    this.#monitor = null;
    this.#props = null;
    this.#config = null;
  }

  createTask(): PostgresSourceTask {
    return new PostgresSourceTask(this.#deps);
  }

  /** SUPPORTED but in bulk mode; `null` for a config whose mode is not valid. */
  override exactlyOnceSupport(config: Readonly<Record<string, string>>): ExactlyOnceSupport | null {
    switch (config[MODE_CONFIG]) {
      case 'bulk':
        return 'UNSUPPORTED';
      case 'incrementing':
      case 'timestamp':
      case 'timestamp+incrementing':
        return 'SUPPORTED';
      default:
        return null;
    }
  }

  override canDefineTransactionBoundaries(
    _config: Readonly<Record<string, string>>,
  ): ConnectorTransactionBoundaries {
    return 'UNSUPPORTED';
  }

  /**
   * Accepts this connector's partitions (and Confluent's) with well-formed offsets, and
   * resets: a table without an offset is read from its first row. Throws DataError otherwise.
   */
  override async alterOffsets(
    _config: Readonly<Record<string, string>>,
    offsets: readonly SourcePartitionOffset[],
  ): Promise<boolean> {
    for (const { partition, offset } of offsets) {
      checkPartition(partition);
      if (offset !== null && offset[BULK_SNAPSHOT_FIELD] === undefined) parsePosition(offset);
    }
    return true;
  }
}
