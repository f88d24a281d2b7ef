/**
 * Shard lineage for the DynamoDB Streams source task. DynamoDB writes an item's changes to one
 * shard at a time; when a shard closes, its child shards take over, so an item's later changes
 * are in a child. A child is therefore read only once its parent is complete:
 * - a parent the task owns is complete once read to its end (GetRecords returned no
 *   NextShardIterator) or when its committed offset says `closed`;
 * - a parent another task owns is complete when its committed offset (read through the
 *   OffsetStorageReader) says `closed`, or when the parent is closed and a probe from its
 *   committed offset finds no further record: every record of it is then committed, in Kafka,
 *   before the child's task writes any of the child's;
 * - a parent DescribeStream no longer lists (trimmed after 24 hours) holds nothing up;
 * - a shard with a committed offset of its own was read before, so its parent was complete.
 * Within one task, children follow their parent in the same invocation; across tasks, the
 * child's task sees the parent's progress as the runtime's offset reader reports it (in this
 * runtime: at its next invocation).
 */
import type { OffsetStorageReader } from 'serverless-connect/connect';
import type { StartPosition } from './dynamodb-streams-config.js';
import { parseShardOffset, shardPartition } from './dynamodb-streams-offsets.js';
import { compareSequenceNumbers } from './shard-assignment.js';
import {
  type DynamoDbStreamsClientPort,
  type RecordsPage,
  type ShardDescription,
  StreamNotFoundError,
  TrimmedDataError,
} from './streams-client.js';

/** How reading an owned shard began. */
export type Origin = 'offset' | 'trim-horizon' | 'latest' | 'skipped';

/** What a task knows of one listed shard. */
export interface TrackedShard {
  readonly id: string;
  readonly parentId: string | null;
  endingSequenceNumber: string | null;
  /** Whether this task reads the shard. */
  readonly owned: boolean;
  /** Owned: the sequence number of the last record delivered or committed. */
  lastSequence: string | null;
  /** Owned: `null` until reading starts. */
  origin: Origin | null;
  iterator: string | null;
  /** Owned: read to its end. Not owned: known to be read to its end by its task. */
  complete: boolean;
  /** Not owned: whether a committed offset was found at the last check. */
  committed: boolean;
}

/** The tracking state of a newly listed shard. */
export function trackShard(shard: ShardDescription, owned: boolean): TrackedShard {
  return {
    id: shard.shardId,
    parentId: shard.parentShardId,
    endingSequenceNumber: shard.endingSequenceNumber,
    owned,
    lastSequence: null,
    origin: null,
    iterator: null,
    complete: false,
    committed: false,
  };
}

/** Whether `shard` may be read: no listed parent, a complete parent, or an offset of its own. */
export function parentComplete(
  shards: ReadonlyMap<string, TrackedShard>,
  shard: TrackedShard,
): boolean {
  if (shard.parentId === null || shard.origin === 'offset') return true;
  const parent = shards.get(shard.parentId);
  return parent === undefined || parent.complete;
}

/**
 * Where an owned shard without a committed offset starts: TRIM_HORIZON, or under LATEST the
 * shard's start when its parent was read (so no change of an item is skipped between parent
 * and child), else the latest record for an open shard, and nothing for a closed one.
 */
export function originOf(
  startPosition: StartPosition,
  shards: ReadonlyMap<string, TrackedShard>,
  shard: TrackedShard,
): Origin {
  if (startPosition === 'TRIM_HORIZON') return 'trim-horizon';
  const parent = shard.parentId === null ? undefined : shards.get(shard.parentId);
  const parentRead =
    parent !== undefined &&
    (parent.owned ? parent.origin !== null && parent.origin !== 'skipped' : parent.committed);
  if (parentRead) return 'trim-horizon';
  return shard.endingSequenceNumber === null ? 'latest' : 'skipped';
}

/** What {@link checkForeignParent} reads. */
export interface ForeignParentDeps {
  readonly client: DynamoDbStreamsClientPort;
  readonly reader: OffsetStorageReader;
  readonly streamArn: string;
  readonly table: string;
  readonly startPosition: StartPosition;
}

/** How many empty GetRecords pages a probe of another task's parent shard follows. */
const PROBE_HOPS = 3;

/**
 * Sets `parent.complete` when another task's `parent` is complete: its committed offset says
 * `closed`, or it is closed and nothing follows its committed offset (a probe of up to
 * {@link PROBE_HOPS} GetRecords). Under LATEST, a closed parent without a committed offset is
 * skipped by its task, hence complete. A parent whose records were trimmed stays incomplete
 * (its own task reports the loss).
 */
export async function checkForeignParent(
  deps: ForeignParentDeps,
  parent: TrackedShard,
): Promise<void> {
  const offset = parseShardOffset(await deps.reader.offset(shardPartition(deps.table, parent.id)));
  parent.committed = offset !== null;
  const ending = parent.endingSequenceNumber;
  if (offset?.closed === true) {
    parent.complete = true;
    return;
  }
  if (ending === null) return;
  const last = offset?.sequenceNumber ?? null;
  if (
    (offset === null && deps.startPosition === 'LATEST') ||
    (last !== null && compareSequenceNumbers(last, ending) >= 0)
  ) {
    parent.complete = true;
    return;
  }
  try {
    let iterator: string | null = await deps.client.getShardIterator(
      deps.streamArn,
      parent.id,
      last === null ? 'TRIM_HORIZON' : 'AFTER_SEQUENCE_NUMBER',
      ...(last === null ? [] : [last]),
    );
    for (let hop = 0; hop < PROBE_HOPS && iterator !== null; hop++) {
      const page: RecordsPage = await deps.client.getRecords(iterator, 1);
      if (page.records.length > 0) return;
      iterator = page.nextIterator;
    }
    if (iterator === null) parent.complete = true;
  } catch (error) {
    if (error instanceof StreamNotFoundError) parent.complete = true;
    else if (!(error instanceof TrimmedDataError)) throw error;
  }
}
