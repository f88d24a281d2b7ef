/**
 * Runs the writes of one `put`: collapses the writes of each item to the latest, then sends
 * one conditional write per item with bounded concurrency, retrying transient failures.
 *
 * Why collapsing keeps the outcome of writing every record in order: the writes of an item are
 * ordered by the batch (per partition), each write replaces the whole item, and a later write
 * of the same partition always passes the guard of an earlier one; so writing only the latest
 * leaves the item as writing all of them would. Across partitions the batch order is the only
 * order there is, and the latest in the batch wins. When DynamoDB rejects the latest write as
 * invalid, the record is reported and the item's previous write is tried instead, exactly as if
 * the records had arrived in separate batches.
 */
import { DataError, type ErrantRecordReporter, type SinkRecord } from 'serverless-connect/connect';
import type { RecordWrite } from './record-writes.js';
import type { DynamoDbSinkClient } from './sink-client.js';
import {
  classifyWriteError,
  errorText,
  fatalError,
  type RetryPolicy,
  withRetries,
} from './write-errors.js';

/** What `put` calls did, cumulatively. */
export interface DynamoDbSinkStats {
  /** Writes that took effect (puts, markers and deletes). */
  applied: number;
  /** Writes whose guard failed: already applied, or older than the stored item. */
  stale: number;
  /** Records not sent because a later record of the same item in the batch replaced them. */
  superseded: number;
  /** Tombstones ignored because `delete.enabled` is false. */
  tombstonesSkipped: number;
  /** Records handed to the errant record reporter. */
  reported: number;
}

/** Fresh, zeroed stats. */
export function emptyStats(): DynamoDbSinkStats {
  return { applied: 0, stale: 0, superseded: 0, tombstonesSkipped: 0, reported: 0 };
}

/** What {@link executeWrites} works with. */
export interface WriteExecution {
  readonly client: DynamoDbSinkClient;
  readonly retry: RetryPolicy;
  /** The most writes in flight. */
  readonly concurrency: number;
  /** Hands a bad record on, or throws (see {@link reportOrThrow}). */
  readonly report: (record: SinkRecord, error: DataError) => Promise<void>;
  readonly stats: DynamoDbSinkStats;
}

/**
 * Reports `error` for `record` through `reporter`, or rethrows it when there is no reporter
 * (the batch fails, as Connect fails a task on a DataException without error tolerance).
 */
export async function reportOrThrow(
  reporter: ErrantRecordReporter | null,
  record: SinkRecord,
  error: DataError,
): Promise<void> {
  if (reporter === null) throw error;
  await reporter.report(record, error);
}

/** The writes grouped by item, each group in batch order, groups in order of first write. */
export function groupByItem(writes: readonly RecordWrite[]): RecordWrite[][] {
  const groups = new Map<string, RecordWrite[]>();
  for (const write of writes) {
    const group = groups.get(write.itemId);
    if (group === undefined) groups.set(write.itemId, [write]);
    else group.push(write);
  }
  return [...groups.values()];
}

function describeRecord(write: RecordWrite): string {
  const { record } = write;
  return `${record.originalTopic}-${record.originalKafkaPartition}@${record.originalKafkaOffset}`;
}

/** Writes the latest write of `group` that DynamoDB accepts. */
async function writeItem(group: readonly RecordWrite[], run: WriteExecution): Promise<void> {
  for (let i = group.length - 1; i >= 0; i--) {
    const candidate = group[i] as RecordWrite;
    const { table } = candidate.write;
    const what = `Writing record ${describeRecord(candidate)} to DynamoDB table ${table}`;
    try {
      const outcome = await withRetries(what, run.retry, () => run.client.write(candidate.write));
      run.stats[outcome === 'applied' ? 'applied' : 'stale'] += 1;
      run.stats.superseded += i;
      return;
    } catch (error) {
      if (classifyWriteError(error) !== 'invalid') throw fatalError(table, what, error);
      const message = `DynamoDB rejected the item of record ${describeRecord(candidate)} for table ${table}: ${errorText(error)}`;
      await run.report(candidate.record, new DataError(message, { cause: error }));
      run.stats.reported += 1;
    }
  }
}

/**
 * Writes `writes` (in batch order): one conditional write per item, at most
 * `run.concurrency` at once. On the first failure no further write starts; the writes in
 * flight finish, then the failure is thrown (RetriableError after retries, DataError without a
 * reporter, ConnectError otherwise). Whatever was written stays written: every write is
 * guarded, so the redelivered batch converges.
 */
export async function executeWrites(
  writes: readonly RecordWrite[],
  run: WriteExecution,
): Promise<void> {
  const groups = groupByItem(writes);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (failure === null && next < groups.length) {
      const group = groups[next++] as RecordWrite[];
      try {
        await writeItem(group, run);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const workers = Math.max(1, Math.min(run.concurrency, groups.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
}
