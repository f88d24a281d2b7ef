/**
 * The state table, defined once. Read by the DynamoDB adapter, by `ensureTable` (local runtime
 * and tests) and by the CDK construct in infra/, so this file imports nothing.
 *
 * One table; the partition key is the connector, so one Query returns everything about a
 * connector. Item kinds by sort key, under partition `C#<connector>`:
 *
 * | sort key                       | holds                                                     |
 * |--------------------------------|-----------------------------------------------------------|
 * | `CONNECTOR`                    | config map, version, target state (+ list index keys)     |
 * | `TASKS`                        | all task configs with per-task generations, set version   |
 * | `TASK#<n, 6 digits>`           | lease (owner, expiry, generation), epoch, idle streak,    |
 * |                                | task status,                                              |
 * |                                | source offsets (committed and pending)                    |
 * | `TASK#ADMIN`                   | source offsets altered or reset through the REST API, as  |
 * |                                | committed offsets of task -1 (`task` attribute = -1)      |
 * | `STATUS`                       | connector status                                          |
 * | `TOPIC#<topic>`                | an active topic                                           |
 * | `RESTART`                      | the latest restart request                                |
 *
 * Sink offsets (since v4) live apart, so that a connector's partitions do not all write one
 * partition key and a sink invocation or status read does not read them all: item
 * `SINKOFFSET#<topic>#<partition>` under partition `SINKOFFSETS#<shard>#<connector>`, the shard
 * ({@link sinkOffsetShard}, one of {@link SINK_OFFSET_SHARDS}) hashed from topic and partition.
 * Up to v3 the same items sat under `C#<connector>` (between `RESTART` and `STATUS`); they are
 * still read (codec.ts).
 *
 * Partition `LOGGERS` (no connector partition starts without `C#`) holds `LOGGER#<name>` items.
 *
 * Usage sums (the metering, issue 25) live apart too, so that no connector Query reads them:
 * item `H#<UTC hour, yyyy-mm-ddThh>#<shard>` under partition `COST#<connector>`, or `COST` for
 * the shared line ({@link KEYS.costPk}); one item per hour and writing container shard
 * ({@link COST_SHARDS}), numeric counters added with `ADD`, kept {@link COST_RETENTION_DAYS}
 * days (`ttl`). A connector's deletion keeps them.
 *
 * Every item carries {@link ATTR.formatVersion}; see codec.ts for the versions.
 */

export const STATE_TABLE = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  billingMode: 'PAY_PER_REQUEST',
  /** The enumerator may react to changes through the table's stream. */
  stream: { viewType: 'NEW_AND_OLD_IMAGES' },
  /**
   * Epoch seconds after which DynamoDB may delete the item. Only completed restart requests
   * set it (garbage collection); correctness never depends on TTL deletion.
   */
  timeToLiveAttribute: 'ttl',
  pointInTimeRecovery: true,
  /** Sparse index over `CONNECTOR` items: lists connector names in order. */
  connectorIndex: {
    name: 'connectors',
    partitionKey: { name: 'listPk', type: 'S' },
    sortKey: { name: 'listSk', type: 'S' },
    projection: 'KEYS_ONLY',
  },
} as const;

/** The format version the adapter writes (codec.ts lists what each version changed). */
export const ITEM_FORMAT_VERSION = 4;

/**
 * How many partition keys a connector's sink offsets are spread over. DynamoDB serves at most
 * 1,000 write units a second per partition: 16 keys carry ~16,000 sink-offset commits a second
 * per connector (docs/scale.md). Part of the format: changing it moves every item.
 */
export const SINK_OFFSET_SHARDS = 16;

/** The shard of a topic-partition's sink offset: FNV-1a of `<topic>-<partition>`, mod the shards. */
export function sinkOffsetShard(topic: string, partition: number): number {
  let hash = 0x811c9dc5;
  const text = `${topic}-${partition}`;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % SINK_OFFSET_SHARDS;
}

/**
 * How many items one hour of an owner's usage is spread over: each container writes to one
 * shard of its own (picked at random), so that no single item takes more than ~1,000 writes a
 * second however many containers a connector runs (DynamoDB's limit per item). Reads sum them.
 */
export const COST_SHARDS = 16;

/** How long hourly usage items are kept (DynamoDB's TTL deletes them after). */
export const COST_RETENTION_DAYS = 400;

