/**
 * Retries and tolerance (Connect's `RetryWithToleranceOperator`): runs one operation of the
 * pipeline on one record, retries it while it throws retriable errors, and then either fails
 * the task or reports the record and tells the caller to skip it.
 */
import { ConnectError, isRetriable } from '../../connect/errors.js';
import type { Clock } from '../../ports/clock.js';
import type { ErrorReporter } from './error-reporter.js';
import {
  createErrorHandlingMetrics,
  type ErrorHandlingMetrics,
  type ProcessingContext,
  type Stage,
  type ToleranceType,
  toleratesEveryError,
} from './error-stage.js';

/** The first backoff; each retry doubles it (Connect's `RETRIES_DELAY_MIN_MS`). */
export const RETRIES_DELAY_MIN_MS = 300;

/** Message of the error thrown when `errors.tolerance=none` and an operation failed. */
export const TOLERANCE_EXCEEDED = 'Tolerance exceeded in error handler';
/** Message of the error thrown when a stage cannot tolerate the error (e.g. non-retriable in put). */
export const UNHANDLED_EXCEPTION = 'Unhandled exception in error handler';

/**
 * The backoff before retry number `attempt` (1 = the first retry): 300 ms doubling, and once
 * that exceeds `maxDelayMs`, a uniformly random delay in `[0, maxDelayMs)` instead (Connect's
 * jitter), never past `deadline`. `maxDelayMs <= 0` means no delay.
 */
export function retryBackoffMs(
  attempt: number,
  maxDelayMs: number,
  now: number,
  deadline: number,
  random: () => number,
): number {
  let delay = RETRIES_DELAY_MIN_MS * 2 ** (attempt - 1);
  if (delay > maxDelayMs) delay = maxDelayMs <= 0 ? 0 : Math.floor(random() * maxDelayMs);
  return Math.max(0, Math.min(delay, deadline - now));
}

/** The outcome of {@link RetryWithToleranceOperator.execute}. */
export type OperationResult<V> =
  | { readonly failed: false; readonly value: V }
  /** The failure was tolerated and reported: skip the record. */
  | { readonly failed: true; readonly error: unknown };

/** The class reported for a failure, or a function deriving it from the error thrown. */
export type ExecutingClass = string | ((error: unknown) => string);

/** Settings of a {@link RetryWithToleranceOperator}. */
export interface RetryWithToleranceOptions {
  /** `errors.retry.timeout`: 0 = no retry, negative (-1) = retry forever. */
  readonly retryTimeoutMs: number;
  /** `errors.retry.delay.max.ms`. */
  readonly retryDelayMaxMs: number;
  /** `errors.tolerance`. */
  readonly tolerance: ToleranceType;
  /** Called in order for each failure. @default none */
  readonly reporters?: readonly ErrorReporter[];
  /** Counters to update. @default fresh counters */
  readonly metrics?: ErrorHandlingMetrics;
}

/** What a {@link RetryWithToleranceOperator} needs from the outside world. */
export interface RetryWithToleranceDeps {
  readonly clock: Clock;
  /** Waits `ms` milliseconds (a fake in tests; may resolve early when the task is stopping). */
  readonly sleep: (ms: number) => Promise<void>;
  /** Uniform in `[0, 1)`, for the jitter. @default Math.random */
  readonly random?: () => number;
}

/**
 * Runs pipeline operations under `errors.retry.timeout`, `errors.retry.delay.max.ms` and
 * `errors.tolerance`. One instance per task; calls on it are sequential per record.
 *
 * For each {@link execute}:
 * 1. An operation throwing a retriable error (`ConnectError.retriable`) is retried after
 *    {@link retryBackoffMs}, as long as the clock is before `start + errors.retry.timeout`
 *    (forever when negative; never when 0) and {@link stop} was not called.
 * 2. When it still fails, the record's {@link ProcessingContext} is marked failed, and:
 *    - a non-retriable error in a stage that only tolerates retriable ones (`TASK_PUT`,
 *      `TASK_POLL`, `KAFKA_PRODUCE`, `KAFKA_CONSUME`) throws ConnectError
 *      {@link UNHANDLED_EXCEPTION} with the error as `cause`, whatever the tolerance;
 *    - otherwise, `errors.tolerance=none` throws ConnectError {@link TOLERANCE_EXCEEDED};
 *    - `errors.tolerance=all` reports the failure to every reporter (log, then DLQ) and
 *      resolves `{ failed: true }`: the caller skips the record.
 *    Failures that throw are reported only to reporters with `reportsUntolerated` (the log).
 *
 * @example
 * const context = ProcessingContext.forConsumed(consumed);
 * const key = await operator.execute('KEY_CONVERTER', keyConverterClass,
 *   () => keyConverter.toConnectData(topic, headers, consumed.key), context);
 * if (key.failed) return; // skipped, already logged and dead-lettered
 */
