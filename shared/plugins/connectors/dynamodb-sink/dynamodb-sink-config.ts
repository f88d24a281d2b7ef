/**
 * The DynamoDB sink connector's configuration: the keys (a {@link ConfigDef} with docs, serving
 * both the runtime and `…/config/validate`) and their parsed form.
 *
 * Names follow Confluent's DynamoDB sink (`aws.dynamodb.region`, `aws.dynamodb.endpoint`,
 * `table.name.format`, `batch.size`, `max.retries`, `retry.backoff.ms`) and the JDBC sink
 * (`pk.mode`, `pk.fields`, `insert.mode`, `delete.enabled`).
 */
import {
  CaseInsensitiveValidString,
  ConfigDef,
  ConfigError,
  ListSize,
  NonEmptyString,
  Range,
} from 'serverless-connect/connect';
import {
  type AwsConnection,
  type AwsCredentials,
  awsConnectionOf,
  awsCredentialsConfigDef,
} from '../aws-connection-config.js';

/** The AWS credential keys, defined in `../aws-connection-config.ts`. */
export {
  AWS_ACCESS_KEY_ID_CONFIG,
  AWS_SECRET_ACCESS_KEY_CONFIG,
} from '../aws-connection-config.js';

/** The version of the DynamoDB sink connector and task. */
export const DYNAMODB_SINK_VERSION = '0.1.0';

export const TABLE_NAME_FORMAT_CONFIG = 'table.name.format';
export const AWS_DYNAMODB_REGION_CONFIG = 'aws.dynamodb.region';
export const AWS_DYNAMODB_ENDPOINT_CONFIG = 'aws.dynamodb.endpoint';
export const PK_MODE_CONFIG = 'pk.mode';
export const PK_FIELDS_CONFIG = 'pk.fields';
export const INSERT_MODE_CONFIG = 'insert.mode';
export const DELETE_ENABLED_CONFIG = 'delete.enabled';
export const DELETE_MODE_CONFIG = 'delete.mode';
export const TOMBSTONE_TTL_CONFIG = 'delete.tombstone.ttl.seconds';
export const KAFKA_ATTRIBUTE_PREFIX_CONFIG = 'kafka.attribute.prefix';
export const BATCH_SIZE_CONFIG = 'batch.size';
export const MAX_RETRIES_CONFIG = 'max.retries';
export const RETRY_BACKOFF_MS_CONFIG = 'retry.backoff.ms';

/** Where the item's key attributes come from. */
export type PkMode = 'record_key' | 'record_value';
export const PK_MODES: readonly PkMode[] = Object.freeze(['record_key', 'record_value']);
/** How records become items (only upserts: PutItem of the whole item). */
export type InsertMode = 'upsert';
export const INSERT_MODES: readonly InsertMode[] = Object.freeze(['upsert']);
/** What a tombstone does to its item. */
export type DeleteMode = 'tombstone' | 'delete';
export const DELETE_MODES: readonly DeleteMode[] = Object.freeze(['tombstone', 'delete']);

/** The placeholder of `table.name.format` replaced by the record's topic. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Connect's placeholder syntax
export const TOPIC_PLACEHOLDER = '${topic}';

/** DynamoDB's limit on the items of one batch request, kept as the bound of `batch.size`. */
export const MAX_BATCH_SIZE = 25;

const TABLE_GROUP = 'Table';
const CONNECTION_GROUP = 'Connection';
const WRITES_GROUP = 'Writes';
const RETRIES_GROUP = 'Retries';

