/**
 * The DynamoDB Streams source task: reads the change records of the stream's shards assigned
 * to it (by shard-id hash, see `shard-assignment.ts`), in shard lineage order, resuming after
 * the committed offsets.
 *
 * Lineage (a child shard is read only after its parent is complete) follows the rules of
 * `shard-lineage.ts`.
 */
import {
  ConnectError,
  SourceRecord,
  SourceTask,
  type SourceTaskContext,
} from 'serverless-connect/connect';
import { unmarshallItem } from './attribute-values.js';
import {
  createDynamoDbStreamsClient,
  DYNAMODB_STREAMS_SOURCE_VERSION,
  type DynamoDbStreamsConfig,
  type DynamoDbStreamsTaskConfig,
  parseDynamoDbStreamsTaskConfig,
  topicFor,
} from './dynamodb-streams-config.js';
import {
  parseShardOffset,
  parseShardPartition,
  shardOffset,
  shardPartition,
} from './dynamodb-streams-offsets.js';
import { compareSequenceNumbers, shardOwner } from './shard-assignment.js';
import {
  checkForeignParent,
  originOf,
  parentComplete,
  type TrackedShard,
  trackShard,
} from './shard-lineage.js';
import {
  type DynamoDbStreamsClientPort,
  ExpiredIteratorError,
  type IteratorType,
  type RecordsPage,
  type ShardDescription,
  type StreamChange,
  StreamNotFoundError,
  TrimmedDataError,
} from './streams-client.js';

/** The time source (structurally the runtime's `Clock`). */
export interface DynamoDbStreamsClock {
  now(): number;
}

/** What the connector and task are built from. */
export interface DynamoDbStreamsSourceDeps {
  /** Paces `shard.refresh.interval.ms`. */
  readonly clock: DynamoDbStreamsClock;
  /**
   * Builds the client of a config (destroyed by the caller when done).
   * @default createDynamoDbStreamsClient (the AWS SDK)
   */
  readonly createClient?: (config: DynamoDbStreamsConfig) => DynamoDbStreamsClientPort;
}

interface Running {
  readonly config: DynamoDbStreamsTaskConfig;
  readonly context: SourceTaskContext;
  readonly client: DynamoDbStreamsClientPort;
  readonly streamArn: string;
  readonly table: string;
  readonly topic: string;
}

/**
 * Reads change records into Kafka records.
 *
 * - Record key: the item's key attributes as a plain object (attributes in name order), so
 *   every change of an item lands in the same Kafka partition. Value (schemaless): `{eventName:
 *   INSERT|MODIFY|REMOVE, table, keys, newImage, oldImage, sequenceNumber,
 *   approximateCreationDateTime}` (images `null` when the stream view type or the event has
 *   none; AttributeValues unmarshalled, see `attribute-values.ts`). Timestamp: the record's
 *   ApproximateCreationDateTime.
 * - Source partition `{table, shard}`; offset `{sequenceNumber}`, with `closed: true` on the
 *   last record of a closed shard. On start, each shard resumes AFTER_SEQUENCE_NUMBER of its
 *   committed offset; a shard without one starts at `start.position` (TRIM_HORIZON, or LATEST
 *   unless its parent was read).
 * - `poll` issues at most one GetRecords per readable shard and returns at most
 *   `poll.max.records` records, or `null`. An expired iterator is recreated from the last
 *   delivered record; trimmed data (records past the 24-hour retention that were never read)
 *   fails the task with a non-retriable ConnectError: the loss is reported, never hidden.
 */
export class DynamoDbStreamsSourceTask extends SourceTask {
  readonly #deps: DynamoDbStreamsSourceDeps;
  #running: Running | null = null;
  readonly #shards = new Map<string, TrackedShard>();
  #lastRefreshAt: number | null = null;
  #refreshRequested = false;
  #stopped = false;

  constructor(deps: DynamoDbStreamsSourceDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return DYNAMODB_STREAMS_SOURCE_VERSION;
  }

