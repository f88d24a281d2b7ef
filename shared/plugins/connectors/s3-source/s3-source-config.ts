/**
 * The S3 source connector's configuration: the keys (a {@link ConfigDef} with docs, serving
 * both the runtime and `…/config/validate`), their parsed form, the task keys that split the
 * work, and the AWS SDK client built from a config.
 */
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import {
  CaseInsensitiveValidString,
  ConfigDef,
  ConfigError,
  NonEmptyString,
  Range,
} from 'serverless-connect/connect';
import type { AwsCredentials } from '../aws-connection-config.js';
import type { S3ClientHook } from '../s3-client-hook.js';
import {
  type S3Connection,
  s3ClientSettings,
  s3ConnectionConfigDef,
  s3ConnectionOf,
} from '../s3-connection-config.js';
import { type FileCompression, type S3SourceClient, sdkS3SourceClient } from './object-reader.js';

// The S3 connection keys (region, endpoint, path style, credentials), shared by both S3 connectors.
export * from '../s3-connection-config.js';

/** The version of the S3 source connector and task. */
export const S3_SOURCE_VERSION = '0.1.0';

export const S3_BUCKET_CONFIG = 's3.bucket.name';
export const S3_PREFIX_CONFIG = 's3.prefix';
export const FORMAT_CONFIG = 'format';
export const TOPIC_CONFIG = 'topic';
export const BATCH_MAX_ROWS_CONFIG = 'batch.max.rows';
export const FILE_COMPRESSION_CONFIG = 'file.compression';
export const S3_POLL_INTERVAL_CONFIG = 's3.poll.interval.ms';
/** Task config only: the prefixes this task lists recursively (see {@link encodePrefixes}). */
export const TASK_PREFIXES_CONFIG = 'task.prefixes';
/** Task config only: whether this task also reads the objects directly under `s3.prefix`. */
export const TASK_ROOT_OBJECTS_CONFIG = 'task.root.objects';

/** How object lines become record values. */
export type S3SourceFormat = 'text' | 'jsonl';
export const S3_SOURCE_FORMATS: readonly S3SourceFormat[] = Object.freeze(['text', 'jsonl']);
export const FILE_COMPRESSIONS: readonly FileCompression[] = Object.freeze([
  'none',
  'gzip',
  'auto',
]);

const CONNECTION_GROUP = 'S3';
const RECORDS_GROUP = 'Records';

/** The connector's own keys, in documentation order. */
export const S3_SOURCE_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: S3_BUCKET_CONFIG,
    type: 'STRING',
    validator: new NonEmptyString(),
    importance: 'HIGH',
    group: CONNECTION_GROUP,
    documentation: 'The S3 bucket to read objects from.',
  })
  .define({
    name: S3_PREFIX_CONFIG,
    type: 'STRING',
    defaultValue: '',
    importance: 'HIGH',
    group: CONNECTION_GROUP,
    documentation:
      "Only objects whose key starts with this prefix are read (e.g. 'logs/'). The first-level " +
      "'directories' below it (keys grouped by the next '/') are spread round-robin over the " +
      'tasks; with no directories, one task reads the whole prefix. New directories are assigned ' +
      'when the connector reconfigures its tasks.',
  })
  .withAll(s3ConnectionConfigDef(CONNECTION_GROUP))
  .define({
    name: TOPIC_CONFIG,
    type: 'STRING',
    validator: new NonEmptyString(),
    importance: 'HIGH',
    group: RECORDS_GROUP,
    documentation: 'The Kafka topic every record is written to.',
  })
  .define({
    name: FORMAT_CONFIG,
    type: 'STRING',
    defaultValue: 'text',
    validator: CaseInsensitiveValidString.in(...S3_SOURCE_FORMATS),
    importance: 'HIGH',
    group: RECORDS_GROUP,
    documentation:
      'How each line of an object becomes a record value. text: the line as a string ' +
      '(optional string schema; empty lines are records too). jsonl: the line parsed as JSON ' +
      'into a schemaless value (objects, arrays, strings, numbers, booleans, null); blank ' +
      'lines are skipped and a line that is not JSON fails with a data error.',
  })
  .define({
    name: FILE_COMPRESSION_CONFIG,
    type: 'STRING',
    defaultValue: 'auto',
    validator: CaseInsensitiveValidString.in(...FILE_COMPRESSIONS),
    importance: 'MEDIUM',
    group: RECORDS_GROUP,
    documentation:
      "How objects are compressed: none, gzip, or auto (gzip when the key ends with '.gz').",
  })
  .define({
    name: BATCH_MAX_ROWS_CONFIG,
    type: 'INT',
    defaultValue: 500,
    validator: Range.atLeast(1),
    importance: 'LOW',
    group: RECORDS_GROUP,
    documentation: 'The most records one poll returns.',
  })
  .define({
    name: S3_POLL_INTERVAL_CONFIG,
    type: 'LONG',
    defaultValue: 10_000,
    validator: Range.atLeast(0),
    importance: 'LOW',
    group: RECORDS_GROUP,
    documentation:
      "Milliseconds between two listings of a task's prefixes for new objects. Every listing " +
      'lists all keys under the prefixes and skips the objects already read to the end.',
  });

