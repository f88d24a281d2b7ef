import type { TopicPartition } from '../connect/records.js';
import type { ConnectorRecord, TaskConfigSet } from './config-store.js';
import type { LeaseFence, TaskRef } from './lease-store.js';
import type { SinkOffset } from './offset-store.js';

/**
 * Connector and task status, as Kafka Connect's status topic holds them (`GET …/status`).
 */

/** Connector states. */
export type ConnectorState =
  | 'UNASSIGNED'
  | 'RUNNING'
  | 'PAUSED'
  | 'STOPPED'
  | 'FAILED'
  | 'RESTARTING';

/** Task states: the connector states except STOPPED (a stopped connector has no tasks). */
export type TaskState = Exclude<ConnectorState, 'STOPPED'>;

/** What a writer reports. */
export interface StatusUpdate<S extends ConnectorState = ConnectorState> {
  readonly state: S;
  /** The worker (invocation, function) that observed the state. */
  readonly workerId: string;
  /** The error's stack trace for FAILED; longer than {@link MAX_TRACE_LENGTH} is cut. */
  readonly trace?: string;
}

/** A stored status. */
export interface Status<S extends ConnectorState = ConnectorState> extends StatusUpdate<S> {
  /** Epoch millis (store clock) of the write. */
  readonly updatedAt: number;
}

/**
 * A sink task's run of failed attempts at a batch the event source mapping keeps redelivering
 * (retriable failures: the task stays RUNNING, with the last error as `trace`). It lives on the
 * task's status, not in a container's memory: in AWS each redelivery may reach another
 * container. Any status written with `putTaskStatus` ends it; so does a written batch sharing a
 * partition with it (`endTaskRetry`).
 */
export interface TaskRetry {
  /** The partitions (`topic-partition` ids) of the failed batches counted, sorted. */
  readonly partitions: readonly string[];
  /** Clock ms at which the run's first failed attempt began. */
  readonly since: number;
  /** Failed attempts counted. */
  readonly attempts: number;
}

/** A task's stored status. */
export interface TaskStatus extends Status<TaskState>, TaskRef {
  /** A sink task's retry run, while one lasts. */
  readonly retry?: TaskRetry;
}

/** One failed attempt of a sink task at a batch (see {@link TaskRetry}). */
export interface TaskRetryAttempt {
  readonly workerId: string;
  /** The error's trace (cut as any trace is). */
  readonly trace: string;
  /** The partitions of the failed batch (at least one). */
  readonly partitions: readonly string[];
  /** Clock ms at which the attempt began: the run's `since` when it starts one. */
  readonly startedAt: number;
}

/** What {@link StatusStore.recordTaskRetry} did. */
export interface TaskRetryOutcome {
  /** True when the attempt was counted (and the status written). */
  readonly counted: boolean;
  /** The task's status after the write, or as it is when nothing was written. */
  readonly status: TaskStatus | undefined;
}

/** Stored traces keep their first this-many characters (one item holds a task's state). */
export const MAX_TRACE_LENGTH = 32 * 1024;

/** The trace as stored: at most {@link MAX_TRACE_LENGTH} characters, marked when cut. */
export function truncateTrace(trace: string): string {
  const marker = '\n\t... (trace truncated)';
  return trace.length <= MAX_TRACE_LENGTH
    ? trace
    : `${trace.slice(0, MAX_TRACE_LENGTH - marker.length)}${marker}`;
}

/** What `GET /connectors/{c}/status` shows, read together: config, task configs, statuses. */
export interface ConnectorStatusSnapshot {
  readonly record: ConnectorRecord;
  readonly tasks: TaskConfigSet;
  /** `undefined` when no connector status was written yet. */
  readonly status: Status | undefined;
  /** Sorted by task id. */
  readonly taskStatuses: readonly TaskStatus[];
}

/** What a sink invocation reads before writing a batch: the snapshot plus its sink offsets. */
export interface SinkInvocationSnapshot extends ConnectorStatusSnapshot {
  /**
   * The stored sink offsets of the partitions asked for (those without one are absent), as
   * `OffsetStore.getSinkOffsets` returns them: sorted by topic, then partition.
   */
  readonly sinkOffsets: readonly SinkOffset[];
}

