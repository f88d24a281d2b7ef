/**
 * The DynamoDB Streams source connector: streams the item-level changes of a DynamoDB table
 * (INSERT, MODIFY, REMOVE with keys and images) into Kafka, exactly once with the runtime's
 * exactly-once protocol. See `dynamodb-streams-config.ts` for the keys and
 * `dynamodb-streams-source-task.ts` for records, offsets and shard lineage.
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
import {
  DYNAMODB_STREAMS_CONFIG_DEF,
  DYNAMODB_STREAMS_SOURCE_VERSION,
  dynamoDbStreamsTaskConfigs,
  parseDynamoDbStreamsConfig,
} from './dynamodb-streams-config.js';
import { parseShardOffset, parseShardPartition } from './dynamodb-streams-offsets.js';
import {
  type DynamoDbStreamsSourceDeps,
  DynamoDbStreamsSourceTask,
} from './dynamodb-streams-source-task.js';

/**
 * Splits the stream's shards over `tasks.max` tasks by shard-id hash: each task config is the
 * connector config plus `task.index` and `task.count`, so the configs never change as shards
 * roll over (no reconfiguration, no generation bump) and a shard never moves between tasks
 * unless `tasks.max` changes. Each task lists the shards itself and reads its own, a child only
 * after its parent is complete (lineage; see the task).
 *
 * Exactly-once: supported: a shard's sequence numbers never change, so resuming
 * AFTER_SEQUENCE_NUMBER of the committed offset neither repeats nor skips a record. Tasks do
 * not define transaction boundaries.
 *
 * @example
 * const connector = new DynamoDbStreamsSourceConnector({ clock: { now: () => Date.now() } });
 * await connector.start({ 'table.name': 'orders', topic: 'cdc.${table}' }, ctx);
 * await connector.taskConfigs(2); // two configs, task.index 0 and 1 of task.count 2
 */
export class DynamoDbStreamsSourceConnector extends SourceConnector {
  readonly #deps: DynamoDbStreamsSourceDeps;
  #props: Readonly<Record<string, string>> | null = null;

  constructor(deps: DynamoDbStreamsSourceDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return DYNAMODB_STREAMS_SOURCE_VERSION;
  }

  config(): ConfigDef {
    return DYNAMODB_STREAMS_CONFIG_DEF;
  }

  /** Validates every key, then the cross-key rules (a table or stream; key id with secret). */
  override validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    const values = super.validate(props);
    if (values.some((v) => v.errors.length > 0)) return values;
    try {
      parseDynamoDbStreamsConfig(props);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      values.find((v) => v.name === error.key)?.errors.push(error.message);
    }
    return values;
  }

  /** Parses the config; throws ConfigError with Kafka's messages when it is invalid. No I/O. */
  async start(props: Readonly<Record<string, string>>, _context: ConnectorContext): Promise<void> {
    parseDynamoDbStreamsConfig(props);
    this.#props = { ...props };
  }

  /** `maxTasks` task configs (no I/O): see the class comment. */
  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    const props = this.#props;
    if (props === null) {
      throw new IllegalStateError(
        'The DynamoDB Streams source connector must be started before taskConfigs',
      );
    }
    return dynamoDbStreamsTaskConfigs(props, maxTasks);
  }

  async stop(): Promise<void> {
    this.#props = null;
  }

  createTask(): DynamoDbStreamsSourceTask {
    return new DynamoDbStreamsSourceTask(this.#deps);
  }

  override exactlyOnceSupport(_config: Readonly<Record<string, string>>): ExactlyOnceSupport {
    return 'SUPPORTED';
  }

  override canDefineTransactionBoundaries(
    _config: Readonly<Record<string, string>>,
  ): ConnectorTransactionBoundaries {
    return 'UNSUPPORTED';
  }

  /**
   * Accepts well-formed offsets and resets: a shard resumes after the stored sequence number
   * (`closed: true` marks it complete; a reset reads it from start.position). Throws DataError
   * for a partition or offset that is not this connector's.
   */
  override async alterOffsets(
    _config: Readonly<Record<string, string>>,
    offsets: readonly SourcePartitionOffset[],
  ): Promise<boolean> {
    for (const { partition, offset } of offsets) {
      parseShardPartition(partition);
      parseShardOffset(offset);
    }
    return true;
  }
}