/** Attribute names (also the `#name` placeholders of every expression). */
export const ATTR = {
  pk: 'pk',
  sk: 'sk',
  formatVersion: 'v',
  ttl: 'ttl',
  listPk: 'listPk',
  listSk: 'listSk',
  // CONNECTOR
  name: 'name',
  config: 'config',
  version: 'version',
  target: 'target',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
  // TASKS
  tasks: 'tasks',
  generation: 'generation',
  fencing: 'fencing',
  // TASK#n
  task: 'task',
  epoch: 'epoch',
  owner: 'owner',
  expiresAt: 'expiresAt',
  leaseGeneration: 'leaseGeneration',
  /** A source task's idle streak (IdleStreak): written by the lease release, cleared by revoke. */
  idleCount: 'idleCount',
  idleAt: 'idleAt',
  idleVersion: 'idleVersion',
  idleGeneration: 'idleGeneration',
  state: 'state',
  workerId: 'workerId',
  trace: 'trace',
  statusAt: 'statusAt',
  // a sink task's retry run (TaskRetry)
  retryPartitions: 'retryPartitions',
  retrySince: 'retrySince',
  retryAttempts: 'retryAttempts',
  committedSeq: 'committedSeq',
  committedOffsets: 'committedOffsets',
  pendingSeq: 'pendingSeq',
  pendingOffsets: 'pendingOffsets',
  pendingPositions: 'pendingPositions',
  /** The Kafka entry's watermark: how far the offsets topic was read (JSON). */
  offsetsTopicRead: 'offsetsTopicRead',
  // SINKOFFSET# and TOPIC#
  topic: 'topic',
  partition: 'partition',
  offset: 'offset',
  // RESTART
  onlyFailed: 'onlyFailed',
  includeTasks: 'includeTasks',
  requestedAt: 'requestedAt',
  seq: 'seq',
  completedSeq: 'completedSeq',
  // LOGGER#
  logger: 'logger',
  level: 'level',
  lastModified: 'lastModified',
  // COST# (usage sums; the counters are named as in ports/metering.ts `Usage`)
  hour: 'hour',
} as const;

/** Key values. */
export const KEYS = {
  connectorPk: (connector: string): string => `C#${connector}`,
  loggersPk: 'LOGGERS',
  /** `listPk` of every CONNECTOR item. */
  connectorListPk: 'CONNECTOR',
  connectorSk: 'CONNECTOR',
  tasksSk: 'TASKS',
  statusSk: 'STATUS',
  restartSk: 'RESTART',
  taskPrefix: 'TASK#',
  taskSk: (task: number): string => `TASK#${String(task).padStart(6, '0')}`,
  /** The admin entry of source offsets (under the task prefix, so one Query lists it too). */
  adminOffsetsSk: 'TASK#ADMIN',
  /** The Kafka entry of source offsets (adopted from the offsets topic), under the task prefix too. */
  kafkaOffsetsSk: 'TASK#KAFKA',
  sinkOffsetPrefix: 'SINKOFFSET#',
  sinkOffsetSk: (topic: string, partition: number): string => `SINKOFFSET#${topic}#${partition}`,
  /** The partition key of one shard of a connector's sink offsets (v4). */
  sinkOffsetShardPk: (connector: string, shard: number): string =>
    `SINKOFFSETS#${String(shard).padStart(2, '0')}#${connector}`,
  /** The partition key a topic-partition's sink offset is written under (v4). */
  sinkOffsetPk: (connector: string, topic: string, partition: number): string =>
    KEYS.sinkOffsetShardPk(connector, sinkOffsetShard(topic, partition)),
  topicPrefix: 'TOPIC#',
  topicSk: (topic: string): string => `TOPIC#${topic}`,
  loggerPrefix: 'LOGGER#',
  loggerSk: (logger: string): string => `LOGGER#${logger}`,
  /** The usage partition of a connector, or of the shared line (`undefined`). */
  costPk: (connector: string | undefined): string =>
    connector === undefined ? 'COST' : `COST#${connector}`,
  costHourPrefix: 'H#',
  /** One shard of one hour's usage; `hour` as `yyyy-mm-ddThh` (UTC). */
  costSk: (hour: string, shard: number): string => `H#${hour}#${String(shard).padStart(2, '0')}`,
} as const;

/**
 * The connector an item's keys belong to (its `C#<connector>` partition), or undefined for a
 * reserved partition (`LOGGERS`) or keys without a string partition key. Keys as DynamoDB's
 * attribute values carry them, e.g. a stream record's `dynamodb.Keys`.
 */
export function connectorOfItemKeys(keys: unknown): string | undefined {
  const pk = (keys as Record<string, { S?: unknown } | undefined> | undefined)?.[
    STATE_TABLE.partitionKey.name
  ]?.S;
  const prefix = KEYS.connectorPk('');
  return typeof pk === 'string' && pk.startsWith(prefix) ? pk.slice(prefix.length) : undefined;
}