/** The task config keys: the connector's plus {@link TASK_PREFIXES_CONFIG} and {@link TASK_ROOT_OBJECTS_CONFIG}. */
export const S3_SOURCE_TASK_CONFIG_DEF: ConfigDef = new ConfigDef(S3_SOURCE_CONFIG_DEF)
  .define({
    name: TASK_PREFIXES_CONFIG,
    type: 'STRING',
    defaultValue: null,
    importance: 'HIGH',
    documentation:
      "The key prefixes this task lists recursively, comma-separated, with '%', ',' and " +
      'characters up to U+0020 percent-encoded (set by the connector). Unset: s3.prefix.',
  })
  .define({
    name: TASK_ROOT_OBJECTS_CONFIG,
    type: 'BOOLEAN',
    defaultValue: false,
    importance: 'HIGH',
    documentation:
      "Whether this task also reads the objects directly under s3.prefix (no '/' after it); " +
      'set on the first task when the work is split by directory.',
  });

/** Explicit credentials for the S3 client. */
export type S3Credentials = AwsCredentials;

/** The parsed connector config: the S3 connection (region, endpoint, credentials) and the rest. */
export interface S3SourceConfig extends S3Connection {
  readonly bucket: string;
  readonly prefix: string;
  readonly topic: string;
  readonly format: S3SourceFormat;
  readonly compression: FileCompression;
  readonly batchMaxRows: number;
  readonly pollIntervalMs: number;
}

/** The parsed task config: the connector config plus what this task lists. */
export interface S3SourceTaskConfig extends S3SourceConfig {
  /** Prefixes listed recursively; distinct, in the order given. */
  readonly prefixes: readonly string[];
  /** Also list the objects directly under {@link S3SourceConfig.prefix}. */
  readonly rootObjects: boolean;
}

function oneOf<T extends string>(values: readonly T[], value: unknown): T {
  const lower = String(value).toLowerCase();
  return values.find((v) => v === lower) ?? (values[0] as T);
}

function fromParsed(values: Record<string, unknown>): S3SourceConfig {
  return {
    ...s3ConnectionOf(values),
    bucket: String(values[S3_BUCKET_CONFIG]),
    prefix: String(values[S3_PREFIX_CONFIG] ?? ''),
    topic: String(values[TOPIC_CONFIG]),
    format: oneOf(S3_SOURCE_FORMATS, values[FORMAT_CONFIG]),
    compression: oneOf(FILE_COMPRESSIONS, values[FILE_COMPRESSION_CONFIG]),
    batchMaxRows: Number(values[BATCH_MAX_ROWS_CONFIG]),
    pollIntervalMs: Number(values[S3_POLL_INTERVAL_CONFIG]),
  };
}

