/**
 * The verifiable source connector (`verifiable-source`): numbered records for soak and delivery
 * tests, taking the keys of Apache Kafka's `org.apache.kafka.connect.tools.VerifiableSourceConnector`
 * (a name it also answers to) and producing the same records; see `verifiable-source-task.ts`.
 */
import {
  type ConfigDef,
  type ConnectorContext,
  type ExactlyOnceSupport,
  IllegalStateError,
  SourceConnector,
  type SourcePartitionOffset,
} from 'serverless-connect/connect';
import {
  ID_CONFIG,
  VERIFIABLE_SOURCE_CONFIG_DEF,
  VERIFIABLE_SOURCE_VERSION,
} from './verifiable-source-config.js';
import {
  nextSeqnoAfter,
  parseVerifiableSourcePartition,
  type VerifiableSourceDeps,
  VerifiableSourceTask,
} from './verifiable-source-task.js';

/**
 * Generates exactly `tasks.max` task configs, each the connector config with `id` set to the
 * task's number (any `id` in the connector config is replaced), as Apache's connector does.
 * Supports exactly-once delivery (the tasks resume after their committed seqno); defines no
 * transaction boundaries of its own (use `transaction.boundary=poll` or `interval`).
 *
 * @example
 * PUT /connectors/soak/config
 * {"connector.class": "verifiable-source", "topic": "soak", "throughput": "1000", "tasks.max": "4"}
 */
export class VerifiableSourceConnector extends SourceConnector {
  readonly #deps: VerifiableSourceDeps;
  #props: Readonly<Record<string, string>> | null = null;

  constructor(deps: VerifiableSourceDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return VERIFIABLE_SOURCE_VERSION;
  }

  config(): ConfigDef {
    return VERIFIABLE_SOURCE_CONFIG_DEF;
  }

  /** Parses the config; throws ConfigError with Kafka's messages when it is invalid. */
  async start(props: Readonly<Record<string, string>>, _context: ConnectorContext): Promise<void> {
    VERIFIABLE_SOURCE_CONFIG_DEF.parse(props);
    this.#props = { ...props };
  }

  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    const props = this.#props;
    if (props === null) {
      throw new IllegalStateError('The verifiable source must be started before taskConfigs');
    }
    return Array.from({ length: maxTasks }, (_, id) => ({ ...props, [ID_CONFIG]: String(id) }));
  }

  async stop(): Promise<void> {
    this.#props = null;
  }

  createTask(): VerifiableSourceTask {
    return new VerifiableSourceTask(this.#deps);
  }

  override exactlyOnceSupport(_config: Readonly<Record<string, string>>): ExactlyOnceSupport {
    return 'SUPPORTED';
  }

  /**
   * Accepts offsets of its own shape (`{"id": n}` → `{"seqno": n}`) and resets; throws
   * DataError for any other, which a task could not resume from.
   */
  override async alterOffsets(
    _config: Readonly<Record<string, string>>,
    offsets: readonly SourcePartitionOffset[],
  ): Promise<boolean> {
    for (const { partition, offset } of offsets) {
      parseVerifiableSourcePartition(partition);
      nextSeqnoAfter(offset);
    }
    return true;
  }
}
