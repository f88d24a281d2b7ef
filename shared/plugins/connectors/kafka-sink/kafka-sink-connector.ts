/**
 * The Kafka sink connector: replicates (and, with transformations, reshapes) topics into other
 * topics of the same cluster, exactly once per input partition (see kafka-sink-task.ts). Keys are
 * in kafka-sink-config.ts.
 */
import {
  type ConfigDef,
  ConfigError,
  type ConfigValue,
  type ConnectorContext,
  IllegalStateError,
  SinkConnector,
} from 'serverless-connect/connect';
import { alterGroupOffsets, type GroupOffsetsDeps } from './group-offsets.js';
import {
  checkRenameFormat,
  KAFKA_SINK_CONFIG_DEF,
  KAFKA_SINK_VERSION,
  parseKafkaSinkConfig,
  TOPIC_RENAME_FORMAT_CONFIG,
} from './kafka-sink-config.js';
import { KafkaSinkTask, type KafkaSinkTaskDeps } from './kafka-sink-task.js';

export type KafkaSinkConnectorDeps = KafkaSinkTaskDeps & GroupOffsetsDeps;

const DLQ_TOPIC = 'errors.deadletterqueue.topic.name';

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/** The rename format check of `props` (see {@link checkRenameFormat}). */
function checkFormat(props: Readonly<Record<string, string>>): void {
  const regex = (props['topics.regex'] ?? '').trim();
  checkRenameFormat(
    parseKafkaSinkConfig(props).topicRenameFormat,
    { topics: list(props.topics), topicsRegex: regex === '' ? undefined : regex },
    list(props.transforms).length > 0,
  );
}

/**
 * Every task gets the connector's config: the event source mappings spread the partitions, and
 * each task writes its partitions with their own transactional producers.
 *
 * @example
 * const connector = new KafkaSinkConnector(deps);
 * await connector.start({ name: 'mirror', topics: 'orders',
 *   'topic.rename.format': '${topic}.replica' }, ctx);
 * await connector.taskConfigs(2); // two copies of the config
 */
export class KafkaSinkConnector extends SinkConnector {
  #props: Readonly<Record<string, string>> | null = null;

  constructor(private readonly deps: KafkaSinkConnectorDeps) {
    super();
  }

  version(): string {
    return KAFKA_SINK_VERSION;
  }

  config(): ConfigDef {
    return KAFKA_SINK_CONFIG_DEF;
  }

  /**
   * Validates every key, then refuses a `topic.rename.format` that writes a consumed topic (a
   * loop) and `producer.override.*` settings that break the guarantee (e.g. `acks` other than
   * all; the framework checks them itself when a dead letter queue is set).
   */
  override validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    const values = super.validate(props);
    if ((props[DLQ_TOPIC] ?? '').trim() === '') {
      values.push(...this.deps.kafka.producerOverrideErrors(props));
    }
    if (values.some((v) => v.errors.length > 0)) return values;
    try {
      checkFormat(props);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      values.find((v) => v.name === TOPIC_RENAME_FORMAT_CONFIG)?.errors.push(error.message);
    }
    return values;
  }

  /** Parses and checks the config; throws ConfigError when it is invalid. No I/O. */
  async start(props: Readonly<Record<string, string>>, _context: ConnectorContext): Promise<void> {
    checkFormat(props);
    this.#props = { ...props };
  }

  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    const props = this.#props;
    if (props === null) {
      throw new IllegalStateError('The Kafka sink connector must be started before taskConfigs');
    }
    return Array.from({ length: Math.max(1, maxTasks) }, () => ({ ...props }));
  }

  async stop(): Promise<void> {
    this.#props = null;
  }

  createTask(): KafkaSinkTask {
    return new KafkaSinkTask(this.deps);
  }

  /**
   * Moves the connector's consumer group to the new offsets too (a reset sets them to 0), so the
   * tasks skip exactly what precedes them; see {@link alterGroupOffsets}.
   */
  override async alterOffsets(
    config: Readonly<Record<string, string>>,
    offsets: ReadonlyMap<string, number | null>,
  ): Promise<boolean> {
    await alterGroupOffsets(this.deps, config, offsets);
    return true;
  }
}
