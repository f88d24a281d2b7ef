import { describe, expect, it } from 'vitest';
import { FencedError, IllegalStateError } from '../../../shared/connect/errors.js';
import {
  ConnectorNotFoundError,
  ConnectorNotStoppedError,
  EpochFencedError,
  NoPendingOffsetsError,
  StaleVersionError,
} from '../../../shared/ports/errors.js';
import type { PendingSourceOffsets } from '../../../shared/ports/offset-store.js';
import { leasedTask, seedConnector, shuffled, TTL_MS } from './fixtures.js';
import type { StateStoreFactory } from './harness.js';

const ref = { connector: 'c', task: 0 };

function pending(seq: number, position = seq * 10): PendingSourceOffsets {
  return {
    seq,
    offsets: [
      { partition: { file: 'a.csv' }, offset: { line: seq * 100 } },
      { partition: { file: 'b.csv', shard: 2 }, offset: null },
    ],
    positions: [{ topic: 'connect-offsets', partition: 3, offset: String(position) }],
  };
}

export function offsetContract(factory: StateStoreFactory): void {
  describe('source offsets', () => {
    it('keeps a pending transaction apart from committed until it is promoted', async () => {
      const { store } = await factory();
      const lease = await leasedTask(store, 'c');

      await store.offsets.writePendingSourceOffsets(ref, pending(1), lease);
      const beforePromote = await store.offsets.getSourceOffsets(ref);
      const committed = await store.offsets.promotePendingSourceOffsets(ref, 1, lease);

      expect(beforePromote).toEqual({ ...ref, pending: pending(1) });
      expect(committed).toEqual({ seq: 1, offsets: pending(1).offsets });
      expect(await store.offsets.getSourceOffsets(ref)).toEqual({ ...ref, committed });
    });

    it('reads no offsets for a task that never wrote any', async () => {
      const { store } = await factory();

      expect(await store.offsets.getSourceOffsets(ref)).toEqual(ref);
      expect(await store.offsets.listSourceOffsets('c')).toEqual([]);
    });

    it('refuses a pending transaction at or below the committed one', async () => {
      const { store } = await factory();
      const lease = await leasedTask(store, 'c');
      await store.offsets.writePendingSourceOffsets(ref, pending(1), lease);
      await store.offsets.promotePendingSourceOffsets(ref, 1, lease);

      const stale = store.offsets.writePendingSourceOffsets(ref, pending(1), lease);

      await expect(stale).rejects.toBeInstanceOf(StaleVersionError);
      expect((await store.offsets.getSourceOffsets(ref)).pending).toBeUndefined();
    });

    it('promotes only the pending transaction it names', async () => {
      const { store } = await factory();
      const lease = await leasedTask(store, 'c');

      const nothing = store.offsets.promotePendingSourceOffsets(ref, 1, lease);
      await expect(nothing).rejects.toBeInstanceOf(NoPendingOffsetsError);
      await store.offsets.writePendingSourceOffsets(ref, pending(2), lease);
      const wrongSeq = store.offsets.promotePendingSourceOffsets(ref, 1, lease);

      await expect(wrongSeq).rejects.toBeInstanceOf(NoPendingOffsetsError);
      await expect(wrongSeq).rejects.toBeInstanceOf(IllegalStateError);
      expect(await store.offsets.getSourceOffsets(ref)).toEqual({ ...ref, pending: pending(2) });
    });

    it('discards a pending transaction after an abort, leaving committed as it was', async () => {
      const { store } = await factory();
      const lease = await leasedTask(store, 'c');
      await store.offsets.writePendingSourceOffsets(ref, pending(1), lease);
      await store.offsets.promotePendingSourceOffsets(ref, 1, lease);
      await store.offsets.writePendingSourceOffsets(ref, pending(2), lease);

      const other = await store.offsets.discardPendingSourceOffsets(ref, 3, lease);
      const discarded = await store.offsets.discardPendingSourceOffsets(ref, 2, lease);

      expect(other).toBe(false);
      expect(discarded).toBe(true);
      expect(await store.offsets.getSourceOffsets(ref)).toEqual({
        ...ref,
        committed: { seq: 1, offsets: pending(1).offsets },
      });
    });

    it('rejects pending, promote and discard of an older holder once a newer one took the lease', async () => {
      const { store, clock } = await factory();
      const zombie = await leasedTask(store, 'c', 'zombie');
      await store.offsets.writePendingSourceOffsets(ref, pending(1), zombie);
      clock.advance(TTL_MS);
      const current = await store.leases.acquireLease({
        ...ref,
        owner: 'current',
        generation: 1,
        ttlMs: TTL_MS,
      });

      const write = store.offsets.writePendingSourceOffsets(ref, pending(2), zombie);
      await expect(write).rejects.toBeInstanceOf(EpochFencedError);
      const promote = store.offsets.promotePendingSourceOffsets(ref, 1, zombie);
      await expect(promote).rejects.toBeInstanceOf(FencedError);
      const discard = store.offsets.discardPendingSourceOffsets(ref, 1, zombie);
      await expect(discard).rejects.toBeInstanceOf(FencedError);

      // The newer holder settles the zombie's transaction (recovery found it committed).
      const committed = await store.offsets.promotePendingSourceOffsets(ref, 1, current);
      expect(committed.seq).toBe(1);
    });

    it('lists the source offsets of every task that has some', async () => {
      const { store } = await factory();
      await seedConnector(store, 'c', { tasks: 3 });
      for (const task of [2, 0]) {
        const lease = await store.leases.acquireLease({
          connector: 'c',
          task,
          owner: `o${task}`,
          generation: 1,
          ttlMs: TTL_MS,
        });
        await store.offsets.writePendingSourceOffsets({ connector: 'c', task }, pending(1), lease);
      }

      const listed = await store.offsets.listSourceOffsets('c');

      expect(listed.map((offsets) => offsets.task)).toEqual([0, 2]);
    });
  });

  describe('sink offsets', () => {
    it('never moves a partition backwards under 10 concurrent writers with shuffled offsets', async () => {
      // Prepare
      const { store } = await factory();
      const offsets = Array.from({ length: 40 }, (_, i) => i);
      const observed: number[] = [];
      let writing = true;
      // Act
      const reader = (async () => {
        while (writing) {
          const [current] = await store.offsets.getSinkOffsets('c');
          if (current !== undefined) observed.push(current.offset);
        }
      })();
      const writers = Array.from({ length: 10 }, async (_, writer) => {
        const moved: boolean[] = [];
        for (const offset of shuffled(offsets, writer + 1)) {
          moved.push(
            await store.offsets.commitSinkOffset('c', { topic: 't', partition: 0, offset }),
          );
        }
        return moved;
      });
      const moves = (await Promise.all(writers)).flat();
      writing = false;
      await reader;
      // Assess
      expect(await store.offsets.getSinkOffsets('c')).toEqual([
        { topic: 't', partition: 0, offset: 39 },
      ]);
      expect(observed).toEqual([...observed].sort((a, b) => a - b));
      expect(moves.filter(Boolean).length).toBeLessThanOrEqual(40);
      expect(moves.filter((moved) => !moved).length).toBeGreaterThan(0);
    });

    it('keeps partitions apart and lists them by topic then partition', async () => {
      const { store } = await factory();

      await store.offsets.commitSinkOffset('c', { topic: 'b', partition: 10, offset: 5 });
      await store.offsets.commitSinkOffset('c', { topic: 'b', partition: 2, offset: 7 });
      await store.offsets.commitSinkOffset('c', { topic: 'a', partition: 0, offset: 1 });
      const equal = await store.offsets.commitSinkOffset('c', {
        topic: 'a',
        partition: 0,
        offset: 1,
      });

      expect(equal).toBe(false);
      expect(await store.offsets.getSinkOffsets('c')).toEqual([
        { topic: 'a', partition: 0, offset: 1 },
        { topic: 'b', partition: 2, offset: 7 },
        { topic: 'b', partition: 10, offset: 5 },
      ]);
    });

    it.each(['RUNNING', 'PAUSED'] as const)(
      'refuses to alter or reset sink offsets while the connector is %s',
      async (target) => {
        const { store } = await factory();
        await seedConnector(store, 'c', { target });
        await store.offsets.commitSinkOffset('c', { topic: 't', partition: 0, offset: 9 });

        const alter = store.offsets.alterSinkOffsets('c', [
          { topic: 't', partition: 0, offset: 1 },
        ]);
        await expect(alter).rejects.toBeInstanceOf(ConnectorNotStoppedError);
        const reset = store.offsets.resetSinkOffsets('c');
        await expect(reset).rejects.toBeInstanceOf(IllegalStateError);

        expect(await store.offsets.getSinkOffsets('c')).toEqual([
          { topic: 't', partition: 0, offset: 9 },
        ]);
      },
    );

    it('alters offsets backwards, forgets partitions and resets them once STOPPED', async () => {
      const { store } = await factory();
      await seedConnector(store, 'c');
      await store.offsets.commitSinkOffset('c', { topic: 't', partition: 0, offset: 9 });
      await store.offsets.commitSinkOffset('c', { topic: 't', partition: 1, offset: 4 });
      await store.configs.setTargetState('c', 'STOPPED');

      await store.offsets.alterSinkOffsets('c', [
        { topic: 't', partition: 0, offset: 2 },
        { topic: 't', partition: 1, offset: null },
        { topic: 'u', partition: 0, offset: 0 },
      ]);
      const altered = await store.offsets.getSinkOffsets('c');
      await store.offsets.resetSinkOffsets('c');

      expect(altered).toEqual([
        { topic: 't', partition: 0, offset: 2 },
        { topic: 'u', partition: 0, offset: 0 },
      ]);
      expect(await store.offsets.getSinkOffsets('c')).toEqual([]);
    });

    it('refuses to alter the offsets of a connector that does not exist', async () => {
      const { store } = await factory();

      await expect(store.offsets.resetSinkOffsets('missing')).rejects.toBeInstanceOf(
        ConnectorNotFoundError,
      );
    });
  });
}
