/**
 * Sink batches that keep failing with retriable errors (a `put` past its retries, a retriable
 * `preCommit`, a task that cannot start for now). The event source mapping redelivers such a
 * batch; each failed attempt is counted on the task's status, a retry run (`TaskRetry` in
 * ports/status-store.ts), since in AWS each redelivery may reach another container:
 *
 * - every failed attempt is logged at WARN with its cause (error class and message, never a
 *   stack) and the run so far; the task stays RUNNING with the last error as its `trace`, as
 *   Kafka Connect keeps a task that throws `RetriableException` RUNNING;
 * - once the run has lasted the task's retry limit (`errors.retry.timeout`; 0, Connect's
 *   default, means {@link DEFAULT_SINK_RETRY_LIMIT_MS}; -1 means no limit) over at least
 *   {@link MIN_SINK_RETRY_ATTEMPTS} attempts, the task goes FAILED with the cause in its
 *   `trace` (a departure from Connect, which retries `put` forever), and refuses batches until
 *   it is restarted;
 * - a written batch sharing a partition with the run ends it (RUNNING, no trace).
 *
 * The backoff between attempts is the mapping's: Lambda's own, and the local stand-in's
 * exponential backoff (local/esm/backoff.ts).
 */
import { parseConnectorConfig } from '../../config/connector-config.js';
import type { ConnectorRecord } from '../../ports/config-store.js';
import type { TaskRef } from '../../ports/lease-store.js';
import type { TaskStatus } from '../../ports/status-store.js';
import { describeError, errorSummary } from '../pipeline/error-reporter.js';
import { SinkRetriesExhaustedError } from './errors.js';
import type { SinkRuntimeDeps } from './sink-runtime-types.js';

/** The retry limit when `errors.retry.timeout` is 0 (its default): ten minutes. */
export const DEFAULT_SINK_RETRY_LIMIT_MS = 10 * 60_000;

/** A run fails the task only after this many failed attempts (one redelivery at least). */
export const MIN_SINK_RETRY_ATTEMPTS = 2;

/** How long a retry run may last: `errors.retry.timeout` as the sink reads it. */
export function sinkRetryLimitMs(retryTimeoutMs: number): number {
  if (retryTimeoutMs < 0) return Number.POSITIVE_INFINITY;
  return retryTimeoutMs === 0 ? DEFAULT_SINK_RETRY_LIMIT_MS : retryTimeoutMs;
}

function describeLimit(retryTimeoutMs: number): string {
  if (retryTimeoutMs < 0) return 'errors.retry.timeout=-1: no limit';
  if (retryTimeoutMs === 0) {
    return `errors.retry.timeout=0: the default ${DEFAULT_SINK_RETRY_LIMIT_MS / 1000} s`;
  }
  return `errors.retry.timeout=${retryTimeoutMs} ms`;
}

/**
 * `errors.retry.timeout` of the connector's stored config, for a task that failed before it
 * started (a started task has it parsed); 0 when the config cannot be parsed.
 */
export function storedRetryTimeoutMs(record: ConnectorRecord): number {
  try {
    return parseConnectorConfig({ ...record.config, name: record.name }, 'sink').errors
      .retryTimeoutMs;
  } catch {
    return 0;
  }
}

/** One failed attempt of a task at its share of a batch. */
export interface FailedAttempt {
  readonly ref: TaskRef;
  /** The batch's partitions of the task (`topic-partition` ids). */
  readonly partitions: readonly string[];
  /** When the attempt began (clock ms). */
  readonly startedAt: number;
  /** The connector's `errors.retry.timeout`. */
  readonly retryTimeoutMs: number;
  readonly workerId: string;
  /** The retriable error the attempt failed with. */
  readonly error: unknown;
}

type RetryDeps = Pick<SinkRuntimeDeps, 'store' | 'clock' | 'logger' | 'tasks'>;

/**
 * Counts a failed attempt (see the module notes) and returns the error to throw: the attempt's
 * own (the mapping redelivers the batch), or a {@link SinkRetriesExhaustedError} once the run
 * is past its limit and the task was marked FAILED.
 */
export async function countFailedAttempt(
  deps: RetryDeps,
  attempt: FailedAttempt,
): Promise<unknown> {
  const { ref, error, partitions, workerId } = attempt;
  const fields = {
    connector: ref.connector,
    task: ref.task,
    partitions,
    errorClass: describeError(error).className,
    error: errorSummary(error),
    retryLimit: describeLimit(attempt.retryTimeoutMs),
  };
  let status: TaskStatus | undefined;
  try {
    const outcome = await deps.store.status.recordTaskRetry(ref, {
      workerId,
      trace: describeError(error).stackTrace,
      partitions,
      startedAt: attempt.startedAt,
    });
    status = outcome.counted ? outcome.status : undefined;
  } catch (storeError) {
    deps.logger.warn('sink batch failed; the mapping will redeliver it', {
      ...fields,
      uncounted: `the attempt could not be counted: ${errorSummary(storeError)}`,
    });
    return error;
  }
  const retry = status?.retry;
  const failingForMs = retry === undefined ? 0 : deps.clock.now() - retry.since;
  const limitMs = sinkRetryLimitMs(attempt.retryTimeoutMs);
  if (retry === undefined || retry.attempts < MIN_SINK_RETRY_ATTEMPTS || failingForMs < limitMs) {
    deps.logger.warn('sink batch failed; the mapping will redeliver it', {
      ...fields,
      ...(retry === undefined
        ? { uncounted: 'the task is FAILED, or counts a failing batch of other partitions' }
        : { attempt: retry.attempts, failingForMs }),
    });
    return error;
  }
  const exhausted = new SinkRetriesExhaustedError(
    ref,
    retry,
    { failingForMs, limit: fields.retryLimit },
    { cause: error },
  );
  deps.logger.error('sink task failed: its batch kept failing past its retry limit', {
    ...fields,
    attempt: retry.attempts,
    failingForMs,
  });
  await deps.store.status
    .putTaskStatus(ref, { state: 'FAILED', workerId, trace: describeError(exhausted).stackTrace })
    .catch((e: unknown) =>
      deps.logger.warn('could not record the FAILED status', { error: errorSummary(e) }),
    );
  await deps.tasks.evict(ref);
  return exhausted;
}

/**
 * After the task wrote its share of a batch: ends the task's retry run when the batch shares a
 * partition with it, or marks the task RUNNING when it was not.
 */
export async function markBatchWritten(
  deps: RetryDeps,
  ref: TaskRef,
  status: TaskStatus | undefined,
  partitions: readonly string[],
  workerId: string,
): Promise<void> {
  const retry = status?.retry;
  if (retry?.partitions.some((p) => partitions.includes(p))) {
    const ended = await deps.store.status
      .endTaskRetry(ref, partitions, workerId)
      .catch((e: unknown) => {
        deps.logger.warn('could not end the retry run', { error: errorSummary(e) });
        return false;
      });
    if (ended) {
      deps.logger.info('sink batch written after failed attempts; the task is no longer retrying', {
        connector: ref.connector,
        task: ref.task,
        partitions,
        failedAttempts: retry.attempts,
        failingForMs: deps.clock.now() - retry.since,
      });
    }
    return;
  }
  if (status?.state === 'RUNNING') return;
  await deps.store.status
    .putTaskStatus(ref, { state: 'RUNNING', workerId })
    .catch((e: unknown) =>
      deps.logger.warn('could not record the RUNNING status', { error: errorSummary(e) }),
    );
}
