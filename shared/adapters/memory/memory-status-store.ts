import { type TopicPartition, topicPartitionKey } from '../../connect/records.js';
import type { Clock } from '../../ports/clock.js';
import type { LeaseFence, TaskRef } from '../../ports/lease-store.js';
import {
  type ConnectorStatusSnapshot,
  type SinkInvocationSnapshot,
  type Status,
  type StatusStore,
  type StatusUpdate,
  type TaskRetryAttempt,
  type TaskRetryOutcome,
  type TaskState,
  type TaskStatus,
  truncateTrace,
} from '../../ports/status-store.js';
import { assertLeaseFence } from './lease-fence.js';
import { copy, type MemoryDb } from './memory-db.js';
import { sinkOffsetsOf } from './memory-offset-store.js';

/** StatusStore in memory. */
export class MemoryStatusStore implements StatusStore {
  readonly #db: MemoryDb;
  readonly #clock: Clock;

  constructor(db: MemoryDb, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  async putConnectorStatus(connector: string, status: StatusUpdate): Promise<Status> {
    const stored = this.#stamp(status);
    this.#db.items(connector).status = stored;
    return copy(stored);
  }

  async getConnectorStatus(connector: string): Promise<Status | undefined> {
    const status = this.#db.peek(connector)?.status;
    return status === undefined ? undefined : copy(status);
  }

  async putTaskStatus(
    ref: TaskRef,
    status: StatusUpdate<TaskState>,
    fence?: LeaseFence,
  ): Promise<TaskStatus> {
    const records = this.#db.items(ref.connector).taskRecords;
    let record = records.get(ref.task);
    if (fence !== undefined) assertLeaseFence(record, ref.connector, ref.task, fence);
    if (record === undefined) {
      record = {};
      records.set(ref.task, record);
    }
    const stored = this.#stamp(status);
    record.status = stored;
    return { ...ref, ...copy(stored) };
  }

  async getTaskStatus(ref: TaskRef): Promise<TaskStatus | undefined> {
    const status = this.#db.peek(ref.connector)?.taskRecords.get(ref.task)?.status;
    return status === undefined ? undefined : { ...ref, ...copy(status) };
  }

  async recordTaskRetry(ref: TaskRef, attempt: TaskRetryAttempt): Promise<TaskRetryOutcome> {
    const records = this.#db.items(ref.connector).taskRecords;
    const current = records.get(ref.task)?.status;
    const run = current?.retry;
    if (
      current?.state === 'FAILED' ||
      (run !== undefined && !run.partitions.some((p) => attempt.partitions.includes(p)))
    ) {
      return {
        counted: false,
        status: current === undefined ? undefined : { ...ref, ...copy(current) },
      };
    }
    const record = records.get(ref.task) ?? {};
    records.set(ref.task, record);
    record.status = {
      ...this.#stamp({ state: 'RUNNING', workerId: attempt.workerId, trace: attempt.trace }),
      retry: {
        partitions: [...new Set([...(run?.partitions ?? []), ...attempt.partitions])].sort(),
        since: run?.since ?? attempt.startedAt,
        attempts: (run?.attempts ?? 0) + 1,
      },
    };
    return { counted: true, status: { ...ref, ...copy(record.status) } };
  }

  async endTaskRetry(
    ref: TaskRef,
    partitions: readonly string[],
    workerId: string,
  ): Promise<boolean> {
    const record = this.#db.peek(ref.connector)?.taskRecords.get(ref.task);
    const current = record?.status;
    if (
      record === undefined ||
      current === undefined ||
      current.state === 'FAILED' ||
      current.retry?.partitions.some((p) => partitions.includes(p)) !== true
    ) {
      return false;
    }
    record.status = this.#stamp({ state: 'RUNNING', workerId });
    return true;
  }

  async removeTaskStatus(ref: TaskRef): Promise<void> {
    const record = this.#db.peek(ref.connector)?.taskRecords.get(ref.task);
    if (record !== undefined) delete record.status;
  }

  async listTaskStatuses(connector: string): Promise<TaskStatus[]> {
    return this.#taskStatuses(connector);
  }

  async getConnectorSnapshot(connector: string): Promise<ConnectorStatusSnapshot | undefined> {
    return this.#snapshot(connector);
  }

  async getSinkSnapshot(
    connector: string,
    partitions: readonly TopicPartition[],
  ): Promise<SinkInvocationSnapshot | undefined> {
    const snapshot = this.#snapshot(connector);
    if (snapshot === undefined) return undefined;
    const wanted = new Set(partitions.map(topicPartitionKey));
    const sinkOffsets = sinkOffsetsOf(this.#db.peek(connector)).filter((o) =>
      wanted.has(topicPartitionKey(o)),
    );
    return { ...snapshot, sinkOffsets };
  }

  /** Synchronous, so it reads every part as of one moment. */
  #snapshot(connector: string): ConnectorStatusSnapshot | undefined {
    const items = this.#db.peek(connector);
    if (items?.connector === undefined) return undefined;
    return {
      record: copy(items.connector),
      tasks: items.tasks === undefined ? { connector, version: 0, tasks: [] } : copy(items.tasks),
      status: items.status === undefined ? undefined : copy(items.status),
      taskStatuses: this.#taskStatuses(connector),
    };
  }

  #taskStatuses(connector: string): TaskStatus[] {
    const records = this.#db.peek(connector)?.taskRecords ?? new Map();
    return [...records.entries()]
      .sort(([a], [b]) => a - b)
      .flatMap(([task, record]) =>
        record.status === undefined ? [] : [{ connector, task, ...copy(record.status) }],
      );
  }

  #stamp<S extends StatusUpdate>(status: S): Status<S['state']> {
    return {
      state: status.state,
      workerId: status.workerId,
      ...(status.trace === undefined ? {} : { trace: truncateTrace(status.trace) }),
      updatedAt: this.#clock.now(),
    };
  }
}