/** The connector's own keys, in documentation order. */
export const DYNAMODB_SINK_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: TABLE_NAME_FORMAT_CONFIG,
    type: 'STRING',
    defaultValue: TOPIC_PLACEHOLDER,
    validator: new NonEmptyString(),
    importance: 'HIGH',
    group: TABLE_GROUP,
    documentation:
      `The DynamoDB table each record is written to; '${TOPIC_PLACEHOLDER}' is replaced by the ` +
      `record's topic (e.g. 'kafka_${TOPIC_PLACEHOLDER}'). The tables must exist: their key ` +
      'attributes are read once per task with DescribeTable.',
  })
  .define({
    name: PK_MODE_CONFIG,
    type: 'STRING',
    defaultValue: 'record_key',
    validator: CaseInsensitiveValidString.in(...PK_MODES),
    importance: 'HIGH',
    group: TABLE_GROUP,
    documentation:
      'Where the key attributes of the item come from. record_key: the record key; a struct or ' +
      'map key gives the attributes named by pk.fields, a primitive key becomes the partition ' +
      "key of a table that has no sort key. record_value: the value's fields named by pk.fields " +
      '(tombstones carry no value, so delete.enabled must be false).',
  })
  .define({
    name: PK_FIELDS_CONFIG,
    type: 'LIST',
    defaultValue: '',
    validator: ListSize.atMostOfSize(2),
    importance: 'MEDIUM',
    group: TABLE_GROUP,
    documentation:
      'The fields (of the key for pk.mode=record_key, of the value for record_value) whose values ' +
      "become the table's partition key and, when the table has one, its sort key, in that " +
      "order. Empty: the fields named like the table's key attributes.",
  })
  .define({
    name: AWS_DYNAMODB_REGION_CONFIG,
    type: 'STRING',
    defaultValue: null,
    validator: new NonEmptyString(),
    importance: 'HIGH',
    group: CONNECTION_GROUP,
    documentation:
      "The AWS region of the tables. Unset: the SDK's default region (in AWS Lambda, the " +
      "function's region).",
  })
  .define({
    name: AWS_DYNAMODB_ENDPOINT_CONFIG,
    type: 'STRING',
    defaultValue: null,
    validator: new NonEmptyString(),
    importance: 'LOW',
    group: CONNECTION_GROUP,
    documentation:
      'The endpoint URL of a DynamoDB-compatible server (dynalite, DynamoDB Local), e.g. ' +
      'http://localhost:8000. Unset: AWS DynamoDB of the region.',
  })
  .withAll(awsCredentialsConfigDef(CONNECTION_GROUP, 'DynamoDB-compatible servers'))
  .define({
    name: INSERT_MODE_CONFIG,
    type: 'STRING',
    defaultValue: 'upsert',
    validator: CaseInsensitiveValidString.in(...INSERT_MODES),
    importance: 'HIGH',
    group: WRITES_GROUP,
    documentation:
      'upsert: each record replaces its whole item (PutItem). The value (a struct or a map) ' +
      'becomes the item, plus the key attributes and the Kafka coordinates.',
  })
  .define({
    name: DELETE_ENABLED_CONFIG,
    type: 'BOOLEAN',
    defaultValue: true,
    importance: 'MEDIUM',
    group: WRITES_GROUP,
    documentation:
      'Whether a tombstone (a record with a null value) deletes its item, as delete.mode says. ' +
      'false: tombstones are skipped. Requires pk.mode=record_key.',
  })
  .define({
    name: DELETE_MODE_CONFIG,
    type: 'STRING',
    defaultValue: 'tombstone',
    validator: CaseInsensitiveValidString.in(...DELETE_MODES),
    importance: 'MEDIUM',
    group: WRITES_GROUP,
    documentation:
      'How a tombstone deletes its item. tombstone: the item is replaced by a marker item ' +
      "holding only its key, the Kafka coordinates and '<kafka.attribute.prefix>deleted' = true " +
      '(readers must skip such items), so that an older record replayed by an overlapping ' +
      'invocation can never bring the item back. delete: DeleteItem; replays still converge ' +
      '(a replay runs the delete again after the older records), but an invocation that ' +
      'overlaps with a newer one for the same partition may bring a deleted item back.',
  })
  .define({
    name: TOMBSTONE_TTL_CONFIG,
    type: 'LONG',
    defaultValue: 86_400,
    validator: Range.atLeast(0),
    importance: 'LOW',
    group: WRITES_GROUP,
    documentation:
      "With delete.mode=tombstone, marker items get '<kafka.attribute.prefix>expires_at' = the " +
      'epoch second this many seconds after the write: enable DynamoDB TTL on that attribute to ' +
      'purge them. 0: no expiry attribute.',
  })
  .define({
    name: KAFKA_ATTRIBUTE_PREFIX_CONFIG,
    type: 'STRING',
    defaultValue: '_kafka_',
    validator: new NonEmptyString(),
    importance: 'LOW',
    group: WRITES_GROUP,
    documentation:
      'The prefix of the attributes every item gets: <prefix>topic, <prefix>partition and ' +
      '<prefix>offset (the Kafka coordinates each write is conditioned on), and on tombstone ' +
      'markers <prefix>deleted and <prefix>expires_at. Value fields with these names are ' +
      'overwritten (or, for the marker attributes, dropped).',
  })
  .define({
    name: BATCH_SIZE_CONFIG,
    type: 'INT',
    defaultValue: MAX_BATCH_SIZE,
    validator: Range.between(1, MAX_BATCH_SIZE),
    importance: 'MEDIUM',
    group: RETRIES_GROUP,
    documentation:
      'The most conditional writes in flight at once. Each item is written by its own ' +
      'conditional PutItem or DeleteItem (BatchWriteItem takes no conditions).',
  })
  .define({
    name: MAX_RETRIES_CONFIG,
    type: 'INT',
    defaultValue: 10,
    validator: Range.atLeast(0),
    importance: 'MEDIUM',
    group: RETRIES_GROUP,
    documentation:
      'How many times a write is retried after throttling, a 5xx or a network error before the ' +
      'batch fails with a retriable error (and is redelivered).',
  })
  .define({
    name: RETRY_BACKOFF_MS_CONFIG,
    type: 'LONG',
    defaultValue: 100,
    validator: Range.atLeast(0),
    importance: 'LOW',
    group: RETRIES_GROUP,
    documentation:
      'The wait before the first retry, doubled on every further retry up to 20 times this ' +
      'value, with full jitter.',
  });