/**
 * Connector and task status.
 *
 * Contract:
 * - A task writes its status with its lease as `fence`: the write succeeds only while that
 *   lease (epoch and owner) is the task's current one, else `LeaseFencedError`. The control
 *   plane and enumerator write without a fence (UNASSIGNED, RESTARTING), as Kafka Connect's
 *   herder does with `put` rather than `putSafe`.
 * - Connector status is written by the enumerator without a fence (its runs are idempotent).
 * - A sink task's retry run ({@link TaskRetry}) is counted and ended with single conditional
 *   writes, so invocations of several partitions of the task may race: no attempt is lost and
 *   none revives a FAILED task. Any `putTaskStatus` ends the run.
 * - Reads are strongly consistent; absent status reads as `undefined` (Kafka: 404).
 */
export interface StatusStore {
  putConnectorStatus(connector: string, status: StatusUpdate): Promise<Status>;

  getConnectorStatus(connector: string): Promise<Status | undefined>;

  /**
   * Writes the task's status, ending its retry run if it has one.
   * @throws LeaseFencedError (a FencedError) when `fence` is given and is not the current lease.
   */
  putTaskStatus(
    ref: TaskRef,
    status: StatusUpdate<TaskState>,
    fence?: LeaseFence,
  ): Promise<TaskStatus>;

  getTaskStatus(ref: TaskRef): Promise<TaskStatus | undefined>;

  /**
   * Counts a failed attempt of a sink task at a batch, in one conditional write: the task is
   * RUNNING with the attempt's trace, and its retry run gains the attempt and the batch's
   * partitions (a new run starts at `attempt.startedAt`). Counted only while the task is not
   * FAILED and has no run, or one sharing a partition with the batch (a run of other partitions
   * keeps its own count); otherwise nothing is written.
   */
  recordTaskRetry(ref: TaskRef, attempt: TaskRetryAttempt): Promise<TaskRetryOutcome>;

  /**
   * Ends the task's retry run once a batch of `partitions` was written: the task is RUNNING
   * without trace or run. Written only when the run shares a partition with `partitions` and
   * the task is not FAILED; resolves false when nothing was written.
   */
  endTaskRetry(ref: TaskRef, partitions: readonly string[], workerId: string): Promise<boolean>;

  /**
   * Forgets the status of a task that no longer exists (tasks.max went down), as Kafka
   * Connect's status topic tombstones it. The task's epoch and offsets stay.
   */
  removeTaskStatus(ref: TaskRef): Promise<void>;

  /** Every task status of the connector, sorted by task id. */
  listTaskStatuses(connector: string): Promise<TaskStatus[]>;

  /**
   * The connector's config record, task configs, connector status and task statuses, as
   * `ConfigStore.getConnector`, `ConfigStore.getTaskConfigs`, `getConnectorStatus` and
   * `listTaskStatuses` would return them, in one strongly consistent read (one Query of the
   * connector's partition on DynamoDB); `undefined` when the connector does not exist.
   */
  getConnectorSnapshot(connector: string): Promise<ConnectorStatusSnapshot | undefined>;

  /**
   * {@link getConnectorSnapshot} plus the sink offsets of `partitions` (a batch's), as
   * `OffsetStore.getSinkOffsets` would return them, in one strongly consistent read (on DynamoDB
   * one Query of the connector's partition and one BatchGetItem of those partitions' offsets,
   * in parallel, where the separate reads of a sink invocation would be five requests). Its
   * consistency is that of those reads issued together: each item is read as of the call, with
   * no isolation across items (a write racing the read may show in one part and not another);
   * `undefined` when the connector does not exist (no config record), whatever offsets it kept.
   */
  getSinkSnapshot(
    connector: string,
    partitions: readonly TopicPartition[],
  ): Promise<SinkInvocationSnapshot | undefined>;
}
