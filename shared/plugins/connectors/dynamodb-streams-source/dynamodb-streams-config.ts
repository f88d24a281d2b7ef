/**
 * The DynamoDB Streams source connector's configuration: the keys (a {@link ConfigDef} serving
 * both the runtime and `…/config/validate`), their parsed form, the task keys that split the
 * shards, and the AWS SDK clients built from a config.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  CaseInsensitiveValidString,
  ConfigDef,
  ConfigError,
  NonEmptyString,
  Range,
} from 'serverless-connect/connect';
import {
  type AwsConnection,
  awsClientSettings,
  awsConnectionOf,
  awsCredentialsConfigDef,
} from '../aws-connection-config.js';
import { type DynamoDbStreamsClientPort, sdkStreamsClient } from './streams-client.js';

/** The AWS credential keys and type, defined in `../aws-connection-config.ts`. */
export type { AwsCredentials } from '../aws-connection-config.js';
export {
  AWS_ACCESS_KEY_ID_CONFIG,
  AWS_SECRET_ACCESS_KEY_CONFIG,
} from '../aws-connection-config.js';

/** The version of the DynamoDB Streams source connector and task. */
export const DYNAMODB_STREAMS_SOURCE_VERSION = '0.1.0';

export const TABLE_NAME_CONFIG = 'table.name';
export const STREAM_ARN_CONFIG = 'stream.arn';
export const REGION_CONFIG = 'dynamodb.region';
export const ENDPOINT_CONFIG = 'dynamodb.endpoint';
export const STREAMS_ENDPOINT_CONFIG = 'dynamodb.streams.endpoint';
export const TOPIC_CONFIG = 'topic';
export const POLL_MAX_RECORDS_CONFIG = 'poll.max.records';
export const START_POSITION_CONFIG = 'start.position';
export const SHARD_REFRESH_INTERVAL_CONFIG = 'shard.refresh.interval.ms';
/** Task config only: this task's index among `task.count` (set by the connector). */
export const TASK_INDEX_CONFIG = 'task.index';
/** Task config only: how many tasks share the shards (set by the connector). */
export const TASK_COUNT_CONFIG = 'task.count';

/** The placeholder of `topic` replaced by the table name. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the literal placeholder users write.
export const TABLE_PLACEHOLDER = '${table}';

/** Where a shard without committed offset is read from. */
export type StartPosition = 'TRIM_HORIZON' | 'LATEST';
export const START_POSITIONS: readonly StartPosition[] = Object.freeze(['TRIM_HORIZON', 'LATEST']);

const CONNECTION_GROUP = 'DynamoDB';
const RECORDS_GROUP = 'Records';

