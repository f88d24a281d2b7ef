import { EpochFencedError } from '../../ports/errors.js';
import type { Fence, TaskRef } from '../../ports/lease-store.js';
import { num, str } from './attributes.js';
import { decodeTaskItem, fenceDetail } from './codec.js';
import type { WriteResult } from './table.js';
import { ATTR } from './table-schema.js';

/** The condition every write of a lease holder carries. */
export const FENCE_CONDITION = `#${ATTR.epoch} = :fenceEpoch AND #${ATTR.owner} = :fenceOwner`;

export function fenceValues(fence: Fence) {
  return { ':fenceEpoch': num(fence.epoch), ':fenceOwner': str(fence.owner) };
}

/** Throws `EpochFencedError` for a fenced write that failed. */
export function fenced(ref: TaskRef, fence: Fence, result: WriteResult & { ok: false }): never {
  const old = result.old === undefined ? undefined : decodeTaskItem(ref.connector, result.old);
  throw new EpochFencedError(ref.connector, ref.task, fence.epoch, fenceDetail(old, fence));
}