/** Explicit credentials for the DynamoDB client. */
export type DynamoDbCredentials = AwsCredentials;

/** The reserved attributes every written item carries. */
export interface KafkaAttributeNames {
  readonly topic: string;
  readonly partition: string;
  readonly offset: string;
  /** `true` on tombstone markers. */
  readonly deleted: string;
  /** Epoch seconds, on tombstone markers (a TTL attribute). */
  readonly expiresAt: string;
}

/**
 * The parsed connector (and task) config: the AWS connection (`null` region: the SDK's
 * default; `null` endpoint: AWS DynamoDB; `null` credentials: the default chain) and the rest.
 */
export interface DynamoDbSinkConfig extends AwsConnection {
  readonly tableNameFormat: string;
  readonly pkMode: PkMode;
  readonly pkFields: readonly string[];
  readonly insertMode: InsertMode;
  readonly deleteEnabled: boolean;
  readonly deleteMode: DeleteMode;
  readonly tombstoneTtlSeconds: number;
  readonly attributes: KafkaAttributeNames;
  readonly batchSize: number;
  readonly maxRetries: number;
  readonly retryBackoffMs: number;
}

function oneOf<T extends string>(values: readonly T[], value: unknown): T {
  const lower = String(value).toLowerCase();
  return values.find((v) => v === lower) ?? (values[0] as T);
}

function pkFieldsOf(values: Record<string, unknown>): string[] {
  const fields = values[PK_FIELDS_CONFIG] as string[];
  if (fields.some((f) => f === '') || new Set(fields).size !== fields.length) {
    throw new ConfigError(
      `Invalid value ${fields.join(',')} for configuration ${PK_FIELDS_CONFIG}: field names must be non-empty and distinct`,
      PK_FIELDS_CONFIG,
    );
  }
  return fields;
}

/** The reserved attribute names under `prefix`. */
export function kafkaAttributeNames(prefix: string): KafkaAttributeNames {
  return {
    topic: `${prefix}topic`,
    partition: `${prefix}partition`,
    offset: `${prefix}offset`,
    deleted: `${prefix}deleted`,
    expiresAt: `${prefix}expires_at`,
  };
}

/**
 * Parses a connector or task config. Throws ConfigError with Kafka's messages, or when
 * credentials are half set, `pk.fields` repeats a field, or deletes are enabled with
 * `pk.mode=record_value` (reported on `delete.enabled`, as the JDBC sink does).
 */
export function parseDynamoDbSinkConfig(
  props: Readonly<Record<string, string>>,
): DynamoDbSinkConfig {
  const values = DYNAMODB_SINK_CONFIG_DEF.parse(props);
  const pkMode = oneOf(PK_MODES, values[PK_MODE_CONFIG]);
  const deleteEnabled = values[DELETE_ENABLED_CONFIG] === true;
  if (deleteEnabled && pkMode !== 'record_key') {
    throw new ConfigError(
      `Invalid value true for configuration ${DELETE_ENABLED_CONFIG}: deletes are only supported for ${PK_MODE_CONFIG}=record_key`,
      DELETE_ENABLED_CONFIG,
    );
  }
  return {
    tableNameFormat: String(values[TABLE_NAME_FORMAT_CONFIG]),
    ...awsConnectionOf(values, {
      region: AWS_DYNAMODB_REGION_CONFIG,
      endpoint: AWS_DYNAMODB_ENDPOINT_CONFIG,
    }),
    pkMode,
    pkFields: pkFieldsOf(values),
    insertMode: oneOf(INSERT_MODES, values[INSERT_MODE_CONFIG]),
    deleteEnabled,
    deleteMode: oneOf(DELETE_MODES, values[DELETE_MODE_CONFIG]),
    tombstoneTtlSeconds: Number(values[TOMBSTONE_TTL_CONFIG]),
    attributes: kafkaAttributeNames(String(values[KAFKA_ATTRIBUTE_PREFIX_CONFIG])),
    batchSize: Number(values[BATCH_SIZE_CONFIG]),
    maxRetries: Number(values[MAX_RETRIES_CONFIG]),
    retryBackoffMs: Number(values[RETRY_BACKOFF_MS_CONFIG]),
  };
}

/** The table of a record of `topic`: `table.name.format` with {@link TOPIC_PLACEHOLDER} replaced. */
export function tableNameFor(config: DynamoDbSinkConfig, topic: string): string {
  return config.tableNameFormat.replaceAll(TOPIC_PLACEHOLDER, topic);
}