/** The connector's own keys, in documentation order. */
export const DYNAMODB_STREAMS_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: TABLE_NAME_CONFIG,
    type: 'STRING',
    defaultValue: null,
    validator: new NonEmptyString(),
    importance: 'HIGH',
    group: CONNECTION_GROUP,
    documentation:
      'The table whose stream is read (its latest stream, found with DescribeTable). Set this or stream.arn.',
  })
  .define({
    name: STREAM_ARN_CONFIG,
    type: 'STRING',
    defaultValue: null,
    validator: new NonEmptyString(),
    importance: 'HIGH',
    group: CONNECTION_GROUP,
    documentation:
      'The ARN of the stream to read; takes precedence over table.name (the table is the one the stream belongs to).',
  })
  .define({
    name: REGION_CONFIG,
    type: 'STRING',
    defaultValue: null,
    validator: new NonEmptyString(),
    importance: 'MEDIUM',
    group: CONNECTION_GROUP,
    documentation:
      "The AWS region of the table. Unset: the AWS SDK's default (AWS_REGION, which Lambda sets).",
  })
  .define({
    name: ENDPOINT_CONFIG,
    type: 'STRING',
    defaultValue: null,
    validator: new NonEmptyString(),
    importance: 'LOW',
    group: CONNECTION_GROUP,
    documentation:
      'The endpoint URL of a DynamoDB-compatible server (e.g. the local DynamoDB Streams stand-in). ' +
      'Unset: AWS DynamoDB of dynamodb.region.',
  })
  .define({
    name: STREAMS_ENDPOINT_CONFIG,
    type: 'STRING',
    defaultValue: null,
    validator: new NonEmptyString(),
    importance: 'LOW',
    group: CONNECTION_GROUP,
    documentation: 'The endpoint URL of the DynamoDB Streams API. Unset: dynamodb.endpoint.',
  })
  .withAll(awsCredentialsConfigDef(CONNECTION_GROUP, 'local servers'))
  .define({
    name: TOPIC_CONFIG,
    type: 'STRING',
    defaultValue: TABLE_PLACEHOLDER,
    validator: new NonEmptyString(),
    importance: 'HIGH',
    group: RECORDS_GROUP,
    documentation: `The Kafka topic of the change records; ${TABLE_PLACEHOLDER} is replaced by the table name.`,
  })
  .define({
    name: POLL_MAX_RECORDS_CONFIG,
    type: 'INT',
    defaultValue: 1000,
    validator: Range.between(1, 1000),
    importance: 'LOW',
    group: RECORDS_GROUP,
    documentation: 'The most records one poll returns (also the GetRecords Limit, at most 1000).',
  })
  .define({
    name: START_POSITION_CONFIG,
    type: 'STRING',
    defaultValue: 'TRIM_HORIZON',
    validator: CaseInsensitiveValidString.in(...START_POSITIONS),
    importance: 'MEDIUM',
    group: RECORDS_GROUP,
    documentation:
      'Where a shard without a committed offset is read from. TRIM_HORIZON: its oldest record ' +
      '(the last 24 hours). LATEST: only records written after the task first reads the shard ' +
      '(closed shards are skipped); like auto.offset.reset=latest, changes made while no offset ' +
      'is committed for an open shard can be skipped. The children of a shard that was read are ' +
      'always read from their start.',
  })
  .define({
    name: SHARD_REFRESH_INTERVAL_CONFIG,
    type: 'LONG',
    defaultValue: 10_000,
    validator: Range.atLeast(0),
    importance: 'LOW',
    group: RECORDS_GROUP,
    documentation:
      'Milliseconds between two DescribeStream calls that look for new shards. A shard that ' +
      'ends triggers one at once, to continue with its children.',
  });

/** The task config keys: the connector's plus {@link TASK_INDEX_CONFIG} and {@link TASK_COUNT_CONFIG}. */
export const DYNAMODB_STREAMS_TASK_CONFIG_DEF: ConfigDef = new ConfigDef(
  DYNAMODB_STREAMS_CONFIG_DEF,
)
  .define({
    name: TASK_INDEX_CONFIG,
    type: 'INT',
    defaultValue: 0,
    validator: Range.atLeast(0),
    importance: 'HIGH',
    documentation:
      "This task's index: it reads the shards whose id hashes to it (set by the connector).",
  })
  .define({
    name: TASK_COUNT_CONFIG,
    type: 'INT',
    defaultValue: 1,
    validator: Range.atLeast(1),
    importance: 'HIGH',
    documentation: 'How many tasks share the shards (set by the connector).',
  });

/**
 * The parsed connector config: the AWS connection of the DynamoDB API (`null` region: the SDK's
 * default) and the rest.
 */
export interface DynamoDbStreamsConfig extends AwsConnection {
  /** `null` when only {@link streamArn} is set. */
  readonly tableName: string | null;
  readonly streamArn: string | null;
  /** The DynamoDB Streams API's endpoint; `dynamodb.endpoint` when unset. */
  readonly streamsEndpoint: string | null;
  /** The topic template (may hold `${table}`). */
  readonly topic: string;
  readonly pollMaxRecords: number;
  readonly startPosition: StartPosition;
  readonly shardRefreshIntervalMs: number;
}