export class RetryWithToleranceOperator {
  readonly metrics: ErrorHandlingMetrics;
  readonly tolerance: ToleranceType;
  readonly #options: RetryWithToleranceOptions;
  readonly #reporters: readonly ErrorReporter[];
  readonly #deps: RetryWithToleranceDeps;
  #totalFailures = 0;
  #stopping = false;

  constructor(options: RetryWithToleranceOptions, deps: RetryWithToleranceDeps) {
    this.#options = options;
    this.#deps = deps;
    this.tolerance = options.tolerance;
    this.#reporters = options.reporters ?? [];
    this.metrics = options.metrics ?? createErrorHandlingMetrics();
  }

  /**
   * Runs `operation` for the record of `context` (see the class notes). When `context` has
   * already failed, resolves `{ failed: true }` without running it. `className` names the
   * executing class in reports; a function receives the error (e.g. to name the failing
   * transformation of a chain).
   */
  async execute<V>(
    stage: Stage,
    className: ExecutingClass,
    operation: () => V | PromiseLike<V>,
    context: ProcessingContext,
  ): Promise<OperationResult<V>> {
    const name = typeof className === 'string' ? className : '';
    context.currentContext(stage, name);
    if (context.failed) return { failed: true, error: context.error };
    const { clock, sleep } = this.#deps;
    const random = this.#deps.random ?? Math.random;
    const start = clock.now();
    const timeout = this.#options.retryTimeoutMs;
    const deadline = timeout < 0 ? Number.POSITIVE_INFINITY : start + timeout;
    for (let attempt = 1; ; attempt++) {
      context.attempted(attempt);
      try {
        return { failed: false, value: await operation() };
      } catch (error) {
        this.metrics.totalRecordFailures++;
        const retriable = isRetriable(error);
        if (retriable && !this.#stopping && clock.now() < deadline) {
          const delay = retryBackoffMs(
            attempt,
            this.#options.retryDelayMaxMs,
            clock.now(),
            deadline,
            random,
          );
          if (delay > 0) await sleep(delay);
          this.metrics.totalRetries++;
          if (!this.#stopping) continue;
        }
        if (typeof className !== 'string') context.currentContext(stage, className(error));
        return this.#handleFailure(context, error, retriable || toleratesEveryError(stage));
      }
    }
  }

  /**
   * Handles an operation that failed outside {@link execute} (Connect's `executeFailed`), e.g. a
   * record a sink task reported as errant or a produce callback: marks `context` failed, and
   * under `errors.tolerance=all` reports it to every reporter; under `none` reports it to the
   * log only and throws ConnectError {@link TOLERANCE_EXCEEDED}.
   */
  async executeFailed(
    stage: Stage,
    className: string,
    error: unknown,
    context: ProcessingContext,
  ): Promise<void> {
    context.currentContext(stage, className);
    context.fail(error);
    this.#markAsFailed();
    this.metrics.totalRecordFailures++;
    if (!this.withinToleranceLimits()) {
      await this.#reportUntolerated(context);
      this.metrics.totalRecordErrors++;
      throw new ConnectError(TOLERANCE_EXCEEDED, { cause: error });
    }
    await this.#report(context);
  }

  /** False once any failure happened under `errors.tolerance=none`. */
  withinToleranceLimits(): boolean {
    return this.tolerance === 'all' || this.#totalFailures === 0;
  }

  /**
   * Stops retrying (Connect's `triggerStop`): an operation backing off fails as soon as its
   * sleep ends, and later retriable failures are not retried. Call it when the invocation is
   * about to run out of time; the injected `sleep` may also resolve early.
   */
  stop(): void {
    this.#stopping = true;
  }

  async #handleFailure(
    context: ProcessingContext,
    error: unknown,
    tolerable: boolean,
  ): Promise<OperationResult<never>> {
    context.fail(error);
    this.#markAsFailed();
    this.metrics.totalRecordErrors++;
    if (!tolerable) {
      await this.#reportUntolerated(context);
      throw new ConnectError(UNHANDLED_EXCEPTION, { cause: error });
    }
    if (!this.withinToleranceLimits()) {
      await this.#reportUntolerated(context);
      throw new ConnectError(TOLERANCE_EXCEEDED, { cause: error });
    }
    this.metrics.totalRecordsSkipped++;
    await this.#report(context);
    return { failed: true, error };
  }

  #markAsFailed(): void {
    this.metrics.lastErrorTimestamp = this.#deps.clock.now();
    this.#totalFailures++;
  }

  /** Every reporter, in order; a rejection propagates (the record must not be skipped). */
  async #report(context: ProcessingContext): Promise<void> {
    for (const reporter of this.#reporters) await reporter.report(context);
  }

  /** The reporters that take untolerated failures; their own failures are ignored (the task is failing). */
  async #reportUntolerated(context: ProcessingContext): Promise<void> {
    for (const reporter of this.#reporters) {
      if (!reporter.reportsUntolerated) continue;
      try {
        await reporter.report(context);
      } catch {
        // The task fails with the operation's error; a reporter's failure would only hide it.
      }
    }
  }
}
