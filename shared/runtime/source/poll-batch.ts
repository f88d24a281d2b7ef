import type { SourceTask } from '../../connect/source.js';
import { recordBytes } from '../metering/record-bytes.js';
import { SourceEnvelope } from '../pipeline/record-envelope.js';
import type { SourceRecordPipeline } from '../pipeline/source-pipeline.js';
import type { SourceTaskMetrics } from './source-task-metrics.js';

/** One processed poll batch: each polled record in its envelope, in poll order. */
export interface PolledBatch {
  readonly envelopes: readonly SourceEnvelope[];
  /** How many polled records produced a record (the others were dropped or dead-lettered). */
  readonly written: number;
  /** How many dead letters the batch's records made. */
  readonly deadLetters: number;
  /** The bytes of the records to produce (recordBytes; dead letters not counted). */
  readonly bytes: number;
}

const noBatch: PolledBatch = { envelopes: [], written: 0, deadLetters: 0, bytes: 0 };

/** Counts a batch the runner took (a batch polled ahead and dropped is not counted). */
export function countBatch(metrics: SourceTaskMetrics, batch: PolledBatch): void {
  metrics.polled += batch.envelopes.length;
  metrics.written += batch.written;
  metrics.skipped += batch.envelopes.length - batch.written;
  metrics.deadLettered += batch.deadLetters;
  metrics.producedRecords += batch.written;
  metrics.producedBytes += batch.bytes;
}

/** The topics a batch writes to (its records' and its dead letters'), lazily. */
export function* topicsOf(batch: PolledBatch): Generator<string> {
  for (const { outgoing, deadLetters } of batch.envelopes) {
    if (outgoing !== null) yield outgoing.topic;
    for (const record of deadLetters) yield record.topic;
  }
}

/**
 * Polls `task` once, puts each record in its envelope and runs them through `pipeline`;
 * `metrics` gets the emit lag. An empty poll gives an empty batch.
 */
export async function pollBatch(
  task: SourceTask,
  pipeline: SourceRecordPipeline,
  metrics: SourceTaskMetrics,
  now: () => number,
): Promise<PolledBatch> {
  const polled = (await task.poll()) ?? [];
  if (polled.length === 0) return noBatch;
  const envelopes = polled.map((record, index) => new SourceEnvelope(record, index));
  await pipeline.process(envelopes);
  let written = 0;
  let deadLetters = 0;
  let bytes = 0;
  const at = now();
  for (const envelope of envelopes) {
    const { timestamp } = envelope.original;
    if (timestamp !== null) metrics.emitLagMs = Math.max(metrics.emitLagMs, at - timestamp);
    if (envelope.outgoing !== null) {
      written += 1;
      bytes += recordBytes(envelope.outgoing);
    }
    deadLetters += envelope.deadLetters.length;
  }
  return { envelopes, written, deadLetters, bytes };
}