/** The parsed task config. */
export interface DynamoDbStreamsTaskConfig extends DynamoDbStreamsConfig {
  readonly taskIndex: number;
  readonly taskCount: number;
}

function fromParsed(values: Record<string, unknown>): DynamoDbStreamsConfig {
  const tableName = values[TABLE_NAME_CONFIG] as string | null;
  const streamArn = values[STREAM_ARN_CONFIG] as string | null;
  if (tableName === null && streamArn === null) {
    throw new ConfigError(
      `Missing required configuration "${TABLE_NAME_CONFIG}" which has no default value: set ${TABLE_NAME_CONFIG} or ${STREAM_ARN_CONFIG}.`,
      TABLE_NAME_CONFIG,
    );
  }
  const connection = awsConnectionOf(values, { region: REGION_CONFIG, endpoint: ENDPOINT_CONFIG });
  const position = String(values[START_POSITION_CONFIG]).toUpperCase();
  return {
    tableName,
    streamArn,
    ...connection,
    streamsEndpoint: (values[STREAMS_ENDPOINT_CONFIG] as string | null) ?? connection.endpoint,
    topic: String(values[TOPIC_CONFIG]),
    pollMaxRecords: Number(values[POLL_MAX_RECORDS_CONFIG]),
    startPosition: position === 'LATEST' ? 'LATEST' : 'TRIM_HORIZON',
    shardRefreshIntervalMs: Number(values[SHARD_REFRESH_INTERVAL_CONFIG]),
  };
}

/** Parses a connector config. Throws ConfigError with Kafka's messages. */
export function parseDynamoDbStreamsConfig(
  props: Readonly<Record<string, string>>,
): DynamoDbStreamsConfig {
  return fromParsed(DYNAMODB_STREAMS_CONFIG_DEF.parse(props));
}

/** Parses a task config. Throws ConfigError, also when `task.index` is not below `task.count`. */
export function parseDynamoDbStreamsTaskConfig(
  props: Readonly<Record<string, string>>,
): DynamoDbStreamsTaskConfig {
  const values = DYNAMODB_STREAMS_TASK_CONFIG_DEF.parse(props);
  const taskIndex = Number(values[TASK_INDEX_CONFIG]);
  const taskCount = Number(values[TASK_COUNT_CONFIG]);
  if (taskIndex >= taskCount) {
    throw new ConfigError(
      `Invalid value ${taskIndex} for configuration ${TASK_INDEX_CONFIG}: must be below ${TASK_COUNT_CONFIG} (${taskCount})`,
      TASK_INDEX_CONFIG,
    );
  }
  return { ...fromParsed(values), taskIndex, taskCount };
}

/** The topic of `tableName`'s records: the template with `${table}` replaced. */
export function topicFor(template: string, tableName: string): string {
  return template.replaceAll(TABLE_PLACEHOLDER, tableName);
}

/**
 * One task config per task (`tasks.max` of them): the connector config plus `task.index` and
 * `task.count`. The configs do not depend on the stream's shards, so they stay the same while
 * shards come and go, and no reconfiguration is needed when a shard rolls over.
 */
export function dynamoDbStreamsTaskConfigs(
  props: Readonly<Record<string, string>>,
  maxTasks: number,
): Record<string, string>[] {
  const count = Math.max(1, maxTasks);
  return Array.from({ length: count }, (_, i) => ({
    ...props,
    [TASK_INDEX_CONFIG]: String(i),
    [TASK_COUNT_CONFIG]: String(count),
  }));
}

/** A client over the AWS SDK for `config` (region, endpoints, explicit credentials). */
export function createDynamoDbStreamsClient(
  config: DynamoDbStreamsConfig,
): DynamoDbStreamsClientPort {
  return sdkStreamsClient(
    new DynamoDBClient(awsClientSettings(config)),
    new DynamoDBStreamsClient(awsClientSettings({ ...config, endpoint: config.streamsEndpoint })),
  );
}
