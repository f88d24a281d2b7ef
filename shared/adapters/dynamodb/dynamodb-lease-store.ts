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
import { num, str } from './attributes.js';
import {
  connectorKey,
  decodeConnector,
  decodeTaskConfigs,
  decodeTaskItem,
  versionAttr,
} from './codec.js';
import { LEASE_FENCE_CONDITION, leaseFenceValues, throwLeaseFenced } from './lease-fence.js';
import type { DynamoTable } from './table.js';
import { ATTR, KEYS } from './table-schema.js';

/** The idle streak's attributes, removed together. */
const IDLE_ATTRS = [ATTR.idleCount, ATTR.idleAt, ATTR.idleVersion, ATTR.idleGeneration]
  .map((a) => `#${a}`)
  .join(', ');

/** LeaseStore over the `TASK#n` items (checks read `CONNECTOR` and `TASKS`). */
export class DynamoDbLeaseStore implements LeaseStore {
  readonly #table: DynamoTable;
  readonly #clock: Clock;

  constructor(table: DynamoTable, clock: Clock) {
    this.#table = table;
    this.#clock = clock;
  }

  async acquireLease(request: AcquireLeaseRequest): Promise<Lease> {
    const { connector, task, owner, generation, ttlMs } = request;
    const operation = `acquire the lease of ${connector}-${task}`;
    const [connectorItem, tasksItem] = await this.#table.getMany(
      [connectorKey(connector, KEYS.connectorSk), connectorKey(connector, KEYS.tasksSk)],
      operation,
    );
    if (connectorItem === undefined) throw new ConnectorNotFoundError(connector);
    const { targetState } = decodeConnector(connectorItem);
    if (targetState !== 'RUNNING') throw new TargetNotRunningError(connector, targetState);
    const entry = decodeTaskConfigs(connector, tasksItem).tasks[task];
    if (entry === undefined) throw new TaskNotFoundError(connector, task);
    if (entry.generation !== generation) {
      throw new StaleGenerationError(connector, task, generation, entry.generation);
    }
    const now = this.#clock.now();
    const expiresAt = now + ttlMs;
    const result = await this.#table.update(
      connectorKey(connector, KEYS.taskSk(task)),
      {
        update: `SET #${ATTR.owner} = :owner, #${ATTR.expiresAt} = :expiresAt, #${ATTR.leaseGeneration} = :generation, #${ATTR.task} = :task, #${ATTR.formatVersion} = :v, #${ATTR.epoch} = if_not_exists(#${ATTR.epoch}, :zero) + :one`,
        condition: `attribute_not_exists(#${ATTR.owner}) OR #${ATTR.expiresAt} <= :now`,
        values: {
          ':owner': str(owner),
          ':expiresAt': num(expiresAt),
          ':generation': num(generation),
          ':task': num(task),
          ':v': versionAttr(),
          ':zero': num(0),
          ':one': num(1),
          ':now': num(now),
        },
      },
      operation,
    );
    if (!result.ok) {
      const held =
        result.old === undefined ? undefined : decodeTaskItem(connector, result.old).lease;
      throw new LeaseHeldError(connector, task, held?.owner, held?.expiresAt);
    }
    const lease = decodeTaskItem(connector, result.item).lease;
    if (lease === undefined) throw new LeaseHeldError(connector, task, undefined, undefined);
    return lease;
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease> {
    const expiresAt = this.#clock.now() + ttlMs;
    const result = await this.#table.update(
      connectorKey(lease.connector, KEYS.taskSk(lease.task)),
      {
        update: `SET #${ATTR.expiresAt} = :expiresAt`,
        condition: LEASE_FENCE_CONDITION,
        values: { ...leaseFenceValues(lease), ':expiresAt': num(expiresAt) },
      },
      `renew the lease of ${lease.connector}-${lease.task}`,
    );
    if (!result.ok) throwLeaseFenced(lease, lease, result);
    return { ...lease, expiresAt };
  }

  async releaseLease(lease: LeaseFence & TaskRef, idle?: IdleRelease): Promise<void> {
    const freed = `#${ATTR.owner}, #${ATTR.expiresAt}, #${ATTR.leaseGeneration}`;
    const result = await this.#table.update(
      connectorKey(lease.connector, KEYS.taskSk(lease.task)),
      idle === undefined
        ? {
            update: `REMOVE ${freed}, ${IDLE_ATTRS}`,
            condition: LEASE_FENCE_CONDITION,
            values: leaseFenceValues(lease),
          }
        : {
            update: `SET #${ATTR.idleCount} = :idleCount, #${ATTR.idleAt} = :idleAt, #${ATTR.idleVersion} = :idleVersion, #${ATTR.idleGeneration} = :idleGeneration REMOVE ${freed}`,
            condition: LEASE_FENCE_CONDITION,
            values: {
              ...leaseFenceValues(lease),
              ':idleCount': num(idle.count),
              ':idleAt': num(this.#clock.now()),
              ':idleVersion': num(idle.version),
              ':idleGeneration': num(idle.generation),
            },
          },
      `release the lease of ${lease.connector}-${lease.task}`,
    );
    if (!result.ok) throwLeaseFenced(lease, lease, result);
  }

  async revokeLease(ref: TaskRef): Promise<number> {
    const result = await this.#table.update(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      {
        update: `SET #${ATTR.task} = :task, #${ATTR.formatVersion} = :v, #${ATTR.epoch} = if_not_exists(#${ATTR.epoch}, :zero) + :one REMOVE #${ATTR.owner}, #${ATTR.expiresAt}, #${ATTR.leaseGeneration}, ${IDLE_ATTRS}`,
        values: { ':task': num(ref.task), ':v': versionAttr(), ':zero': num(0), ':one': num(1) },
      },
      `revoke the lease of ${ref.connector}-${ref.task}`,
    );
    return result.ok ? (decodeTaskItem(ref.connector, result.item).epoch ?? 0) : 0;
  }

  async getLease(ref: TaskRef): Promise<Lease | undefined> {
    const item = await this.#table.get(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      `get the lease of ${ref.connector}-${ref.task}`,
    );
    return item === undefined ? undefined : decodeTaskItem(ref.connector, item).lease;
  }

  async getLeaseState(ref: TaskRef): Promise<TaskLeaseState> {
    const item = await this.#table.get(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      `get the lease of ${ref.connector}-${ref.task}`,
    );
    if (item === undefined) return { lease: undefined, idle: undefined };
    const { lease, idle } = decodeTaskItem(ref.connector, item);
    return { lease, idle };
  }
}
