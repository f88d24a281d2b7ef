import type { SourceTaskContext } from '../../../../../../shared/connect/context.js';
import type {
  SourceOffset,
  SourcePartition,
  SourceRecord,
} from '../../../../../../shared/connect/records.js';
import type { AttributeMap } from '../../../../../../shared/plugins/connectors/dynamodb-streams-source/attribute-values.js';
import { shardOwner } from '../../../../../../shared/plugins/connectors/dynamodb-streams-source/shard-assignment.js';
import {
  type DynamoDbStreamsClientPort,
  ExpiredIteratorError,
  type IteratorType,
  type RecordsPage,
  type StreamChange,
  type StreamDescriptionPage,
  StreamNotFoundError,
  TrimmedDataError,
} from '../../../../../../shared/plugins/connectors/dynamodb-streams-source/streams-client.js';

/** A clock the test moves by hand. */
export class FakeClock {
  constructor(public time = 1_700_000_000_000) {}
  now(): number {
    return this.time;
  }
}

interface FakeShard {
  readonly id: string;
  readonly parentId: string | null;
  readonly records: StreamChange[];
  closed: boolean;
  /** The EndingSequenceNumber reported once closed; default: the last record's. */
  ending: string | null;
  trimmedBefore: number;
}

/**
 * One DynamoDB stream in memory behind {@link DynamoDbStreamsClientPort}: shards with lineage,
 * iterators `shard|position`, pages of `describePageSize`, and failures to inject.
 */
export class FakeStreams implements DynamoDbStreamsClientPort {
  readonly streamArn =
    'arn:aws:dynamodb:us-east-1:000000000000:table/orders/stream/2024-01-01T00:00:00.000';
  readonly tableName = 'orders';
  readonly shards: FakeShard[] = [];
  /** Every call, e.g. `getShardIterator shard-1 AFTER_SEQUENCE_NUMBER 105`. */
  readonly calls: string[] = [];
  describePageSize = 100;
  /** The next getRecords calls fail with ExpiredIteratorError while this is above 0. */
  expireNext = 0;
  destroyed = false;
  #sequence = 100;
  #clockMs = 1_700_000_000_000;

  /** Adds a shard (open). */
  addShard(id: string, parentId: string | null = null): this {
    this.shards.push({ id, parentId, records: [], closed: false, ending: null, trimmedBefore: 0 });
    return this;
  }

  /** Appends a change of item `id` to `shardId`; returns its sequence number. */
  write(
    shardId: string,
    eventName: StreamChange['eventName'],
    id: string,
    images: { newImage?: AttributeMap; oldImage?: AttributeMap } = {},
  ): string {
    const shard = this.#shard(shardId);
    const sequenceNumber = String(this.#sequence++);
    this.#clockMs += 1000;
    shard.records.push({
      eventName,
      sequenceNumber,
      approximateCreationDateTime: this.#clockMs,
      keys: { id: { S: id } },
      newImage: images.newImage ?? null,
      oldImage: images.oldImage ?? null,
    });
    return sequenceNumber;
  }

  /** Closes a shard; AWS may report an EndingSequenceNumber beyond its last record. */
  close(shardId: string, ending: string | null = null): void {
    const shard = this.#shard(shardId);
    shard.closed = true;
    shard.ending = ending;
  }

  trim(shardId: string, before: number): void {
    this.#shard(shardId).trimmedBefore = before;
  }

  #shard(id: string): FakeShard {
    const shard = this.shards.find((s) => s.id === id);
    if (shard === undefined) throw new StreamNotFoundError(`no shard ${id}`);
    return shard;
  }

  async latestStreamArn(tableName: string): Promise<string | null> {
    this.calls.push(`latestStreamArn ${tableName}`);
    return tableName === this.tableName ? this.streamArn : null;
  }

