/**
 * The in-memory streams of the DynamoDB Streams stand-in: one stream per enabling of a table's
 * stream, shards with lineage (a shard closes after `shardRolloverRecords` records and a child
 * shard takes over), change records with increasing sequence numbers (21-digit strings), and
 * trimming. No I/O: the HTTP layer feeds it captured changes, and `streams-api.ts` serves the
 * DynamoDB Streams API over it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { notFound, validationError } from './api-error.js';
import { byteLength, labelOf, sameItem } from './stream-wire.js';

/** What a stream record carries of the item (StreamSpecification.StreamViewType). */
export type StreamViewType = 'KEYS_ONLY' | 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES';
export const STREAM_VIEW_TYPES: readonly StreamViewType[] = [
  'KEYS_ONLY',
  'NEW_IMAGE',
  'OLD_IMAGE',
  'NEW_AND_OLD_IMAGES',
];

/** An item in DynamoDB's wire JSON (`{"id": {"S": "a"}}`). */
export type WireItem = Record<string, unknown>;

/** A key schema element, as DescribeTable returns it. */
export interface KeySchemaElement {
  readonly AttributeName: string;
  readonly KeyType: string;
}

/** A table whose stream is being enabled. */
export interface StreamTable {
  readonly tableName: string;
  readonly tableArn: string;
  readonly keySchema: readonly KeySchemaElement[];
}

/** One write as the stand-in saw it: the item's key and its images before and after. */
export interface ItemChange {
  readonly keys: WireItem;
  readonly oldImage: WireItem | null;
  readonly newImage: WireItem | null;
}

export type ShardIteratorType =
  | 'TRIM_HORIZON'
  | 'LATEST'
  | 'AT_SEQUENCE_NUMBER'
  | 'AFTER_SEQUENCE_NUMBER';

export interface StoredRecord {
  readonly sequenceNumber: bigint;
  readonly eventID: string;
  readonly eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly dynamodb: Record<string, unknown>;
}

export interface Shard {
  readonly id: string;
  readonly parentId: string | null;
  readonly startingSequenceNumber: bigint;
  endingSequenceNumber: bigint | null;
  readonly records: StoredRecord[];
  /** Records below this index are trimmed (past the retention period). */
  trimmedBefore: number;
}

export interface Stream {
  readonly arn: string;
  readonly label: string;
  readonly table: StreamTable;
  readonly viewType: StreamViewType;
  status: 'ENABLED' | 'DISABLED';
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly shards: Shard[];
}

export interface StreamStoreOptions {
  /** Close the open shard after this many records and open a child. @default no rollover */
  readonly shardRolloverRecords?: number;
  /** How long a shard iterator stays valid (ms). @default 15 minutes, as in AWS */
  readonly iteratorTtlMs?: number;
  /** The clock (epoch ms). @default Date.now */
  readonly now?: () => number;
  /** The region reported in records. @default 'us-east-1' */
  readonly region?: string;
}

const FIRST_SEQUENCE = 10n ** 20n;

/** The streams of every table, their shards and records. */
export class StreamStore {
  readonly #streams: Stream[] = [];
  readonly #rollover: number;
  readonly #ttl: number;
  readonly #now: () => number;
  readonly #region: string;
  #nextSequence = FIRST_SEQUENCE;

  constructor(options: StreamStoreOptions = {}) {
    this.#rollover = options.shardRolloverRecords ?? Number.POSITIVE_INFINITY;
    this.#ttl = options.iteratorTtlMs ?? 15 * 60_000;
    this.#now = options.now ?? Date.now;
    this.#region = options.region ?? 'us-east-1';
  }

  /** How long shard iterators stay valid (ms). */
  get iteratorTtlMs(): number {
    return this.#ttl;
  }

  /** The region reported in records. */
  get region(): string {
    return this.#region;
  }

  /** The current time (epoch ms) of the store's clock. */
  now(): number {
    return this.#now();
  }

