import type { SourceRecord } from '../../connect/records.js';
import type { SourceTask } from '../../connect/source.js';
import type { OutgoingRecord } from '../../ports/kafka.js';
import type { PipelineResult, SourceRecordPipeline } from './pipeline.js';
import type { SourceTaskMetrics } from './source-task-metrics.js';

/** One processed poll batch: `produced[i]` belongs to `polled[i]` (null when not produced). */
export interface PolledBatch {
  readonly polled: readonly SourceRecord[];
  readonly produced: readonly (OutgoingRecord | null)[];
  readonly deadLetters: readonly OutgoingRecord[];
  /**
   * `deadLetterOf[j]` is the index in `polled` of the record that produced `deadLetters[j]`
   * (ascending), so a batch split between transactions keeps each dead letter with its record.
   */
  readonly deadLetterOf: readonly number[];
  /** How many polled records produced a record (the others were dropped or dead-lettered). */
  readonly written: number;
}

/** The records of a batch one transaction takes (see {@link sliceBatch}). */
export type BatchPart = Pick<PolledBatch, 'polled' | 'produced' | 'deadLetters'>;

const noBatch: PolledBatch = {
  polled: [],
  produced: [],
  deadLetters: [],
  deadLetterOf: [],
  written: 0,
};

/** The first index in ascending `sorted` whose value is at least `value`. */
function lowerBound(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as number) < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Polled records `from` (inclusive) to `to` (exclusive) of `batch`, with their produced records
 * and their dead letters; the batch's own arrays when that is the whole batch.
 */
export function sliceBatch(batch: PolledBatch, from: number, to: number): BatchPart {
  if (from === 0 && to === batch.polled.length) return batch;
  const { deadLetters, deadLetterOf } = batch;
  return {
    polled: batch.polled.slice(from, to),
    produced: batch.produced.slice(from, to),
    deadLetters:
      deadLetters.length === 0
        ? deadLetters
        : deadLetters.slice(lowerBound(deadLetterOf, from), lowerBound(deadLetterOf, to)),
  };
}

/** Counts a batch the runner took (a batch polled ahead and dropped is not counted). */
export function countBatch(metrics: SourceTaskMetrics, batch: PolledBatch): void {
  metrics.polled += batch.polled.length;
  metrics.written += batch.written;
  metrics.skipped += batch.polled.length - batch.written;
  metrics.deadLettered += batch.deadLetters.length;
}

/** The topics a batch writes to (its records' and its dead letters'), lazily. */
export function* topicsOf(batch: PolledBatch): Generator<string> {
  for (const record of batch.produced) if (record !== null) yield record.topic;
  for (const record of batch.deadLetters) yield record.topic;
}

/** `work` on each item in turn (the next starts when the previous resolved). */
async function sequentially<T, R>(
  items: readonly T[],
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await work(item));
  return results;
}

/**
 * Polls `task` once and runs the records through `pipeline` (a whole batch at once when the
 * pipeline can); `metrics` gets the emit lag. An empty poll gives an empty batch.
 */
export async function pollBatch(
  task: SourceTask,
  pipeline: SourceRecordPipeline,
  metrics: SourceTaskMetrics,
  now: () => number,
): Promise<PolledBatch> {
  const polled = (await task.poll()) ?? [];
  if (polled.length === 0) return noBatch;
  const results =
    pipeline.processBatch !== undefined
      ? await pipeline.processBatch(polled)
      : await sequentially(polled, (record) => pipeline.process(record));
  const produced: (OutgoingRecord | null)[] = new Array(polled.length);
  const deadLetters: OutgoingRecord[] = [];
  const deadLetterOf: number[] = [];
  let written = 0;
  const at = now();
  for (let i = 0; i < polled.length; i += 1) {
    const timestamp = (polled[i] as SourceRecord).timestamp;
    if (timestamp !== null) metrics.emitLagMs = Math.max(metrics.emitLagMs, at - timestamp);
    const result = results[i] as PipelineResult;
    if (result.kind === 'produce') {
      produced[i] = result.record;
      written += 1;
    } else {
      produced[i] = null;
      for (const dead of result.deadLetters) {
        deadLetters.push(dead);
        deadLetterOf.push(i);
      }
    }
  }
  return { polled, produced, deadLetters, deadLetterOf, written };
}
