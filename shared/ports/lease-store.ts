/**
 * Task leases: at most one live invocation per task. A lease is taken with one conditional
 * write that bumps the task's epoch; every later write of that invocation carries the lease as
 * its {@link LeaseFence}, so an older invocation (a zombie after a timeout or a retry) is rejected
 * as soon as a newer one holds the task.
 *
 * The lease fence is one of two fences of a source task (docs/architecture.md, "Glossary"): it guards the
 * invocation's writes to the state store (status, pending and committed source offsets, the
 * lease itself), checked by each adapter in one place (`dynamodb/lease-fence.ts`,
 * `memory/lease-fence.ts`) and refused with `LeaseFencedError`. The other, the producer fence, is
 * Kafka's: initialising a producer with the task's transactional id fences older producers of
 * that id. The enumerator's zombie-fencing round (runtime/enumerator/zombie-fencing.ts) raises
 * both for the tasks a reconfiguration or a stop replaced.
 */

/**
 * The lease fence: proof of ownership carried by every write a lease holder makes. A write
 * succeeds only while the task's current lease has this epoch and owner.
 */
export interface LeaseFence {
  /** The epoch returned by `acquireLease`. */
  readonly epoch: number;
  /** The owner given to `acquireLease`: unique per invocation (e.g. the Lambda request id). */
  readonly owner: string;
}

/** Identifies a task. */
export interface TaskRef {
  readonly connector: string;
  readonly task: number;
}

/** A held lease. */
export interface Lease extends LeaseFence, TaskRef {
  /** The task generation the lease was taken for. */
  readonly generation: number;
  /** Epoch millis (store clock) after which another invocation may take the task. */
  readonly expiresAt: number;
}

/**
 * What a source invocation that delivered no record leaves on its task when it releases the
 * lease: how many invocations in a row were idle, under which connector config version and task
 * generation. The enumerator defers the task's next scheduled dispatch by it (the idle back-off,
 * shared/runtime/task/idle-backoff.ts); an invocation that delivered records releases without
 * one, which clears it.
 */
export interface IdleRelease {
  /** Consecutive idle invocations, this one included (>= 1). */
  readonly count: number;
  /** The connector config version (`ConnectorRecord.version`) the invocation ran. */
  readonly version: number;
  /** The task generation the invocation ran. */
  readonly generation: number;
}

/** An idle streak as stored: {@link IdleRelease} and when its last invocation released the task. */
export interface IdleStreak extends IdleRelease {
  /** Epoch millis (store clock) of the release. */
  readonly endedAt: number;
}

/** What the dispatcher reads of a task before invoking it: one read of the task's lease item. */
export interface TaskLeaseState {
  /** The current lease, expired or not. */
  readonly lease: Lease | undefined;
  /** The idle streak the last release recorded; cleared by a non-idle release and by a revoke. */
  readonly idle: IdleStreak | undefined;
}

export interface AcquireLeaseRequest extends TaskRef {
  /** Unique per invocation; two invocations must never share an owner. */
  readonly owner: string;
  /** The task generation this invocation was dispatched with. */
  readonly generation: number;
  /** How long the lease lasts without a renewal, in milliseconds (> 0). */
  readonly ttlMs: number;
}

/**
 * Compare-and-set leases over tasks.
 *
 * Contract:
 * - `acquireLease` succeeds for exactly one of any number of concurrent callers while the
 *   lease is free or expired (expiry by the store's injected clock); each success increments
 *   the task's epoch, which never decreases and survives release.
 * - The connector must exist with target state RUNNING, the task must be in its current task
 *   configs, and `generation` must equal that task's generation. These are read (strongly
 *   consistent) just before the conditional lease write; a change that lands in between is
 *   equivalent to one that lands right after the acquire, so a holder re-reads target state
 *   and generation between batches to notice a pause, stop or reassignment.
 * - `renewLease` and `releaseLease` succeed only for the current holder (same epoch and owner);
 *   a holder whose lease expired may still renew while nobody else took the task.
 * - A released lease keeps its epoch; status and offset writes with its fence are then
 *   rejected, so a task writes its final status before releasing.
 * - The release records the task's idle streak (or clears it) in the same conditional write;
 *   `revokeLease` clears it; `acquireLease` and `renewLease` leave it alone.
 */
export interface LeaseStore {
  /**
   * Takes the task's lease and returns it with the new epoch.
   * @throws ConnectorNotFoundError / TaskNotFoundError when the connector or task is unknown.
   * @throws TargetNotRunningError when the connector is PAUSED or STOPPED.
   * @throws StaleGenerationError when `generation` is not the task's current generation.
   * @throws LeaseHeldError (a ConflictError) when another invocation holds an unexpired lease.
   */
  acquireLease(request: AcquireLeaseRequest): Promise<Lease>;

  /**
   * Extends the lease to now + `ttlMs`.
   * @throws LeaseFencedError (a FencedError) when the caller no longer holds the task.
   */
  renewLease(lease: Lease, ttlMs: number): Promise<Lease>;

  /**
   * Frees the task for the next invocation (the epoch stays). With `idle`, records the task's
   * idle streak (with the store's time); without, clears any.
   * @throws LeaseFencedError when the caller no longer holds the task.
   */
  releaseLease(lease: LeaseFence & TaskRef, idle?: IdleRelease): Promise<void>;

  /**
   * Takes the task away from whoever holds it (a restart, or a task that must stop at once):
   * the epoch is bumped, the lease freed and the idle streak cleared, so the holder's next lease-fenced write fails with
   * `LeaseFencedError` and the next `acquireLease` succeeds at once. Unconditional and
   * idempotent in effect (a free task only gets a higher epoch).
   * @returns the new epoch.
   */
  revokeLease(ref: TaskRef): Promise<number>;

  /** The current lease, expired or not; `undefined` when the task is not leased. */
  getLease(ref: TaskRef): Promise<Lease | undefined>;

  /** The lease and the idle streak, in one read (what the enumerator checks before a dispatch). */
  getLeaseState(ref: TaskRef): Promise<TaskLeaseState>;
}
