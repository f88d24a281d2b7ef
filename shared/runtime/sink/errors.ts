/**
 * Errors of the sink runtime. The Kafka event source mapping redelivers a batch whatever the
 * function throws; `retriable` says whether the condition is expected to clear by itself
 * (a pause, an assignment in progress) or needs someone to act (a failed task, a wrong alias).
 */
import {
  ConfigError,
  ConnectError,
  IllegalStateError,
  RetriableError,
} from '../../connect/errors.js';
import type { TaskRetry } from '../../ports/status-store.js';

/** The batch holds partitions no task of the connector owns (yet): redeliver later. */
export class UnassignedPartitionError extends RetriableError {
  readonly connector: string;
  readonly partitions: readonly string[];
  constructor(connector: string, partitions: readonly string[]) {
    super(
      `Connector ${connector} has no task assigned to partition(s) ${partitions.join(', ')}; ` +
        'the enumerator has not assigned them yet (or they moved): the batch will be redelivered',
    );
    this.connector = connector;
    this.partitions = partitions;
  }
}

/** The connector is PAUSED or STOPPED: its records wait in Kafka until it runs again. */
export class ConnectorNotRunningError extends RetriableError {
  readonly connector: string;
  readonly targetState: string;
  constructor(connector: string, targetState: string) {
    super(
      `Connector ${connector} is ${targetState}, not RUNNING: the batch will be redelivered ` +
        'once it is resumed (its event source mappings are being disabled)',
    );
    this.connector = connector;
    this.targetState = targetState;
  }
}

/** The task is FAILED: nothing is written until it is restarted. */
export class SinkTaskFailedError extends IllegalStateError {
  readonly connector: string;
  readonly task: number;
  constructor(connector: string, task: number) {
    super(
      `Task ${connector}-${task} is FAILED and refuses records until it is restarted ` +
        `(POST /connectors/${connector}/tasks/${task}/restart)`,
    );
    this.connector = connector;
    this.task = task;
  }
}

/**
 * A sink task's batch kept failing with retriable errors past the task's retry limit
 * (`errors.retry.timeout`, or the default limit when it is 0): the task is FAILED, as Connect
 * fails a task on a non-retriable error, until it is restarted. `cause` is the last failure.
 */
export class SinkRetriesExhaustedError extends ConnectError {
  readonly connector: string;
  readonly task: number;
  readonly retry: TaskRetry;
  constructor(
    ref: { readonly connector: string; readonly task: number },
    retry: TaskRetry,
    detail: { readonly failingForMs: number; readonly limit: string },
    options: { readonly cause: unknown },
  ) {
    super(
      `Task ${ref.connector}-${ref.task} is FAILED: its batch of ${retry.partitions.join(', ')} ` +
        `failed ${retry.attempts} times over ${Math.round(detail.failingForMs / 1000)} s, ` +
        `past its retry limit (${detail.limit}); restart it once the cause is fixed ` +
        `(POST /connectors/${ref.connector}/tasks/${ref.task}/restart)`,
      options,
    );
    this.connector = ref.connector;
    this.task = ref.task;
    this.retry = retry;
  }
}

/** The invocation named no function alias, or one that no sink connector uses. */
export class UnknownSinkAliasError extends ConfigError {
  readonly alias: string | undefined;
  constructor(alias: string | undefined, detail: string) {
    super(detail);
    this.alias = alias;
  }
}
