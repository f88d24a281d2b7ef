/**
 * The S3 source connector: reads the lines of the objects under a bucket prefix into Kafka
 * records (like Confluent's S3 source connector for line-based formats, and Kafka's
 * FileStreamSource for lines), with exactly-once support. See `s3-source-config.ts` for the
 * keys and `s3-source-task.ts` for partitions, offsets and records.
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
import { listAll } from './object-reader.js';
import {
  createS3SourceClient,
  parseS3SourceConfig,
  S3_SOURCE_CONFIG_DEF,
  S3_SOURCE_VERSION,
  type S3SourceConfig,
  s3SourceTaskConfigs,
} from './s3-source-config.js';
import {
  parseS3SourceOffset,
  parseS3SourcePartition,
  type S3SourceDeps,
  S3SourceTask,
} from './s3-source-task.js';

/**
 * Splits the prefix by its first-level "directories" (common prefixes under `s3.prefix` with
 * delimiter `/`), dealt round-robin over min(tasks.max, directories) tasks; the first task
 * also reads the objects directly under the prefix. With no directories, one task reads the
 * whole prefix. Each task config is the connector config plus `task.prefixes` and
 * `task.root.objects`. `taskConfigs` lists the bucket, so directories created later are
 * assigned at the next reconfiguration; objects added to assigned prefixes are found by the
 * tasks' own listings every `s3.poll.interval.ms`.
 *
 * Exactly-once: supported, since an offset (object, line) always denotes the same record.
 * Tasks do not define transaction boundaries.
 *
 * @example
 * const connector = new S3SourceConnector({ clock: { now: () => Date.now() } });
 * await connector.start({ 's3.bucket.name': 'logs', 's3.prefix': 'app/', topic: 'app-logs' }, ctx);
 * await connector.taskConfigs(2); // app/a/ and app/c/ to task 0, app/b/ to task 1
 */
export class S3SourceConnector extends SourceConnector {
  readonly #deps: S3SourceDeps;
  #props: Readonly<Record<string, string>> | null = null;
  #config: S3SourceConfig | null = null;

  constructor(deps: S3SourceDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return S3_SOURCE_VERSION;
  }

  config(): ConfigDef {
    return S3_SOURCE_CONFIG_DEF;
  }

  /**
   * Validates every key, then the cross-key rules (the access key id and the secret go
   * together), reporting a violation on the key that is missing.
   */
  override validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    const values = super.validate(props);
    if (values.some((v) => v.errors.length > 0)) return values;
    try {
      parseS3SourceConfig(props);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      values.find((v) => v.name === error.key)?.errors.push(error.message);
    }
    return values;
  }

  /** Parses the config; throws ConfigError with Kafka's messages when it is invalid. No I/O. */
  async start(props: Readonly<Record<string, string>>, _context: ConnectorContext): Promise<void> {
    this.#config = parseS3SourceConfig(props);
    this.#props = { ...props };
  }

  /**
   * Lists the first-level directories under the prefix and splits them over the tasks.
   * Rejects with RetriableError when S3 is unavailable, ConnectError when access is denied.
   */
  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    const props = this.#props;
    const config = this.#config;
    if (props === null || config === null) {
      throw new IllegalStateError('The S3 source connector must be started before taskConfigs');
    }
    const client = (this.#deps.createClient ?? createS3SourceClient)(config);
    try {
      const { commonPrefixes } = await listAll(client, {
        bucket: config.bucket,
        prefix: config.prefix,
        delimiter: '/',
      });
      return s3SourceTaskConfigs(props, config, commonPrefixes, maxTasks);
    } finally {
      client.destroy();
    }
  }

  async stop(): Promise<void> {
    this.#props = null;
    this.#config = null;
  }

  createTask(): S3SourceTask {
    return new S3SourceTask(this.#deps);
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
   * Accepts any well-formed offsets and resets: a task resumes each object after the stored
   * `position` (a reset reads the object again from its first line; `eof: true` skips it).
   * Throws DataError for a partition or offset that is not this connector's.
   */
  override async alterOffsets(
    _config: Readonly<Record<string, string>>,
    offsets: readonly SourcePartitionOffset[],
  ): Promise<boolean> {
    for (const { partition, offset } of offsets) {
      parseS3SourcePartition(partition);
      parseS3SourceOffset(offset);
    }
    return true;
  }
}