  /** The enabled stream of `tableName`, if any. */
  enabled(tableName: string): { arn: string; label: string; viewType: StreamViewType } | null {
    const stream = this.#streams.find(
      (s) => s.table.tableName === tableName && s.status === 'ENABLED',
    );
    return stream === undefined ? null : stream;
  }

  /** The most recently created stream of `tableName` (enabled or not), if any. */
  latest(tableName: string): { arn: string; label: string } | null {
    return this.#streams.findLast((s) => s.table.tableName === tableName) ?? null;
  }

  /** Enables a new stream on `table`. ValidationException when one is enabled already. */
  enable(table: StreamTable, viewType: StreamViewType): { arn: string; label: string } {
    const current = this.enabled(table.tableName);
    if (current !== null) {
      throw validationError(`Table already has an enabled stream: ${current.arn}`);
    }
    let createdAt = this.#now();
    const last = this.latest(table.tableName);
    if (last !== null && labelOf(createdAt) <= last.label) {
      createdAt = Date.parse(`${last.label}Z`) + 1;
    }
    const label = labelOf(createdAt);
    const stream: Stream = {
      arn: `${table.tableArn}/stream/${label}`,
      label,
      table,
      viewType,
      status: 'ENABLED',
      createdAt,
      shards: [],
    };
    stream.shards.push(this.#newShard(null));
    this.#streams.push(stream);
    return stream;
  }

  /** Disables the enabled stream of `tableName` (its open shard closes); no-op when none. */
  disable(tableName: string): void {
    const stream = this.#streams.find(
      (s) => s.table.tableName === tableName && s.status === 'ENABLED',
    );
    if (stream === undefined) return;
    const open = stream.shards.find((s) => s.endingSequenceNumber === null);
    if (open !== undefined) this.#close(open);
    stream.status = 'DISABLED';
  }

  /**
   * Appends the change record of one write to the enabled stream of `tableName`. Writes that
   * change nothing (same image before and after, or no item before and after) leave no record,
   * as in DynamoDB. Returns the sequence number, or `null` when nothing was recorded.
   */
  append(tableName: string, change: ItemChange): string | null {
    const stream = this.#streams.find(
      (s) => s.table.tableName === tableName && s.status === 'ENABLED',
    );
    if (stream === undefined) return null;
    const { oldImage, newImage } = change;
    if (oldImage === null && newImage === null) return null;
    if (oldImage !== null && newImage !== null && sameItem(oldImage, newImage)) return null;
    const eventName = oldImage === null ? 'INSERT' : newImage === null ? 'REMOVE' : 'MODIFY';
    const shard = this.#openShard(stream);
    const sequenceNumber = this.#nextSequence++;
    const createdAt = this.#now();
    const images: Record<string, unknown> = { Keys: change.keys };
    if (
      newImage !== null &&
      (stream.viewType === 'NEW_IMAGE' || stream.viewType === 'NEW_AND_OLD_IMAGES')
    ) {
      images.NewImage = newImage;
    }
    if (
      oldImage !== null &&
      (stream.viewType === 'OLD_IMAGE' || stream.viewType === 'NEW_AND_OLD_IMAGES')
    ) {
      images.OldImage = oldImage;
    }
    shard.records.push({
      sequenceNumber,
      eventID: randomUUID().replaceAll('-', ''),
      eventName,
      createdAt,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(createdAt / 1000),
        ...images,
        SequenceNumber: String(sequenceNumber),
        SizeBytes: byteLength(images),
        StreamViewType: stream.viewType,
      },
    });
    if (shard.records.length >= this.#rollover) this.rollover(tableName);
    return String(sequenceNumber);
  }

  /**
   * Closes the open shard of `tableName`'s enabled stream (even an empty one) and opens a
   * child shard whose ParentShardId is the closed one. Returns the child's id.
   */
  rollover(tableName: string): string {
    const stream = this.#streams.find(
      (s) => s.table.tableName === tableName && s.status === 'ENABLED',
    );
    if (stream === undefined) throw validationError(`Table ${tableName} has no enabled stream`);
    const open = this.#openShard(stream);
    this.#close(open);
    const child = this.#newShard(open.id);
    stream.shards.push(child);
    return child.id;
  }

  /** Trims every record stored so far (as if the 24-hour retention had passed). */
  trimAll(): void {
    for (const stream of this.#streams) {
      for (const shard of stream.shards) shard.trimmedBefore = shard.records.length;
    }
  }

  /** Every stream, in creation order. */
  list(): readonly Stream[] {
    return this.#streams;
  }

  /** The stream `arn`; ResourceNotFoundException when unknown. */
  stream(arn: unknown): Stream {
    const stream = this.#streams.find((s) => s.arn === arn);
    if (stream === undefined) throw notFound(`Stream: ${String(arn)} not found`);
    return stream;
  }

  #openShard(stream: Stream): Shard {
    const open = stream.shards.find((s) => s.endingSequenceNumber === null);
    if (open !== undefined) return open;
    const child = this.#newShard(stream.shards.at(-1)?.id ?? null);
    stream.shards.push(child);
    return child;
  }

  #close(shard: Shard): void {
    const last = shard.records.at(-1);
    // An empty shard still spans a sequence number, so its range is never empty.
    shard.endingSequenceNumber = last?.sequenceNumber ?? this.#nextSequence++;
  }

  #newShard(parentId: string | null): Shard {
    const created = String(this.#now()).padStart(20, '0');
    return {
      id: `shardId-${created}-${randomBytes(4).toString('hex')}`,
      parentId,
      startingSequenceNumber: this.#nextSequence,
      endingSequenceNumber: null,
      records: [],
      trimmedBefore: 0,
    };
  }
}
