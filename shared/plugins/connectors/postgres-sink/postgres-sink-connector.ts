/**
 * The PostgreSQL sink connector: writes Kafka records to PostgreSQL tables exactly once (see
 * postgres-sink-task.ts). Keys are in postgres-sink-config.ts.
 */
import {
  type ConfigDef,
  ConfigError,
  type ConfigValue,
  type ConnectorContext,
  IllegalStateError,
  parseTopicPartitionKey,
  SinkConnector,
} from 'serverless-connect/connect';
import { inTransaction, run } from '../postgres/pg-client.js';
import {
  deleteConnectorOffsetsStatement,
  deleteOffsetRowStatement,
  setOffsetRowStatement,
} from './offsets-table.js';
import {
  POSTGRES_SINK_CONFIG_DEF,
  POSTGRES_SINK_VERSION,
  parsePostgresSinkConfig,
} from './postgres-sink-config.js';
import {
  connectorNameOf,
  ensureOffsetsTable,
  type PostgresSinkDeps,
  PostgresSinkTask,
} from './postgres-sink-task.js';

/**
 * Every task gets the connector's config: the event source mappings spread the partitions, and
 * each partition commits under its own offsets row.
 *
 * @example
 * const connector = new PostgresSinkConnector(deps);
 * await connector.start({ name: 'orders-pg', topics: 'orders',
 *   'connection.url': 'jdbc:postgresql://db:5432/shop', 'pk.mode': 'record_key',
 *   'pk.fields': 'id', 'insert.mode': 'upsert', 'auto.create': 'true' }, ctx);
 * await connector.taskConfigs(2); // two copies of the config
 */
export class PostgresSinkConnector extends SinkConnector {
  #props: Readonly<Record<string, string>> | null = null;

  constructor(private readonly deps: PostgresSinkDeps) {
    super();
  }

  version(): string {
    return POSTGRES_SINK_VERSION;
  }

  config(): ConfigDef {
    return POSTGRES_SINK_CONFIG_DEF;
  }

  /**
   * Validates every key, then the cross-key rules (a primary key for upsert and update, deletes
   * only with `pk.mode=record_key`, three column names for `pk.mode=kafka`, a PostgreSQL URL),
   * reported on the offending key.
   */
  override validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    const values = super.validate(props);
    if (values.some((v) => v.errors.length > 0)) return values;
    try {
      parsePostgresSinkConfig(props);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      values.find((v) => v.name === error.key)?.errors.push(error.message);
    }
    return values;
  }

  /** Parses the config; throws ConfigError with Kafka's messages when it is invalid. No I/O. */
  async start(props: Readonly<Record<string, string>>, _context: ConnectorContext): Promise<void> {
    parsePostgresSinkConfig(props);
    this.#props = { ...props };
  }

  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    const props = this.#props;
    if (props === null) {
      throw new IllegalStateError(
        'The PostgreSQL sink connector must be started before taskConfigs',
      );
    }
    return Array.from({ length: Math.max(1, maxTasks) }, () => ({ ...props }));
  }

  async stop(): Promise<void> {
    this.#props = null;
  }

  createTask(): PostgresSinkTask {
    return new PostgresSinkTask(this.deps);
  }

  /**
   * Moves the offsets table along with the runtime's sink offsets (the table decides what the
   * tasks skip): an offset sets the partition's row, `null` deletes it, and a reset (every value
   * `null`) deletes every row of the connector. One transaction.
   */
  override async alterOffsets(
    config: Readonly<Record<string, string>>,
    offsets: ReadonlyMap<string, number | null>,
  ): Promise<boolean> {
    const parsed = parsePostgresSinkConfig(config);
    const connector = connectorNameOf(config);
    const lease = this.deps.pools.acquire(parsed.connection);
    try {
      await ensureOffsetsTable(lease.pool, parsed.offsetsTable);
      await inTransaction(lease.pool, 'altering the offsets', async (client) => {
        const table = parsed.offsetsTable;
        if ([...offsets.values()].every((o) => o === null)) {
          await run(client, deleteConnectorOffsetsStatement(table, connector));
        }
        for (const [id, offset] of offsets) {
          const key = { connector, ...parseTopicPartitionKey(id) };
          await run(
            client,
            offset === null
              ? deleteOffsetRowStatement(table, key)
              : setOffsetRowStatement(table, key, offset),
          );
        }
      });
    } finally {
      await lease.release();
    }
    return true;
  }
}
