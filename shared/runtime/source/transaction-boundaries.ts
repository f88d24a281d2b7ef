import { IllegalStateError } from '../../connect/errors.js';
import type { SourceRecord } from '../../connect/records.js';
import type { SourceEnvelope } from '../pipeline/record-envelope.js';
import type { PolledBatch } from './poll-batch.js';
import type { DroppedRecords } from './source-transaction-sequence.js';

/** How a connector-defined boundary ends the current transaction. */
export type BoundaryKind = 'commit' | 'abort';

/**
 * One `TransactionContext` call of a task: `record` absent for "after the current batch",
 * else the record (the very object `poll` returned) the transaction ends after.
 */
export interface BoundaryRequest {
  readonly kind: BoundaryKind;
  readonly record?: SourceRecord;
}

/**
 * Records `from` (inclusive) to `to` (exclusive) of a batch (their envelopes' `index`), and what
 * happens to the open transaction once they are in it: `commit`, `abort`, or nothing
 * (`undefined`: it stays open).
 */
export interface BatchSlice {
  readonly from: number;
  readonly to: number;
  readonly end: BoundaryKind | undefined;
}

/** Called for a request that names a record not in the batch (it is ignored). */
export type IgnoredRequest = (message: string, fields: Readonly<Record<string, unknown>>) => void;

/**
 * Slices a poll batch (its records' envelopes, in poll order) at the task's boundary requests,
 * as Kafka Connect's `ExactlyOnceWorkerSourceTask` with `transaction.boundary=connector` applies
 * them while it dispatches the batch:
 * - a request naming a record ends the transaction right after that record (the records after
 *   it start the next transaction);
 * - a request without a record ends the transaction open after the whole batch; when a record
 *   request already ended one on the batch's last record, nothing is open and it does nothing;
 * - a record that is not the original of one of the batch's envelopes (identity, not equality)
 *   is ignored, with `ignored` called (Connect keeps such a request, which never matches a
 *   dispatched record).
 *
 * Throws `IllegalStateError` (the task fails) when both a commit and an abort are requested for
 * the same record or for the same batch, as Connect's `WorkerTransactionContext` does.
 *
 * @example
 * planBoundaries(batch.envelopes, [{ kind: 'commit', record: batch.envelopes[2].original }], warn);
 * // → [{ from: 0, to: 3, end: 'commit' }, { from: 3, to: 10, end: undefined }]
 */
export function planBoundaries(
  envelopes: readonly SourceEnvelope[],
  requests: readonly BoundaryRequest[],
  ignored: IgnoredRequest,
): BatchSlice[] {
  const size = envelopes.length;
  let batchEnd: BoundaryKind | undefined;
  let byRecord: Map<number, BoundaryKind> | undefined;
  let indexOf: Map<SourceRecord, number> | undefined;
  for (const { kind, record } of requests) {
    if (record === undefined) {
      if (batchEnd !== undefined && batchEnd !== kind) {
        throw new IllegalStateError(
          'Connector requested both commit and abort of same transaction',
        );
      }
      batchEnd = kind;
      continue;
    }
    indexOf ??= new Map(envelopes.map((e) => [e.original, e.index]));
    const index = indexOf.get(record);
    if (index === undefined) {
      ignored(
        `Ignoring the connector's request to ${kind} the transaction after a record that is not one of the batch just polled`,
        { topic: record.topic, kafkaPartition: record.kafkaPartition },
      );
      continue;
    }
    byRecord ??= new Map();
    const earlier = byRecord.get(index);
    if (earlier !== undefined && earlier !== kind) {
      throw new IllegalStateError(
        `Connector requested both commit and abort of same record against topic/partition ${record.topic}/${record.kafkaPartition}`,
      );
    }
    byRecord.set(index, kind);
  }
  const slices: BatchSlice[] = [];
  let from = 0;
  if (byRecord !== undefined) {
    for (const index of [...byRecord.keys()].sort((a, b) => a - b)) {
      slices.push({ from, to: index + 1, end: byRecord.get(index) });
      from = index + 1;
    }
  }
  if (from < size) slices.push({ from, to: size, end: batchEnd });
  return slices;
}

/** The parts of a `SourceTransactionSequence` that `dispatchSlices` drives. */
export interface SliceTarget {
  send(envelopes: readonly SourceEnvelope[]): Promise<void>;
  commit(): Promise<void>;
  /** Aborts the open transaction; what it dropped, `undefined` when none was open. */
  abort(): Promise<DroppedRecords | undefined>;
}

/** What {@link dispatchSlices} aborted: transactions, and the records they dropped. */
export interface AbortedSlices {
  readonly transactions: number;
  readonly produced: number;
  readonly deadLetters: number;
}

/**
 * Sends each slice of `batch` into the open transaction, committing or aborting it where the
 * slice says (a record's dead letters travel in its envelope, so they join its transaction).
 * Resolves with what it aborted (an aborted transaction may hold records of earlier batches too).
 */
export async function dispatchSlices(
  target: SliceTarget,
  batch: PolledBatch,
  slices: readonly BatchSlice[],
): Promise<AbortedSlices> {
  let transactions = 0;
  let produced = 0;
  let deadLetters = 0;
  const { envelopes } = batch;
  for (const { from, to, end } of slices) {
    await target.send(
      from === 0 && to === envelopes.length ? envelopes : envelopes.slice(from, to),
    );
    if (end === 'commit') await target.commit();
    else if (end === 'abort') {
      const dropped = await target.abort();
      if (dropped === undefined) continue;
      transactions += 1;
      produced += dropped.produced;
      deadLetters += dropped.deadLetters;
    }
  }
  return { transactions, produced, deadLetters };
}
