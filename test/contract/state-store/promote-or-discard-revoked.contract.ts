import { describe, expect, it } from 'vitest';
import type { Lease } from '../../../shared/ports/lease-store.js';
import type { PendingSourceOffsets } from '../../../shared/ports/offset-store.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { leasedTask, TTL_MS } from './fixtures.js';
import type { StateStoreFactory } from './harness.js';

const ref = { connector: 'c', task: 0 };

function pending(seq: number): PendingSourceOffsets {
  return {
    seq,
    offsets: [{ partition: { file: 'a.csv' }, offset: { line: seq * 100 } }],
    positions: [{ topic: 'connect-offsets', partition: 0, offset: String(seq * 10) }],
  };
}

/**
 * What a running task leaves when its lease is revoked between two transactions: transaction 1
 * promoted (by transaction 2's pending write), transaction 2 pending.
 */
async function runningTask(store: StateStore): Promise<Lease> {
  const lease = await leasedTask(store, 'c');
  await store.offsets.writePendingSourceOffsets(ref, pending(1), lease);
  await store.offsets.promoteAndWritePendingSourceOffsets(ref, 1, pending(2), lease);
  return lease;
}

/** `OffsetStore.promoteOrDiscardRevokedPendingSourceOffsets`: the zombie-fencing round's write. */
export function promoteOrDiscardRevokedContract(factory: StateStoreFactory): void {
  describe('pending source offsets of a revoked task', () => {
    it('promotes the pending transaction of a task whose lease was revoked', async () => {
      // Prepare
      const { store } = await factory();
      await runningTask(store);
      const epoch = await store.leases.revokeLease(ref);
      // Act
      const written = await store.offsets.promoteOrDiscardRevokedPendingSourceOffsets(
        ref,
        2,
        epoch,
        'committed',
      );
      // Assess
      expect(written).toBe(true);
      expect(await store.offsets.getSourceOffsets(ref)).toEqual({
        ...ref,
        committed: { seq: 2, offsets: pending(2).offsets },
      });
    });

    it('discards the pending transaction of a task whose lease was revoked, keeping committed', async () => {
      // Prepare
      const { store } = await factory();
      await runningTask(store);
      const epoch = await store.leases.revokeLease(ref);
      // Act
      const written = await store.offsets.promoteOrDiscardRevokedPendingSourceOffsets(
        ref,
        2,
        epoch,
        'aborted',
      );
      // Assess
      expect(written).toBe(true);
      expect(await store.offsets.getSourceOffsets(ref)).toEqual({
        ...ref,
        committed: { seq: 1, offsets: pending(1).offsets },
      });
    });

    it('changes nothing once the task was leased again after the revoke, even after that lease ended', async () => {
      // Prepare
      const { store } = await factory();
      await runningTask(store);
      const epoch = await store.leases.revokeLease(ref);
      const before = await store.offsets.getSourceOffsets(ref);
      const next = await store.leases.acquireLease({
        ...ref,
        owner: 'next',
        generation: 1,
        ttlMs: TTL_MS,
      });
      // Act
      const whileHeld = await store.offsets.promoteOrDiscardRevokedPendingSourceOffsets(
        ref,
        2,
        epoch,
        'committed',
      );
      await store.leases.releaseLease(next);
      const afterRelease = await store.offsets.promoteOrDiscardRevokedPendingSourceOffsets(
        ref,
        2,
        epoch,
        'aborted',
      );
      // Assess
      expect([whileHeld, afterRelease]).toEqual([false, false]);
      expect(await store.offsets.getSourceOffsets(ref)).toEqual(before);
    });

    it('changes nothing when the epoch is not the one the revoke set', async () => {
      // Prepare
      const { store } = await factory();
      await runningTask(store);
      const epoch = await store.leases.revokeLease(ref);
      const before = await store.offsets.getSourceOffsets(ref);
      // Act
      const older = await store.offsets.promoteOrDiscardRevokedPendingSourceOffsets(
        ref,
        2,
        epoch - 1,
        'committed',
      );
      const newer = await store.offsets.promoteOrDiscardRevokedPendingSourceOffsets(
        ref,
        2,
        epoch + 1,
        'aborted',
      );
      // Assess
      expect([older, newer]).toEqual([false, false]);
      expect(await store.offsets.getSourceOffsets(ref)).toEqual(before);
    });

    it('changes nothing when another transaction, or none, is pending', async () => {
      // Prepare
      const { store } = await factory();
      await runningTask(store);
      const epoch = await store.leases.revokeLease(ref);
      const before = await store.offsets.getSourceOffsets(ref);
      // Act
      const promoteOther = await store.offsets.promoteOrDiscardRevokedPendingSourceOffsets(
        ref,
        3,
        epoch,
        'committed',
      );
      const discardOther = await store.offsets.promoteOrDiscardRevokedPendingSourceOffsets(
        ref,
        1,
        epoch,
        'aborted',
      );
      const unknownTask = await store.offsets.promoteOrDiscardRevokedPendingSourceOffsets(
        { connector: 'c', task: 7 },
        2,
        epoch,
        'committed',
      );
      // Assess
      expect([promoteOther, discardOther, unknownTask]).toEqual([false, false, false]);
      expect(await store.offsets.getSourceOffsets(ref)).toEqual(before);
      expect(await store.offsets.getSourceOffsets({ connector: 'c', task: 7 })).toEqual({
        connector: 'c',
        task: 7,
      });
    });

    it('changes nothing while the lease is still held (never revoked)', async () => {
      // Prepare
      const { store } = await factory();
      const lease = await runningTask(store);
      const before = await store.offsets.getSourceOffsets(ref);
      // Act
      const promoted = await store.offsets.promoteOrDiscardRevokedPendingSourceOffsets(
        ref,
        2,
        lease.epoch,
        'committed',
      );
      const discarded = await store.offsets.promoteOrDiscardRevokedPendingSourceOffsets(
        ref,
        2,
        lease.epoch,
        'aborted',
      );
      // Assess
      expect([promoted, discarded]).toEqual([false, false]);
      expect(await store.offsets.getSourceOffsets(ref)).toEqual(before);
    });
  });
}
