/**
 * The lease fence in memory (the `LeaseFence` of ports/lease-store.ts), as the DynamoDB adapter
 * checks it in its condition (dynamodb/lease-fence.ts).
 */
import { LeaseFencedError } from '../../ports/errors.js';
import type { LeaseFence } from '../../ports/lease-store.js';
import type { TaskRecord } from './memory-db.js';

/**
 * Throws `LeaseFencedError` unless `fence` is the task's current lease (same epoch and owner),
 * mirroring the DynamoDB condition `epoch = :epoch AND owner = :owner`.
 */
export function assertLeaseFence(
  record: TaskRecord | undefined,
  connector: string,
  task: number,
  fence: LeaseFence,
): asserts record is TaskRecord {
  const detail =
    record === undefined
      ? 'the task has no lease record (connector deleted?)'
      : record.epoch !== fence.epoch
        ? `the task is at epoch ${record.epoch ?? 0}`
        : record.lease === undefined
          ? 'the lease was released'
          : record.lease.owner !== fence.owner
            ? `the lease belongs to ${record.lease.owner}`
            : undefined;
  if (detail !== undefined) throw new LeaseFencedError(connector, task, fence.epoch, detail);
}
