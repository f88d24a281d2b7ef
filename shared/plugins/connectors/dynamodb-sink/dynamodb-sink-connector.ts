/**
 * The DynamoDB sink connector: writes Kafka records to DynamoDB items, one item per key, with
 * conditional writes that make redelivery converge (see `dynamodb-sink-task.ts`). Keys are in
 * `dynamodb-sink-config.ts`.
 */
import {
  type ConfigDef,
  ConfigError,
  type ConfigValue,
  type ConnectorContext,
  IllegalStateError,
  SinkConnector,
} from 'serverless-connect/connect';
import {
  DYNAMODB_SINK_CONFIG_DEF,
  DYNAMODB_SINK_VERSION,
  parseDynamoDbSinkConfig,
} from './dynamodb-sink-config.js';
import { type DynamoDbSinkDeps, DynamoDbSinkTask } from './dynamodb-sink-task.js';

/**
 * Every task gets the connector's config: the event source mapping spreads the partitions, and
 * items are keyed, so tasks need no split of their own.
 *
 * @example
 * const connector = new DynamoDbSinkConnector(deps);
 * await connector.start({ topics: 'orders', 'table.name.format': 'orders' }, ctx);
 * await connector.taskConfigs(2); // two copies of the config
 */
export class DynamoDbSinkConnector extends SinkConnector {
  readonly #deps: DynamoDbSinkDeps;
  #props: Readonly<Record<string, string>> | null = null;

  constructor(deps: DynamoDbSinkDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return DYNAMODB_SINK_VERSION;
  }

  config(): ConfigDef {
    return DYNAMODB_SINK_CONFIG_DEF;
  }

  /**
   * Validates every key, then the cross-key rules (credentials set together, distinct
   * `pk.fields`, deletes only with `pk.mode=record_key`), reported on the offending key.
   */
  override validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    const values = super.validate(props);
    if (values.some((v) => v.errors.length > 0)) return values;
    try {
      parseDynamoDbSinkConfig(props);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      values.find((v) => v.name === error.key)?.errors.push(error.message);
    }
    return values;
  }

  /** Parses the config; throws ConfigError with Kafka's messages when it is invalid. No I/O. */
  async start(props: Readonly<Record<string, string>>, _context: ConnectorContext): Promise<void> {
    parseDynamoDbSinkConfig(props);
    this.#props = { ...props };
  }

  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    const props = this.#props;
    if (props === null) {
      throw new IllegalStateError('The DynamoDB sink connector must be started before taskConfigs');
    }
    return Array.from({ length: Math.max(1, maxTasks) }, () => ({ ...props }));
  }

  async stop(): Promise<void> {
    this.#props = null;
  }

  createTask(): DynamoDbSinkTask {
    return new DynamoDbSinkTask(this.#deps);
  }

  /** Accepts any offsets: items carry their own coordinates, so a rewind simply rewrites them. */
  override async alterOffsets(
    _config: Readonly<Record<string, string>>,
    _offsets: ReadonlyMap<string, number | null>,
  ): Promise<boolean> {
    return true;
  }
}
