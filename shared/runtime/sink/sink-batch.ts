/**
 * One task's share of a batch: skip what is already written (below the stored sink offset, the
 * next offset to read) or past the stopping offset, convert and transform the rest, `open` new
 * partitions, `put`, `preCommit`, and move the stored sink offsets to what `preCommit` returned.
 */
import { ConnectError, isRetriable, RetriableError } from '../../connect/errors.js';
import { type SinkRecord, type TopicPartition, topicPartitionKey } from '../../connect/records.js';
import type { TopicPartitionOffsets } from '../../connect/sink.js';
import type { Clock } from '../../ports/clock.js';
import type { ConsumedPartition } from '../../ports/kafka.js';
import type { Logger } from '../../ports/logger.js';
import type { OffsetStore } from '../../ports/offset-store.js';
import { SinkEnvelope } from '../pipeline/record-envelope.js';
import { retryBackoffMs } from '../pipeline/retry-with-tolerance.js';
import type { SinkPartitionSummary } from './sink-runtime-types.js';
import type { StartedSinkTask } from './sink-task-start.js';

/** A partition's counters while its batch is written, and how the write went. */
export type PartitionTally = {
  -readonly [K in keyof SinkPartitionSummary]: SinkPartitionSummary[K];
} & {
  /** Milliseconds `put` and `preCommit` of the partition's task took. */
  writeMs: number;
  /** True when the partition's task did not complete the batch. */
  batchFailed: boolean;
};

/** What writing a task's batch needs from the invocation. */
export interface TaskBatchEnv {
  readonly connector: string;
  readonly offsets: OffsetStore;
  readonly clock: Clock;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random?: () => number;
  readonly logger: Logger;
  /** Absolute time (clock ms) after which `put` is not retried. */
  readonly deadline: number;
}

/** One partition of the batch, the stored sink offset and its counters. */
export interface TaskBatchPartition {
  readonly batch: ConsumedPartition;
  /** The stored sink offset (the next offset to read), 0 when none. */
  readonly stored: number;
  readonly tally: PartitionTally;
}

/** A partition's records to write, each in its envelope, and the partition's counters. */
interface PartitionRecords {
  readonly tally: PartitionTally;
  readonly envelopes: SinkEnvelope[];
}

/**
 * Writes a task's partitions of the batch; resolves with the time `put` and `preCommit` took.
 * Rejects with a RetriableError when the batch should simply be redelivered (a `put` that kept
 * failing with retriable errors until the retry budget or the deadline ran out, a retriable
 * `preCommit` failure); any other rejection fails the task (an untolerated conversion or
 * transformation error, a non-retriable `put` or `preCommit` error). Nothing is committed for a
 * rejected batch.
 */
export async function writeTaskBatch(
  started: StartedSinkTask,
  partitions: readonly TaskBatchPartition[],
  env: TaskBatchEnv,
): Promise<number> {
  const { task, pipeline, context, stopping } = started;
  const fresh: PartitionRecords[] = [];
  const current = new Map<string, number>();
  const tallies = new Map<string, PartitionTally>();
  for (const { batch, stored, tally } of partitions) {
    const id = topicPartitionKey(batch);
    tallies.set(id, tally);
    const stop = stopping.get(id);
    const envelopes: SinkEnvelope[] = [];
    let next = stored;
    for (const record of batch.records) {
      if (record.offset < next) tally.duplicates += 1;
      else if (stop !== undefined && record.offset >= stop) tally.pastStopping += 1;
      else {
        next = record.offset + 1;
        envelopes.push(new SinkEnvelope(record));
        current.set(id, next);
      }
    }
    tally.skipped = tally.duplicates + tally.pastStopping;
    if (envelopes.length > 0) fresh.push({ tally, envelopes });
  }
  if (fresh.length === 0) return 0;

  const assignment: TopicPartition[] = partitions.map(({ batch }) => ({
    topic: batch.topic,
    partition: batch.partition,
  }));
  context.beginBatch({
    assignment,
    onErrant: (record, deadLettered) => {
      const { originalTopic: topic, originalKafkaPartition: partition } = record;
      const tally = tallies.get(topicPartitionKey({ topic, partition }));
      if (tally === undefined) return;
      tally.failed += 1;
      if (deadLettered) tally.dlq += 1;
    },
  });
  try {
    const toOpen = assignment.filter((tp) => !started.opened.has(topicPartitionKey(tp)));
    if (toOpen.length > 0) {
      await task.open(toOpen);
      for (const tp of toOpen) started.opened.set(topicPartitionKey(tp), tp);
    }
    const records: SinkRecord[] = [];
    for (const { tally, envelopes } of fresh) {
      await pipeline.process(envelopes);
      for (const { outcome, record, deadLettered } of envelopes) {
        if (record !== null) records.push(record);
        else if (outcome === 'filtered') tally.filtered += 1;
        else {
          tally.failed += 1;
          if (deadLettered) tally.dlq += 1;
        }
      }
    }
    const began = env.clock.now();
    await putWithRetry(started, records, env);
    for (const { tally, envelopes } of fresh) {
      for (const { record } of envelopes) if (record !== null) tally.written += 1;
    }
    const committable = await preCommit(started, current);
    const writeMs = env.clock.now() - began;
    await commitOffsets(started, partitions, current, committable, env);
    return writeMs;
  } finally {
    context.endBatch();
  }
}

