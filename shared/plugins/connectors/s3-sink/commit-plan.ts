/**
 * What a batch writes for one Kafka partition under `s3.write.mode=once`: which objects are
 * complete and get sealed (their final key written once), which go on filling their staging
 * object, and whether the partition's staging prefix must be listed to find objects of complete
 * buckets the batch holds no record for.
 *
 * A bucket is complete once the sink has processed any offset at or beyond its end: objects
 * are functions of Kafka coordinates, and a partition's offsets arrive in order, so no record
 * can join it any more (offset gaps from transaction markers and compaction included).
 */

import type { ObjectLayout, PendingEntry } from './object-layout.js';
import { bucketStart, type StagedKey } from './object-naming.js';
import type { SealRequest } from './object-sealer.js';
import type { PendingObject } from './object-writer.js';

/** The records of one object bound for a final key, from the current batch. */
export interface BatchObject {
  readonly key: string;
  readonly stagingKey: string;
  /** The object's first offset (in its name): its bucket's, or a schema run's within it. */
  readonly bucketStart: number;
  readonly entries: readonly PendingEntry[];
  /** The final object's layout. @default the writer's lines */
  readonly layout?: ObjectLayout;
  /** The staging object's layout. @default the writer's lines */
  readonly stagingLayout?: ObjectLayout;
}

/** How a partition's objects are sealed, beyond the defaults of the lines formats. */
export interface PlanOptions {
  /** The final layout of a staged object sealed alone (listed, no record in the batch). */
  readonly layoutOfListed?: (finalKey: string) => ObjectLayout;
  /**
   * Keep the staging objects of buckets the batch started in (their end above
   * `batch.firstOffset`): a replay may start in them again, and container formats read their
   * history there (`object-segments.ts`). The task deletes them later.
   */
  readonly keepStagingOfOpenBuckets?: boolean;
}

/** One Kafka partition's part of the batch. */
export interface PartitionBatch {
  /** The first offset the batch gave for it (the records before are durable already). */
  readonly firstOffset: number;
  /** The offset after the last one processed (what preCommit commits). */
  readonly nextOffset: number;
  readonly objects: readonly BatchObject[];
}

/** The writes of one Kafka partition's batch. */
export interface CommitPlan {
  /** Buckets starting below this offset are complete. */
  readonly completeBelow: number;
  readonly seal: readonly SealRequest[];
  /** Objects of buckets still filling: appended to their staging key. */
  readonly stage: readonly PendingObject[];
}

/** The first offset of the first bucket not complete once `nextOffset` is reached. */
export function completeBelow(nextOffset: number, flushSize: number): number {
  return bucketStart(nextOffset, flushSize);
}

/**
 * Whether the staging prefix must be listed: some bucket became complete that this writer has
 * not sealed (`sealedBelow`: what it sealed in earlier batches of this partition; undefined
 * when it does not know, e.g. a fresh task or a partition just assigned), whose earlier records
 * may be staged under encoded partitions the batch holds no record for.
 */
export function needsListing(completed: number, sealedBelow: number | undefined): boolean {
  return completed > (sealedBelow ?? 0);
}

/**
 * Splits a partition's batch: objects of complete buckets are sealed (their staging object read
 * only when the batch started after the bucket's first offset), the others staged; objects
 * `listed` under the staging prefix for complete buckets the batch does not hold are sealed from
 * their staging object alone.
 */
export function planCommit(
  batch: PartitionBatch,
  flushSize: number,
  listed: readonly StagedKey[],
  options: PlanOptions = {},
): CommitPlan {
  const below = completeBelow(batch.nextOffset, flushSize);
  const seal: SealRequest[] = [];
  const stage: PendingObject[] = [];
  const inBatch = new Set<string>();
  // Added only when staging objects may be kept, so that lines formats' requests stay as they were.
  const deleteStaging = (start: number) =>
    options.keepStagingOfOpenBuckets === true && {
      deleteStaging: bucketStart(start, flushSize) + flushSize <= batch.firstOffset,
    };
  for (const o of batch.objects) {
    inBatch.add(o.key);
    if (o.bucketStart < below) {
      seal.push({
        pending: { key: o.key, entries: o.entries, ...(o.layout && { layout: o.layout }) },
        stagingKey: o.stagingKey,
        readStaging: batch.firstOffset > o.bucketStart,
        ...deleteStaging(o.bucketStart),
      });
    } else if (o.entries.length > 0) {
      const layout = o.stagingLayout;
      stage.push({ key: o.stagingKey, entries: o.entries, ...(layout && { layout }) });
    }
  }
  for (const s of listed) {
    if (s.bucketStart >= below || inBatch.has(s.finalKey)) continue;
    const layout = options.layoutOfListed?.(s.finalKey);
    seal.push({
      pending: { key: s.finalKey, entries: [], ...(layout && { layout }) },
      stagingKey: s.stagingKey,
      readStaging: true,
      ...deleteStaging(s.bucketStart),
    });
  }
  return { completeBelow: below, seal, stage };
}
