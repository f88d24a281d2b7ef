/**
 * What an S3 sink task knows of the schema runs of its Kafka partitions (container formats, see
 * `object-segments.ts`): the runs after its last successful flush of each partition, and the
 * staging objects it sealed but kept, until no batch can start in their bucket again.
 */

import { bucketStart, type StagedKey } from './object-naming.js';
import type { SealRequest } from './object-sealer.js';
import { runsFromStaging, SchemaRuns } from './object-segments.js';

/** A staging object kept after its final object was sealed, until its bucket is behind. */
export interface KeptStaging {
  readonly bucketEnd: number;
  readonly stagingKey: string;
}

/** What a flush of one Kafka partition did, for the history. */
export interface FlushedPartition {
  /** The first offset of the batch (put saw), and the offset after it. */
  readonly first: number;
  readonly next: number;
  /** The runs after the batch's records. */
  readonly runs: SchemaRuns;
  readonly seal: readonly SealRequest[];
  /** The kept staging objects this flush deleted. */
  readonly deleted: readonly KeptStaging[];
}

/**
 * The schema history of one task's Kafka partitions, by source partition key.
 *
 * @example
 * const runs = await history.runsBefore(tp, first, flushSize, listed, fingerprintOf);
 * const deletes = history.deletable(tp, first); // delete them with the batch's writes
 * history.flushed(tp, flushSize, { first, next, runs, seal: plan.seal, deleted: deletes });
 */
export class SchemaHistory {
  /** Per partition: the runs after the last flush, which hold for a batch from `next` on. */
  readonly #runs = new Map<string, { readonly next: number; readonly runs: SchemaRuns }>();
  readonly #kept = new Map<string, readonly KeptStaging[]>();

  /**
   * The runs before offset `first` in its bucket: none when the batch starts the bucket; this
   * task's own after its last flush when the batch continues from there; else read from the
   * partition's staged objects (`listed`, and `fingerprintOf` their metadata).
   */
  async runsBefore(
    tp: string,
    first: number,
    flushSize: number,
    listed: () => Promise<readonly StagedKey[]>,
    fingerprintOf: (stagingKey: string) => Promise<string | null>,
  ): Promise<SchemaRuns> {
    const bucket = bucketStart(first, flushSize);
    if (first === bucket) return new SchemaRuns();
    const known = this.#runs.get(tp);
    if (known !== undefined && first >= known.next) return known.runs.from(bucket);
    return runsFromStaging(await listed(), bucket, flushSize, first, fingerprintOf);
  }

  /** The kept staging objects of `tp` that a batch starting at `first` may delete. */
  deletable(tp: string, first: number): KeptStaging[] {
    return (this.#kept.get(tp) ?? []).filter((k) => k.bucketEnd <= first);
  }

  /** Records a successful flush of `tp`. */
  flushed(tp: string, flushSize: number, flush: FlushedPartition): void {
    this.#runs.set(tp, {
      next: flush.next,
      runs: flush.runs.from(bucketStart(flush.next, flushSize)),
    });
    // Seals keep the staging objects of the bucket the batch started in only (commit-plan.ts).
    const bucketEnd = bucketStart(flush.first, flushSize) + flushSize;
    const kept = new Map<string, KeptStaging>();
    for (const k of this.#kept.get(tp) ?? []) {
      if (!flush.deleted.includes(k)) kept.set(k.stagingKey, k);
    }
    for (const r of flush.seal) {
      if (r.deleteStaging === false)
        kept.set(r.stagingKey, { bucketEnd, stagingKey: r.stagingKey });
    }
    this.#kept.set(tp, [...kept.values()]);
  }

  /** Forgets `tp` (closed: another task may own it now). */
  forget(tp: string): void {
    this.#runs.delete(tp);
    this.#kept.delete(tp);
  }

  clear(): void {
    this.#runs.clear();
    this.#kept.clear();
  }
}