/** `put`, retried after RetriableErrors (see {@link writeTaskBatch}). */
async function putWithRetry(
  started: StartedSinkTask,
  records: readonly SinkRecord[],
  env: TaskBatchEnv,
): Promise<void> {
  const { retryTimeoutMs, retryDelayMaxMs } = started.config.errors;
  const { connector, task } = started.ref;
  const start = env.clock.now();
  const budgetEnd = retryTimeoutMs < 0 ? Number.POSITIVE_INFINITY : start + retryTimeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await started.task.put(records);
      return;
    } catch (error) {
      if (!isRetriable(error)) {
        throw new ConnectError(
          `Task ${connector}-${task} threw an uncaught and unrecoverable exception in put; ` +
            'it is FAILED until restarted',
          { cause: error },
        );
      }
      const now = env.clock.now();
      // A task's own timeout(ms) asks for retries after that wait (Connect redelivers the batch
      // to put until it succeeds); otherwise errors.retry.timeout bounds the retries.
      const requested = started.context.retryTimeoutMs;
      const delay =
        requested ??
        retryBackoffMs(attempt, retryDelayMaxMs, now, budgetEnd, env.random ?? Math.random);
      if ((requested === undefined && now >= budgetEnd) || now + delay >= env.deadline) {
        throw new RetriableError(
          `Task ${connector}-${task} could not write ${records.length} record(s): put kept ` +
            `failing with retriable errors (${attempt} attempt(s)); the batch will be redelivered`,
          { cause: error },
        );
      }
      env.logger.warn('put failed with a retriable error; retrying', {
        connector,
        task,
        attempt,
        delayMs: delay,
        error,
      });
      await env.sleep(delay);
    }
  }
}

/**
 * `preCommit`. A retriable failure leaves the batch to be redelivered (the task keeps its state,
 * as Connect rewinds to the last committed offsets); any other failure fails the task, so that
 * a sink that cannot write (access denied, missing bucket) shows FAILED instead of retrying
 * silently forever.
 */
async function preCommit(
  started: StartedSinkTask,
  current: ReadonlyMap<string, number>,
): Promise<TopicPartitionOffsets> {
  try {
    return await started.task.preCommit(new Map(current));
  } catch (error) {
    const { connector, task } = started.ref;
    const message = `Task ${connector}-${task} failed in preCommit; nothing is committed`;
    if (isRetriable(error)) {
      throw new RetriableError(`${message} and the batch will be redelivered`, { cause: error });
    }
    throw new ConnectError(`${message}; it is FAILED until restarted`, { cause: error });
  }
}

/**
 * Stores, for each partition `preCommit` returned, the next offset to read it returned (never
 * above the offset after what was given to `put`). The store only moves forward.
 */
async function commitOffsets(
  started: StartedSinkTask,
  partitions: readonly TaskBatchPartition[],
  current: ReadonlyMap<string, number>,
  committable: TopicPartitionOffsets,
  env: TaskBatchEnv,
): Promise<void> {
  await Promise.all(
    partitions.map(async ({ batch, stored, tally }) => {
      const id = topicPartitionKey(batch);
      const next = current.get(id);
      const offered = committable.get(id);
      if (next === undefined) return;
      if (offered === undefined || offered < next) {
        // The ESM commits its consumer offsets when the invocation returns, whatever preCommit
        // said: records the task keeps buffered are not delivered again by the mapping.
        env.logger.warn(
          'preCommit held back offsets: records kept buffered in the task are lost if the ' +
            'container is recycled before they are flushed (flush them in preCommit)',
          { connector: env.connector, task: started.ref.task, partition: id, next, offered },
        );
      }
      if (offered === undefined) return;
      const committed = Math.min(offered, next);
      if (committed <= stored) return;
      const moved = await env.offsets.commitSinkOffset(env.connector, {
        topic: batch.topic,
        partition: batch.partition,
        nextOffset: committed,
      });
      if (moved) tally.committedOffset = committed;
    }),
  );
}
