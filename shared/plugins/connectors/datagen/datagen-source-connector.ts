/**
 * The datagen source connector: generates deterministic test data (like Confluent's
 * kafka-connect-datagen) for tests, the demo and benchmarks, with exactly-once support.
 * See `datagen-config.ts` for the keys and `quickstarts.ts` for the records.
 */
import {
  type ConfigDef,
  type ConnectorContext,
  type ConnectorTransactionBoundaries,
  type ExactlyOnceSupport,
  IllegalStateError,
  SourceConnector,
  type SourcePartitionOffset,
} from 'serverless-connect/connect';
import { unsupportedKeyErrors } from '../peer-keys.js';
import { CONFLUENT_DATAGEN } from './confluent-keys.js';
import {
  DATAGEN_CONFIG_DEF,
  DATAGEN_VERSION,
  type DatagenConfig,
  datagenTaskConfigs,
  parseDatagenConfig,
} from './datagen-config.js';
import {
  type DatagenDeps,
  DatagenSourceTask,
  parseDatagenSourceOffset,
  parseDatagenSourcePartition,
} from './datagen-source-task.js';

/**
 * Generates `source.partitions` independent sequences of records, spread round-robin over
 * min(tasks.max, source.partitions) tasks. Every task config is the connector config plus
 * `task.partitions`. Supports exactly-once delivery and task-defined transaction
 * boundaries (`transaction.records`), and accepts any well-formed offsets.
 *
 * @example
 * const connector = new DatagenSourceConnector({ clock: systemClock });
 * await connector.start({ 'kafka.topic': 'orders', quickstart: 'orders', 'source.partitions': '4' }, ctx);
 * await connector.taskConfigs(2); // task.partitions "0,2" and "1,3"
 */
export class DatagenSourceConnector extends SourceConnector {
  readonly #deps: DatagenDeps;
  #props: Readonly<Record<string, string>> | null = null;
  #config: DatagenConfig | null = null;

  constructor(deps: DatagenDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return DATAGEN_VERSION;
  }

  config(): ConfigDef {
    return DATAGEN_CONFIG_DEF;
  }

  /**
   * Validates every key, then refuses the keys of Confluent's datagen that this connector does
   * not support (`confluent-keys.ts`), each on its own key.
   */
  override validate(props: Readonly<Record<string, string>>) {
    return [...super.validate(props), ...unsupportedKeyErrors(CONFLUENT_DATAGEN, props)];
  }

  /** Parses the config; throws ConfigError with Kafka's messages when it is invalid. */
  async start(props: Readonly<Record<string, string>>, _context: ConnectorContext): Promise<void> {
    this.#config = parseDatagenConfig(props);
    this.#props = { ...props };
  }

  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    if (this.#props === null || this.#config === null) {
      throw new IllegalStateError('The datagen connector must be started before taskConfigs');
    }
    return datagenTaskConfigs(this.#props, this.#config, maxTasks);
  }

  async stop(): Promise<void> {
    this.#props = null;
    this.#config = null;
  }

  createTask(): DatagenSourceTask {
    return new DatagenSourceTask(this.#deps);
  }

  override exactlyOnceSupport(_config: Readonly<Record<string, string>>): ExactlyOnceSupport {
    return 'SUPPORTED';
  }

  override canDefineTransactionBoundaries(
    _config: Readonly<Record<string, string>>,
  ): ConnectorTransactionBoundaries {
    return 'SUPPORTED';
  }

  /**
   * Accepts any offsets and resets: a task resumes after whatever seq is stored. Throws
   * DataError for a partition or offset that is not datagen's (`{"datagen.partition": i}`,
   * `{"seq": n}`), since the task could not resume from it.
   */
  override async alterOffsets(
    _config: Readonly<Record<string, string>>,
    offsets: readonly SourcePartitionOffset[],
  ): Promise<boolean> {
    for (const { partition, offset } of offsets) {
      parseDatagenSourcePartition(partition);
      parseDatagenSourceOffset(offset);
    }
    return true;
  }
}