  async describeStream(
    streamArn: string,
    exclusiveStartShardId: string | null,
  ): Promise<StreamDescriptionPage> {
    this.calls.push(`describeStream ${exclusiveStartShardId ?? ''}`.trim());
    if (streamArn !== this.streamArn) throw new StreamNotFoundError(`no stream ${streamArn}`);
    const from =
      exclusiveStartShardId === null
        ? 0
        : this.shards.findIndex((s) => s.id === exclusiveStartShardId) + 1;
    const page = this.shards.slice(from, from + this.describePageSize);
    const more = from + page.length < this.shards.length;
    return {
      streamArn,
      tableName: this.tableName,
      shards: page.map((s) => ({
        shardId: s.id,
        parentShardId: s.parentId,
        endingSequenceNumber: s.closed
          ? (s.ending ?? s.records.at(-1)?.sequenceNumber ?? '0')
          : null,
      })),
      lastEvaluatedShardId: more ? (page.at(-1)?.id ?? null) : null,
    };
  }

  async getShardIterator(
    _streamArn: string,
    shardId: string,
    type: IteratorType,
    sequenceNumber?: string,
  ): Promise<string> {
    this.calls.push(
      `getShardIterator ${shardId} ${type}${sequenceNumber === undefined ? '' : ` ${sequenceNumber}`}`,
    );
    const shard = this.#shard(shardId);
    let position: number;
    if (type === 'TRIM_HORIZON') position = shard.trimmedBefore;
    else if (type === 'LATEST') position = shard.records.length;
    else {
      const seq = BigInt(sequenceNumber ?? '0');
      const found = shard.records.findIndex((r) =>
        type === 'AT_SEQUENCE_NUMBER'
          ? BigInt(r.sequenceNumber) >= seq
          : BigInt(r.sequenceNumber) > seq,
      );
      position = found < 0 ? shard.records.length : found;
    }
    if (position < shard.trimmedBefore) throw new TrimmedDataError(`trimmed ${shardId}`);
    return `${shardId}|${position}`;
  }

  async getRecords(iterator: string, limit: number): Promise<RecordsPage> {
    this.calls.push(`getRecords ${iterator} ${limit}`);
    if (this.expireNext > 0) {
      this.expireNext -= 1;
      throw new ExpiredIteratorError('Iterator expired');
    }
    const [shardId = '', at = '0'] = iterator.split('|');
    const shard = this.#shard(shardId);
    const position = Number(at);
    if (position < shard.trimmedBefore) throw new TrimmedDataError(`trimmed ${shardId}`);
    const records = shard.records.slice(position, position + limit);
    const next = position + records.length;
    const drained = shard.closed && next >= shard.records.length;
    return { records, nextIterator: drained ? null : `${shardId}|${next}` };
  }

  destroy(): void {
    this.destroyed = true;
  }
}

/** Shard ids owned by `task` of `count` tasks (the first `n` of `shard-0`, `shard-1`, …). */
export function shardIdsOf(task: number, count: number, n: number): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < n; i++) {
    const id = `shard-${i}`;
    if (shardOwner(id, count) === task) ids.push(id);
  }
  return ids;
}

/**
 * A task context whose offset reader serves `stored` (keyed by shard id) and, like the runtime,
 * returns entries only for partitions that have an offset.
 */
export function taskContext(
  props: Readonly<Record<string, string>>,
  stored: ReadonlyMap<string, SourceOffset> = new Map(),
): SourceTaskContext {
  const offsetOf = (partition: SourcePartition) => stored.get(String(partition.shard)) ?? null;
  return {
    configs: () => props,
    offsetStorageReader: {
      offset: async (partition) => offsetOf(partition),
      offsets: async (partitions) =>
        partitions.flatMap((partition) => {
          const offset = offsetOf(partition);
          return offset === null ? [] : [{ partition, offset }];
        }),
    },
    transactionContext: null,
    pluginMetrics: () => ({ gauge: () => {} }),
  };
}

/** The latest offset per shard id, as the runtime would have committed them. */
export function committed(
  records: readonly SourceRecord[],
  into: Map<string, SourceOffset> = new Map(),
): Map<string, SourceOffset> {
  for (const r of records) {
    if (r.sourcePartition !== null && r.sourceOffset !== null) {
      into.set(String(r.sourcePartition.shard), r.sourceOffset);
    }
  }
  return into;
}

/** `shard:eventName:id` of each record. */
export function describeRecords(records: readonly SourceRecord[]): string[] {
  return records.map((r) => {
    const value = r.value as { eventName: string; keys: { id: string } };
    return `${String(r.sourcePartition?.shard)}:${value.eventName}:${value.keys.id}`;
  });
}
