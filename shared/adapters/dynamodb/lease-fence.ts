/**
 * The lease fence in the table (the `LeaseFence` of ports/lease-store.ts): every write of a
 * lease holder is conditioned on the `TASK#n` item still carrying that lease (epoch and owner),
 * and a refused write becomes `LeaseFencedError`, with the reason read from the item as it was.
 */
import { LeaseFencedError } from '../../ports/errors.js';
import type { LeaseFence, TaskRef } from '../../ports/lease-store.js';
import { num, str } from './attributes.js';
import { decodeTaskItem, type TaskItem } from './codec.js';
import type { WriteResult } from './table.js';
import { ATTR } from './table-schema.js';

/** The condition every write of a lease holder carries. */
export const LEASE_FENCE_CONDITION = `#${ATTR.epoch} = :fenceEpoch AND #${ATTR.owner} = :fenceOwner`;

export function leaseFenceValues(fence: LeaseFence) {
  return { ':fenceEpoch': num(fence.epoch), ':fenceOwner': str(fence.owner) };
}

/** True when the item still carries `fence` (its failed write failed for another reason). */
export function holdsLeaseFence(old: TaskItem | undefined, fence: LeaseFence): boolean {
  return old?.epoch === fence.epoch && old.lease?.owner === fence.owner;
}

/** Why a lease-fenced write failed, from the item as it was. */
function leaseFenceDetail(old: TaskItem | undefined, fence: LeaseFence): string {
  if (old === undefined) return 'the task has no lease record (connector deleted?)';
  if (old.epoch !== fence.epoch) return `the task is at epoch ${old.epoch ?? 0}`;
  if (old.lease === undefined) return 'the lease was released';
  return old.lease.owner === fence.owner
    ? 'the write lost a race'
    : `the lease belongs to ${old.lease.owner}`;
}

/** Throws `LeaseFencedError` for a lease-fenced write that failed. */
export function throwLeaseFenced(
  ref: TaskRef,
  fence: LeaseFence,
  result: WriteResult & { ok: false },
): never {
  const old = result.old === undefined ? undefined : decodeTaskItem(ref.connector, result.old);
  throw new LeaseFencedError(ref.connector, ref.task, fence.epoch, leaseFenceDetail(old, fence));
}