  /**
   * Parses the task config (ConfigError when invalid), creates the client and resolves the
   * stream (ConnectError when the table has no stream).
   */
  async start(props: Readonly<Record<string, string>>, context: SourceTaskContext): Promise<void> {
    const config = parseDynamoDbStreamsTaskConfig(props);
    const client = (this.#deps.createClient ?? createDynamoDbStreamsClient)(config);
    try {
      const streamArn = config.streamArn ?? (await client.latestStreamArn(config.tableName ?? ''));
      if (streamArn === null) {
        throw new ConnectError(
          `Table ${config.tableName} has no DynamoDB stream: enable one (StreamSpecification with StreamEnabled=true) or set stream.arn`,
        );
      }
      const first = await client.describeStream(streamArn, null);
      const table = first.tableName === '' ? (config.tableName ?? '') : first.tableName;
      this.#running = {
        config,
        context,
        client,
        streamArn,
        table,
        topic: topicFor(config.topic, table),
      };
    } catch (error) {
      client.destroy();
      throw error;
    }
  }

  async poll(): Promise<SourceRecord[] | null> {
    const running = this.#running;
    if (running === null || this.#stopped) return null;
    if (this.#refreshDue(running)) await this.#refresh(running);
    const records: SourceRecord[] = [];
    for (const shard of this.#shards.values()) {
      const room = running.config.pollMaxRecords - records.length;
      if (room <= 0 || this.#stopped) break;
      if (!shard.owned || shard.complete || !parentComplete(this.#shards, shard)) continue;
      records.push(...(await this.#read(running, shard, room)));
    }
    return records.length === 0 ? null : records;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#running?.client.destroy();
  }

  #refreshDue(running: Running): boolean {
    return (
      this.#refreshRequested ||
      this.#lastRefreshAt === null ||
      this.#deps.clock.now() - this.#lastRefreshAt >= running.config.shardRefreshIntervalMs
    );
  }

  /** Lists the stream's shards, loads the offsets of new owned ones, checks foreign parents. */
  async #refresh(running: Running): Promise<void> {
    const { client, config, streamArn } = running;
    this.#lastRefreshAt = this.#deps.clock.now();
    this.#refreshRequested = false;
    const listed: ShardDescription[] = [];
    let next: string | null = null;
    do {
      const page = await client.describeStream(streamArn, next);
      listed.push(...page.shards);
      next = page.lastEvaluatedShardId;
    } while (next !== null);
    const fresh: TrackedShard[] = [];
    for (const s of listed) {
      const known = this.#shards.get(s.shardId);
      if (known !== undefined) {
        known.endingSequenceNumber = s.endingSequenceNumber ?? known.endingSequenceNumber;
        continue;
      }
      const shard = trackShard(s, shardOwner(s.shardId, config.taskCount) === config.taskIndex);
      this.#shards.set(s.shardId, shard);
      if (shard.owned) fresh.push(shard);
    }
    const ids = new Set(listed.map((s) => s.shardId));
    for (const [id, shard] of this.#shards) {
      // A shard no longer listed was trimmed; one being read fails on its next read.
      if (!ids.has(id) && (!shard.owned || shard.complete || shard.origin === null)) {
        this.#shards.delete(id);
      }
    }
    await this.#loadOffsets(running, fresh);
    for (const shard of this.#shards.values()) {
      if (!shard.owned || shard.complete || shard.origin !== null) continue;
      const parent = shard.parentId === null ? undefined : this.#shards.get(shard.parentId);
      if (parent !== undefined && !parent.owned && !parent.complete) {
        await checkForeignParent(
          {
            client: running.client,
            reader: running.context.offsetStorageReader,
            streamArn: running.streamArn,
            table: running.table,
            startPosition: running.config.startPosition,
          },
          parent,
        );
      }
    }
  }

  async #loadOffsets(running: Running, shards: readonly TrackedShard[]): Promise<void> {
    if (shards.length === 0) return;
    const stored = await running.context.offsetStorageReader.offsets(
      shards.map((s) => shardPartition(running.table, s.id)),
    );
    for (const { partition, offset } of stored) {
      const shard = this.#shards.get(parseShardPartition(partition).shard);
      const parsed = parseShardOffset(offset);
      if (shard === undefined || parsed === null) continue;
      shard.origin = 'offset';
      shard.lastSequence = parsed.sequenceNumber;
      shard.complete = parsed.closed;
    }
  }

  /** A fresh iterator after the last delivered record, or at the shard's start; `null` to skip it. */
  async #iterator(running: Running, shard: TrackedShard): Promise<string | null> {
    shard.origin ??= originOf(running.config.startPosition, this.#shards, shard);
    let type: IteratorType;
    if (shard.lastSequence !== null) type = 'AFTER_SEQUENCE_NUMBER';
    else if (shard.origin === 'skipped') {
      shard.complete = true;
      return null;
    } else type = shard.origin === 'latest' ? 'LATEST' : 'TRIM_HORIZON';
    try {
      return await running.client.getShardIterator(
        running.streamArn,
        shard.id,
        type,
        ...(shard.lastSequence === null ? [] : [shard.lastSequence]),
      );
    } catch (error) {
      throw this.#lost(running, shard, error);
    }
  }

  async #getRecords(
    running: Running,
    shard: TrackedShard,
    limit: number,
  ): Promise<RecordsPage | null> {
    for (let attempt = 0; ; attempt++) {
      shard.iterator ??= await this.#iterator(running, shard);
      if (shard.iterator === null) return null;
      try {
        return await running.client.getRecords(shard.iterator, limit);
      } catch (error) {
        shard.iterator = null;
        if (error instanceof ExpiredIteratorError && attempt === 0) continue;
        throw this.#lost(running, shard, error);
      }
    }
  }

  async #read(running: Running, shard: TrackedShard, limit: number): Promise<SourceRecord[]> {
    const ending = shard.endingSequenceNumber;
    if (
      ending !== null &&
      shard.lastSequence !== null &&
      compareSequenceNumbers(shard.lastSequence, ending) >= 0
    ) {
      // Read to its end already: no call, which could fail once its records are trimmed.
      shard.complete = true;
      this.#refreshRequested = true;
      return [];
    }
    const page = await this.#getRecords(running, shard, limit);
    if (page === null) return [];
    const records = page.records.map((change, i) => {
      const closed =
        (page.nextIterator === null && i === page.records.length - 1) ||
        (ending !== null && compareSequenceNumbers(change.sequenceNumber, ending) >= 0);
      return this.#record(running, shard, change, closed);
    });
    const last = page.records.at(-1);
    if (last !== undefined) shard.lastSequence = last.sequenceNumber;
    shard.iterator = page.nextIterator;
    if (page.nextIterator === null) {
      shard.complete = true;
      // Its children may be listed already; look now rather than at the next interval.
      this.#refreshRequested = true;
    }
    return records;
  }

  #record(
    running: Running,
    shard: TrackedShard,
    change: StreamChange,
    closed: boolean,
  ): SourceRecord {
    const keys = unmarshallItem(change.keys);
    return new SourceRecord({
      sourcePartition: shardPartition(running.table, shard.id),
      sourceOffset: shardOffset(change.sequenceNumber, closed),
      topic: running.topic,
      key: keys,
      value: {
        eventName: change.eventName,
        table: running.table,
        keys,
        newImage: change.newImage === null ? null : unmarshallItem(change.newImage),
        oldImage: change.oldImage === null ? null : unmarshallItem(change.oldImage),
        sequenceNumber: change.sequenceNumber,
        approximateCreationDateTime: change.approximateCreationDateTime,
      },
      timestamp: change.approximateCreationDateTime,
    });
  }

  /** Trimmed or vanished data becomes a non-retriable error naming what was lost. */
  #lost(running: Running, shard: TrackedShard, error: unknown): unknown {
    if (!(error instanceof TrimmedDataError) && !(error instanceof StreamNotFoundError)) {
      return error;
    }
    const after =
      shard.lastSequence === null
        ? 'from its start'
        : `after sequence number ${shard.lastSequence}`;
    return new ConnectError(
      `Records of DynamoDB stream ${running.streamArn} (table ${running.table}), shard ${shard.id}, ` +
        `${after}, are no longer available (trimmed after the stream's 24-hour retention, or the ` +
        'shard is gone) and were never delivered: data was lost. Stop the connector and reset or ' +
        'alter its offsets to continue.',
      { cause: error },
    );
  }
}
