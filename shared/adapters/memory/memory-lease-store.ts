import type { Clock } from '../../ports/clock.js';
import {
  ConnectorNotFoundError,
  LeaseHeldError,
  StaleGenerationError,
  TargetNotRunningError,
  TaskNotFoundError,
} from '../../ports/errors.js';
import type {
  AcquireLeaseRequest,
  IdleRelease,
  Lease,
  LeaseFence,
  LeaseStore,
  TaskLeaseState,
  TaskRef,
} from '../../ports/lease-store.js';
import { assertLeaseFence } from './lease-fence.js';
import type { MemoryDb, TaskRecord } from './memory-db.js';

/** LeaseStore in memory. */
export class MemoryLeaseStore implements LeaseStore {
  readonly #db: MemoryDb;
  readonly #clock: Clock;

  constructor(db: MemoryDb, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  async acquireLease(request: AcquireLeaseRequest): Promise<Lease> {
    const { connector, task, owner, generation, ttlMs } = request;
    const items = this.#db.peek(connector);
    const config = items?.connector;
    if (items === undefined || config === undefined) throw new ConnectorNotFoundError(connector);
    if (config.targetState !== 'RUNNING') {
      throw new TargetNotRunningError(connector, config.targetState);
    }
    const entry = items.tasks?.tasks[task];
    if (entry === undefined) throw new TaskNotFoundError(connector, task);
    if (entry.generation !== generation) {
      throw new StaleGenerationError(connector, task, generation, entry.generation);
    }
    const record: TaskRecord = items.taskRecords.get(task) ?? {};
    const now = this.#clock.now();
    if (record.lease !== undefined && record.lease.expiresAt > now) {
      throw new LeaseHeldError(connector, task, record.lease.owner, record.lease.expiresAt);
    }
    const epoch = (record.epoch ?? 0) + 1;
    const expiresAt = now + ttlMs;
    items.taskRecords.set(task, { ...record, epoch, lease: { owner, expiresAt, generation } });
    return { connector, task, owner, epoch, generation, expiresAt };
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease> {
    const record = this.#db.peek(lease.connector)?.taskRecords.get(lease.task);
    assertLeaseFence(record, lease.connector, lease.task, lease);
    const current = record.lease;
    const expiresAt = this.#clock.now() + ttlMs;
    if (current !== undefined) record.lease = { ...current, expiresAt };
    return { ...lease, expiresAt };
  }

  async releaseLease(lease: LeaseFence & TaskRef, idle?: IdleRelease): Promise<void> {
    const record = this.#db.peek(lease.connector)?.taskRecords.get(lease.task);
    assertLeaseFence(record, lease.connector, lease.task, lease);
    delete record.lease;
    if (idle === undefined) delete record.idle;
    else record.idle = { ...idle, endedAt: this.#clock.now() };
  }

  async revokeLease(ref: TaskRef): Promise<number> {
    const records = this.#db.items(ref.connector).taskRecords;
    const record: TaskRecord = records.get(ref.task) ?? {};
    const epoch = (record.epoch ?? 0) + 1;
    const { lease: _revoked, idle: _cleared, ...rest } = record;
    records.set(ref.task, { ...rest, epoch });
    return epoch;
  }

  async getLease(ref: TaskRef): Promise<Lease | undefined> {
    const record = this.#db.peek(ref.connector)?.taskRecords.get(ref.task);
    const lease = record?.lease;
    if (record === undefined || lease === undefined) return undefined;
    return { ...ref, ...lease, epoch: record.epoch ?? 0 };
  }

  async getLeaseState(ref: TaskRef): Promise<TaskLeaseState> {
    const idle = this.#db.peek(ref.connector)?.taskRecords.get(ref.task)?.idle;
    return { lease: await this.getLease(ref), idle: idle === undefined ? undefined : { ...idle } };
  }
}