/** Parses a connector config. Throws ConfigError with Kafka's messages. */
export function parseS3SourceConfig(props: Readonly<Record<string, string>>): S3SourceConfig {
  return fromParsed(S3_SOURCE_CONFIG_DEF.parse(props));
}

/** Parses a task config. Throws ConfigError with Kafka's messages, or for a bad prefix list. */
export function parseS3SourceTaskConfig(
  props: Readonly<Record<string, string>>,
): S3SourceTaskConfig {
  const values = S3_SOURCE_TASK_CONFIG_DEF.parse(props);
  const config = fromParsed(values);
  const listed = values[TASK_PREFIXES_CONFIG] as string | null;
  const prefixes = listed === null ? [config.prefix] : decodePrefixes(listed);
  return {
    ...config,
    prefixes: [...new Set(prefixes)],
    rootObjects: values[TASK_ROOT_OBJECTS_CONFIG] === true,
  };
}

/** `%`, `,` and characters ≤ U+0020 (which the list syntax or trimming would lose). */
function needsEscape(char: string): boolean {
  return char === '%' || char === ',' || char.charCodeAt(0) <= 0x20;
}

/**
 * The {@link TASK_PREFIXES_CONFIG} value of `prefixes`: comma-separated, each with `%`, `,`
 * and characters ≤ U+0020 percent-encoded, so any S3 key prefix survives (`''` stays `''`).
 */
export function encodePrefixes(prefixes: readonly string[]): string {
  return prefixes
    .map((p) =>
      Array.from(p, (c) =>
        needsEscape(c) ? `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}` : c,
      ).join(''),
    )
    .join(',');
}

/** The inverse of {@link encodePrefixes}. Throws ConfigError on a malformed escape. */
export function decodePrefixes(value: string): string[] {
  return value.split(',').map((p) => {
    try {
      return decodeURIComponent(p);
    } catch (error) {
      throw new ConfigError(
        `Invalid value ${value} for configuration ${TASK_PREFIXES_CONFIG}: malformed percent-encoding in '${p}'`,
        TASK_PREFIXES_CONFIG,
        { cause: error },
      );
    }
  });
}

/**
 * The task configs for `maxTasks` given the first-level `directories` (common prefixes)
 * under the prefix: the directories sorted and dealt round-robin over
 * min(maxTasks, directories) tasks, the first task also reading the objects directly under
 * the prefix; with no directories, one task reading the whole prefix.
 */
export function s3SourceTaskConfigs(
  props: Readonly<Record<string, string>>,
  config: S3SourceConfig,
  directories: readonly string[],
  maxTasks: number,
): Record<string, string>[] {
  const sorted = [...new Set(directories)].sort();
  if (sorted.length === 0) {
    return [
      {
        ...props,
        [TASK_PREFIXES_CONFIG]: encodePrefixes([config.prefix]),
        [TASK_ROOT_OBJECTS_CONFIG]: 'false',
      },
    ];
  }
  const tasks = Math.max(1, Math.min(maxTasks, sorted.length));
  const assigned: string[][] = Array.from({ length: tasks }, () => []);
  sorted.forEach((dir, i) => {
    assigned[i % tasks]?.push(dir);
  });
  return assigned.map((prefixes, i) => ({
    ...props,
    [TASK_PREFIXES_CONFIG]: encodePrefixes(prefixes),
    [TASK_ROOT_OBJECTS_CONFIG]: String(i === 0),
  }));
}

/**
 * The AWS SDK client settings of `config`: region, endpoint with path-style addressing, and
 * explicit credentials when configured (otherwise the default credential chain).
 */
export function s3ClientConfigOf(config: S3SourceConfig): S3ClientConfig {
  return s3ClientSettings(config);
}

/** A client for `config`'s bucket over the AWS SDK, given to `hook` first when there is one. */
export function createS3SourceClient(config: S3SourceConfig, hook?: S3ClientHook): S3SourceClient {
  const client = new S3Client(s3ClientConfigOf(config));
  hook?.(client);
  return sdkS3SourceClient(client);
}
