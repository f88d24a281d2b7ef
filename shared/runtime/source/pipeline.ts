import type { SourceRecord } from '../../connect/records.js';
import type { OutgoingRecord } from '../../ports/kafka.js';

/** What became of one polled record. */
export type PipelineResult =
  /** Transformed and converted: produce it. */
  | { readonly kind: 'produce'; readonly record: OutgoingRecord }
  /**
   * Not produced: a transformation dropped it, or it failed and `errors.tolerance=all` skips it;
   * `deadLetters` (possibly empty) go to the dead letter queue in the same transaction.
   */
  | { readonly kind: 'skip'; readonly deadLetters: readonly OutgoingRecord[] };

/**
 * The per-record path of a source task: transformations, then key, value and header
 * converters, under the connector's error-handling settings. Throws when a failure is not
 * tolerated (the task fails).
 */
export interface SourceRecordPipeline {
  process(record: SourceRecord): Promise<PipelineResult>;
  /**
   * The results of a whole poll batch, in order: the same as calling {@link process} on each
   * record in turn (the runner uses it when present; it saves a promise per record and stage).
   */
  processBatch?(records: readonly SourceRecord[]): Promise<PipelineResult[]>;
  close(): void;
}
