/**
 * The vocabulary of error handling (Connect's `Stage`, `ToleranceType`, `ProcessingContext` and
 * `ErrorHandlingMetrics`): where in the pipeline an operation failed, on which record, and the
 * counters the error handler keeps.
 */
import type { SourceRecord } from '../../connect/records.js';
import type { ConsumedRecord } from '../../ports/kafka.js';

/**
 * A logical stage of a Connect pipeline, named as Connect names them (they appear in logs and
 * in the `__connect.errors.stage` dead letter header).
 */
export type Stage =
  /** Calling `SourceTask.poll`. */
  | 'TASK_POLL'
  /** Calling `SinkTask.put`. */
  | 'TASK_PUT'
  /** Running a transformation (or its predicate) on a record. */
  | 'TRANSFORMATION'
  /** The key converter, in either direction. */
  | 'KEY_CONVERTER'
  /** The value converter, in either direction. */
  | 'VALUE_CONVERTER'
  /** The header converter, in either direction. */
  | 'HEADER_CONVERTER'
  /** Producing to a Kafka topic. */
  | 'KAFKA_PRODUCE'
  /** Consuming from a Kafka topic. */
  | 'KAFKA_CONSUME';

/** Every {@link Stage}, in Connect's declaration order. */
export const STAGES: readonly Stage[] = Object.freeze([
  'TASK_POLL',
  'TASK_PUT',
  'TRANSFORMATION',
  'KEY_CONVERTER',
  'VALUE_CONVERTER',
  'HEADER_CONVERTER',
  'KAFKA_PRODUCE',
  'KAFKA_CONSUME',
]);

/** `errors.tolerance`: `none` fails the task on the first error, `all` skips failed records. */
export type ToleranceType = 'none' | 'all';

/**
 * True when any error thrown in `stage` may be tolerated (converters and transformations, as in
 * Connect); in the other stages only retriable errors are.
 */
export function toleratesEveryError(stage: Stage): boolean {
  return (
    stage === 'TRANSFORMATION' ||
    stage === 'KEY_CONVERTER' ||
    stage === 'VALUE_CONVERTER' ||
    stage === 'HEADER_CONVERTER'
  );
}

/** A task's identity (Connect's `ConnectorTaskId`). */
export interface ConnectorTaskId {
  readonly connector: string;
  readonly task: number;
}

/** `<connector>-<task>`, as Connect prints a task id. */
export function taskIdString(id: ConnectorTaskId): string {
  return `${id.connector}-${id.task}`;
}

/** The record an operation was working on, as it entered the pipeline. */
export type OriginalRecord =
  /** A sink task's record, as consumed from Kafka. */
  | { readonly kind: 'consumed'; readonly record: ConsumedRecord }
  /** A source task's record, as returned by `poll` (before transformations). */
  | { readonly kind: 'source'; readonly record: SourceRecord };

/**
 * What the error handler knows about the record being processed (Connect's
 * `ProcessingContext`): the original record, the stage and class currently executing, the number
 * of attempts, and the error once an operation has failed.
 *
 * Create one per record ({@link ProcessingContext.forConsumed}, {@link ProcessingContext.forSource})
 * and pass it to every operation on that record. Once failed it stays failed: later operations
 * given the same context are skipped. Only the error handler changes it.
 */
export class ProcessingContext {
  readonly original: OriginalRecord | null;
  #stage: Stage | null = null;
  #className: string | null = null;
  #attempt = 0;
  #failure: { readonly error: unknown } | null = null;

  constructor(original: OriginalRecord | null) {
    this.original = original;
  }

  /** A context for a sink record consumed from Kafka. */
  static forConsumed(record: ConsumedRecord): ProcessingContext {
    return new ProcessingContext({ kind: 'consumed', record });
  }

  /** A context for a source record as polled. */
  static forSource(record: SourceRecord): ProcessingContext {
    return new ProcessingContext({ kind: 'source', record });
  }

  /** The stage of the latest operation, `null` before the first. */
  get stage(): Stage | null {
    return this.#stage;
  }

  /** The class executing the latest operation (e.g. a converter's class name), `null` before the first. */
  get className(): string | null {
    return this.#className;
  }

  /** Attempts made by the latest operation (1 = no retry). */
  get attempt(): number {
    return this.#attempt;
  }

  /** True once an operation on this record has failed. */
  get failed(): boolean {
    return this.#failure !== null;
  }

  /** What the failed operation threw; `undefined` while not failed. */
  get error(): unknown {
    return this.#failure?.error;
  }

  /** Records the stage and class about to execute. For the error handler. */
  currentContext(stage: Stage, className: string): void {
    this.#stage = stage;
    this.#className = className;
  }

  /** Records the number of attempts of the current operation. For the error handler. */
  attempted(attempt: number): void {
    this.#attempt = attempt;
  }

  /** Marks the record failed with `error`. For the error handler. */
  fail(error: unknown): void {
    this.#failure = { error };
  }
}

/**
 * Error-handling counters of one task (Connect's `ErrorHandlingMetrics`, task-error-metrics
 * group), as a plain mutable object for a metrics publisher to read.
 */
export interface ErrorHandlingMetrics {
  /** `total-record-failures`: failed attempts, retriable or not. */
  totalRecordFailures: number;
  /** `total-record-errors`: operations that failed after all attempts. */
  totalRecordErrors: number;
  /** `total-records-skipped`: records skipped because their failure was tolerated. */
  totalRecordsSkipped: number;
  /** `total-retries`: retries made. */
  totalRetries: number;
  /** `total-errors-logged`: failures written to the log by the log reporter. */
  totalErrorsLogged: number;
  /** `deadletterqueue-produce-requests`: records the DLQ reporter tried to send. */
  deadLetterQueueProduceRequests: number;
  /** `deadletterqueue-produce-failures`: of those, the ones not sent. */
  deadLetterQueueProduceFailures: number;
  /** `last-error-timestamp`: epoch ms of the latest failure, 0 when none. */
  lastErrorTimestamp: number;
}

/** Fresh counters, all zero. */
export function createErrorHandlingMetrics(): ErrorHandlingMetrics {
  return {
    totalRecordFailures: 0,
    totalRecordErrors: 0,
    totalRecordsSkipped: 0,
    totalRetries: 0,
    totalErrorsLogged: 0,
    deadLetterQueueProduceRequests: 0,
    deadLetterQueueProduceFailures: 0,
    lastErrorTimestamp: 0,
  };
}

/** The counters under Connect's metric names (group `task-error-metrics`). */
export function errorHandlingMetricValues(metrics: ErrorHandlingMetrics): Record<string, number> {
  return {
    'total-record-failures': metrics.totalRecordFailures,
    'total-record-errors': metrics.totalRecordErrors,
    'total-records-skipped': metrics.totalRecordsSkipped,
    'total-retries': metrics.totalRetries,
    'total-errors-logged': metrics.totalErrorsLogged,
    'deadletterqueue-produce-requests': metrics.deadLetterQueueProduceRequests,
    'deadletterqueue-produce-failures': metrics.deadLetterQueueProduceFailures,
    'last-error-timestamp': metrics.lastErrorTimestamp,
  };
}
