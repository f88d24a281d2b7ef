/**
 * The S3 sink connector: writes Kafka records to S3 objects named by their Kafka coordinates,
 * exactly once under the event source mapping's at-least-once redelivery (like Confluent's S3
 * sink connector, with offset-aligned objects; see `README.md` beside this file). Keys:
 * `s3-sink-config-def.ts`; the task: `s3-sink-task.ts`.
 */
import {
  type ConfigDef,
  ConfigError,
  type ConfigValue,
  type ConnectorContext,
  IllegalStateError,
  SinkConnector,
} from 'serverless-connect/connect';
import { unsupportedKeyErrors } from '../peer-keys.js';
import { CONFLUENT_S3_SINK } from './confluent-keys.js';
import { parseS3SinkConfig, S3_SINK_CONFIG_DEF, S3_SINK_VERSION } from './s3-sink-config.js';
import { type S3SinkDeps, S3SinkTask } from './s3-sink-task.js';

/**
 * Every task gets the connector's config (partitions are assigned by the event source
 * mapping, not by the connector). `start` only parses the config: no I/O.
 *
 * Exactly-once object naming: the object of a record is
 * `<topics.dir>/<topic>/<encodedPartition>/<topic>+<partition>+<bucketStart>.<ext>`, where
 * `bucketStart = floor(offset / flush.size) * flush.size` (20 digits) of the offset it was
 * consumed at. Each write reads the object's `last-offset` metadata, keeps its content,
 * appends only the records above it, and writes it back conditioned on the ETag read. Since an
 * offset always carries the same record, any redelivery (any batch boundaries, a crash
 * anywhere) converges to the objects of one clean pass, each record exactly once.
 * Deviations from Confluent: `flush.size` bounds an object's offset range (fewer records when
 * offsets have gaps), objects rotate only at bucket boundaries, and exactly-once needs the
 * `Record` or `RecordField` timestamp extractor (with `Wallclock`, paths depend on when a
 * record is written). Details in `README.md` beside this file.
 *
 * @example
 * const connector = new S3SinkConnector({ clock: { now: () => Date.now() } });
 * await connector.start({ topics: 'orders', 's3.bucket.name': 'lake', 'flush.size': '1000',
 *   'format.class': 'io.confluent.connect.s3.format.json.JsonFormat' }, ctx);
 * await connector.taskConfigs(2); // two copies of the config
 */
export class S3SinkConnector extends SinkConnector {
  readonly #deps: S3SinkDeps;
  #props: Readonly<Record<string, string>> | null = null;

  constructor(deps: S3SinkDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return S3_SINK_VERSION;
  }

  config(): ConfigDef {
    return S3_SINK_CONFIG_DEF;
  }

  /**
   * Validates every key, then the rules between keys (credentials together; the time-based
   * partitioner's duration, path format, locale and timezone; field names for the field
   * partitioner), reporting a violation on the key it names; then refuses the keys of
   * Confluent's S3 sink that this connector does not support (`confluent-keys.ts`), each on
   * its own key.
   */
  override validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    const values = super.validate(props);
    const unsupported = unsupportedKeyErrors(CONFLUENT_S3_SINK, props);
    if (values.some((v) => v.errors.length > 0)) return [...values, ...unsupported];
    try {
      parseS3SinkConfig(props);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      values.find((v) => v.name === error.key)?.errors.push(error.message);
    }
    return [...values, ...unsupported];
  }

  /** Parses the config; throws ConfigError with Kafka's messages when it is invalid. */
  async start(props: Readonly<Record<string, string>>, _context: ConnectorContext): Promise<void> {
    parseS3SinkConfig(props);
    this.#props = { ...props };
  }

  /** `maxTasks` copies of the connector config. */
  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    const props = this.#props;
    if (props === null) {
      throw new IllegalStateError('The S3 sink connector must be started before taskConfigs');
    }
    return Array.from({ length: Math.max(1, maxTasks) }, () => ({ ...props }));
  }

  async stop(): Promise<void> {
    this.#props = null;
  }

  createTask(): S3SinkTask {
    return new S3SinkTask(this.#deps);
  }

  /**
   * Accepts any offsets: objects are keyed by offset, so consuming from another offset
   * writes (or appends to) the objects of those offsets. Rewinding below records already
   * written does not duplicate them (they are at or below their object's `last-offset`).
   */
  override async alterOffsets(
    _config: Readonly<Record<string, string>>,
    _offsets: ReadonlyMap<string, number | null>,
  ): Promise<boolean> {
    return true;
  }
}
