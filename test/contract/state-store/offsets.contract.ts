import { describe, expect, it } from 'vitest';
import { FencedError, IllegalStateError } from '../../../shared/connect/errors.js';
import {
  ConnectorNotFoundError,
  ConnectorNotStoppedError,
  LeaseFencedError,
  NoPendingOffsetsError,
  StaleVersionError,
} from '../../../shared/ports/errors.js';
import {
  ADMIN_OFFSETS_TASK,
  type PendingSourceOffsets,
  type SourceOffsetEntry,
} from '../../../shared/ports/offset-store.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { leasedTask, seedConnector, shuffled, TTL_MS } from './fixtures.js';
import type { StateStoreFactory } from './harness.js';
import { promoteOrDiscardRevokedContract } from './promote-or-discard-revoked.contract.js';

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

/** Task `task` of connector `c` commits `offsets` (seq 1), as the runtime does. */
async function commitAs(
  store: StateStore,
  task: number,
  offsets: readonly SourceOffsetEntry[],
): Promise<void> {
  const ref = { connector: 'c', task };
  const lease = await store.leases.acquireLease({
    ...ref,
    owner: `o${task}`,
    generation: 1,
    ttlMs: TTL_MS,
  });
  await store.offsets.writePendingSourceOffsets(ref, { seq: 1, offsets, positions: [] }, lease);
  await store.offsets.promotePendingSourceOffsets(ref, 1, lease);
}

/** Per partition (by JSON), the entry with the newest `at`: the runtime's lookup rule. */
function newestEntries(all: readonly { committed?: { offsets: readonly SourceOffsetEntry[] } }[]) {
  const best = new Map<string, SourceOffsetEntry>();
  for (const entry of all.flatMap((t) => t.committed?.offsets ?? [])) {
    const key = JSON.stringify(entry.partition);
    const current = best.get(key);
    if (current === undefined || (entry.at ?? 0) > (current.at ?? 0)) best.set(key, entry);
  }
  return Object.fromEntries([...best].map(([key, entry]) => [key, entry.offset]));
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

    it('promotes one transaction and records the next one pending in a single write', async () => {
      const { store } = await factory();
      const lease = await leasedTask(store, 'c');
      await store.offsets.writePendingSourceOffsets(ref, pending(1), lease);

      const committed = await store.offsets.promoteAndWritePendingSourceOffsets(
        ref,
        1,
        pending(2),
        lease,
      );

      expect(committed).toEqual({ seq: 1, offsets: pending(1).offsets });
      expect(await store.offsets.getSourceOffsets(ref)).toEqual({
        ...ref,
        committed,
        pending: pending(2),
      });
    });

    it('changes nothing when the combined write names another pending transaction, is not ahead of it, or is fenced', async () => {
      const { store, clock } = await factory();
      const zombie = await leasedTask(store, 'c', 'zombie');
      await store.offsets.writePendingSourceOffsets(ref, pending(2), zombie);
      const before = await store.offsets.getSourceOffsets(ref);

      const wrongSeq = store.offsets.promoteAndWritePendingSourceOffsets(
        ref,
        1,
        pending(3),
        zombie,
      );
      await expect(wrongSeq).rejects.toBeInstanceOf(NoPendingOffsetsError);
      const notAhead = store.offsets.promoteAndWritePendingSourceOffsets(
        ref,
        2,
        pending(2),
        zombie,
      );
      await expect(notAhead).rejects.toBeInstanceOf(StaleVersionError);
      clock.advance(TTL_MS);
      await store.leases.acquireLease({ ...ref, owner: 'current', generation: 1, ttlMs: TTL_MS });
      const fencedWrite = store.offsets.promoteAndWritePendingSourceOffsets(
        ref,
        2,
        pending(3),
        zombie,
      );
      await expect(fencedWrite).rejects.toBeInstanceOf(LeaseFencedError);

      expect(await store.offsets.getSourceOffsets(ref)).toEqual(before);
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
      await expect(write).rejects.toBeInstanceOf(LeaseFencedError);
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

  promoteOrDiscardRevokedContract(factory);

  describe('source offsets changed through the REST API (the admin entry)', () => {
    it('lists an alteration as task -1, first, stamped newer than every task entry', async () => {
      // Prepare
      const { store, clock } = await factory();
      await seedConnector(store, 'c', { tasks: 2 });
      await commitAs(store, 0, [{ partition: { file: 'a' }, offset: { line: 100 }, at: 5 }]);
      await commitAs(store, 1, [
        { partition: { file: 'b' }, offset: { line: 7 }, at: clock.now() + 60_000 },
      ]);
      await store.configs.setTargetState('c', 'STOPPED');
      // Act
      await store.offsets.alterSourceOffsets('c', [
        { partition: { file: 'a' }, offset: { line: 3 } },
        { partition: { file: 'b' }, offset: null },
      ]);
      const listed = await store.offsets.listSourceOffsets('c');
      // Assess
      expect(listed.map((t) => t.task)).toEqual([ADMIN_OFFSETS_TASK, 0, 1]);
      const at = clock.now() + 60_001;
      expect(listed[0]).toEqual({
        connector: 'c',
        task: ADMIN_OFFSETS_TASK,
        committed: {
          seq: 1,
          offsets: [
            { partition: { file: 'a' }, offset: { line: 3 }, at },
            { partition: { file: 'b' }, offset: null, at },
          ],
        },
      });
      expect(newestEntries(listed)).toEqual({ '{"file":"a"}': { line: 3 }, '{"file":"b"}': null });
      expect(await store.offsets.getSourceOffsets({ connector: 'c', task: -1 })).toEqual(listed[0]);
      expect((await store.offsets.getSourceOffsets({ connector: 'c', task: 0 })).committed).toEqual(
        { seq: 1, offsets: [{ partition: { file: 'a' }, offset: { line: 100 }, at: 5 }] },
      );
    });

    it('keeps earlier alterations of other partitions and replaces those changed again', async () => {
      // Prepare
      const { store, clock } = await factory();
      await seedConnector(store, 'c', { target: 'STOPPED' });
      await store.offsets.alterSourceOffsets('c', [
        { partition: { file: 'a' }, offset: { line: 1 } },
        { partition: { file: 'b', shard: 2 }, offset: { line: 2 } },
      ]);
      const first = clock.now();
      clock.advance(1_000);
      // Act
      await store.offsets.alterSourceOffsets('c', [
        { partition: { shard: 2, file: 'b' }, offset: { line: 20 } },
        { partition: { file: 'c' }, offset: { line: 30 } },
        { partition: { file: 'c' }, offset: { line: 31 } },
      ]);
      const [admin] = await store.offsets.listSourceOffsets('c');
      // Assess
      expect(admin?.committed).toEqual({
        seq: 2,
        offsets: [
          { partition: { file: 'a' }, offset: { line: 1 }, at: first },
          { partition: { shard: 2, file: 'b' }, offset: { line: 20 }, at: first + 1_000 },
          { partition: { file: 'c' }, offset: { line: 31 }, at: first + 1_000 },
        ],
      });
    });

    it('resets every partition a task (committed or pending) or an alteration knows', async () => {
      // Prepare
      const { store, clock } = await factory();
      await seedConnector(store, 'c', { tasks: 2 });
      await commitAs(store, 0, [{ partition: { file: 'a' }, offset: { line: 9 }, at: 1 }]);
      const lease = await store.leases.acquireLease({
        connector: 'c',
        task: 1,
        owner: 'o1',
        generation: 1,
        ttlMs: TTL_MS,
      });
      await store.offsets.writePendingSourceOffsets(
        { connector: 'c', task: 1 },
        {
          seq: 1,
          offsets: [{ partition: { file: 'p' }, offset: { line: 4 }, at: 2 }],
          positions: [],
        },
        lease,
      );
      await store.configs.setTargetState('c', 'STOPPED');
      await store.offsets.alterSourceOffsets('c', [
        { partition: { file: 'x' }, offset: { line: 1 } },
      ]);
      clock.advance(10);
      // Act
      await store.offsets.resetSourceOffsets('c');
      const listed = await store.offsets.listSourceOffsets('c');
      // Assess
      const at = clock.now();
      expect(listed[0]?.committed).toEqual({
        seq: 2,
        offsets: [
          { partition: { file: 'x' }, offset: null, at },
          { partition: { file: 'a' }, offset: null, at },
          { partition: { file: 'p' }, offset: null, at },
        ],
      });
      expect(listed.map((t) => t.task)).toEqual([ADMIN_OFFSETS_TASK, 0, 1]);
      expect(listed[2]?.pending?.offsets).toEqual([
        { partition: { file: 'p' }, offset: { line: 4 }, at: 2 },
      ]);
    });

    it('writes nothing when resetting a connector that never stored source offsets', async () => {
      // Prepare
      const { store, countItems } = await factory();
      await seedConnector(store, 'c', { target: 'STOPPED' });
      const before = await countItems('c');
      // Act
      await store.offsets.resetSourceOffsets('c');
      // Assess
      expect(await store.offsets.listSourceOffsets('c')).toEqual([]);
      expect(await countItems('c')).toBe(before);
    });

    it.each(['RUNNING', 'PAUSED'] as const)(
      'refuses to alter or reset source offsets while the connector is %s',
      async (target) => {
        // Prepare
        const { store } = await factory();
        await seedConnector(store, 'c', { tasks: 1 });
        await commitAs(store, 0, [{ partition: { file: 'a' }, offset: { line: 9 }, at: 1 }]);
        await store.configs.setTargetState('c', target);
        // Act
        const alter = store.offsets.alterSourceOffsets('c', [
          { partition: { file: 'a' }, offset: null },
        ]);
        const reset = store.offsets.resetSourceOffsets('c');
        // Assess
        await expect(alter).rejects.toBeInstanceOf(ConnectorNotStoppedError);
        await expect(reset).rejects.toBeInstanceOf(ConnectorNotStoppedError);
        expect((await store.offsets.listSourceOffsets('c')).map((t) => t.task)).toEqual([0]);
      },
    );

    it('refuses to alter the source offsets of a connector that does not exist', async () => {
      const { store } = await factory();

      await expect(
        store.offsets.alterSourceOffsets('missing', [{ partition: { f: 1 }, offset: null }]),
      ).rejects.toBeInstanceOf(ConnectorNotFoundError);
      await expect(store.offsets.resetSourceOffsets('missing')).rejects.toBeInstanceOf(
        ConnectorNotFoundError,
      );
    });

    it('keeps alterations when the connector is deleted with its offsets kept, and no task status', async () => {
      // Prepare
      const { store } = await factory();
      await seedConnector(store, 'c', { target: 'STOPPED' });
      await store.offsets.alterSourceOffsets('c', [{ partition: { f: 1 }, offset: { n: 2 } }]);
      const statuses = await store.status.listTaskStatuses('c');
      // Act
      await store.configs.deleteConnector('c', { keepOffsets: true });
      const listed = await store.offsets.listSourceOffsets('c');
      // Assess
      expect(statuses).toEqual([]);
      expect(listed.map((t) => t.committed?.offsets.map((e) => e.offset))).toEqual([[{ n: 2 }]]);
    });
  });

  describe('sink offsets', () => {
    it('stores the next offset to read: a sink that wrote offsets 0..9 reads back 10', async () => {
      const { store } = await factory();

      const first = await store.offsets.commitSinkOffset('c', {
        topic: 't',
        partition: 0,
        nextOffset: 0,
      });
      const moved = await store.offsets.commitSinkOffset('c', {
        topic: 't',
        partition: 0,
        nextOffset: 10,
      });

      expect([first, moved]).toEqual([true, true]);
      expect(await store.offsets.getSinkOffsets('c')).toEqual([
        { topic: 't', partition: 0, nextOffset: 10 },
      ]);
    });

    it('never moves a partition backwards under 10 concurrent writers with shuffled offsets', async () => {
      // Prepare
      const { store } = await factory();
      const offsets = Array.from({ length: 40 }, (_, i) => i + 1);
      const observed: number[] = [];
      let writing = true;
      // Act
      const reader = (async () => {
        while (writing) {
          const [current] = await store.offsets.getSinkOffsets('c');
          if (current !== undefined) observed.push(current.nextOffset);
        }
      })();
      const writers = Array.from({ length: 10 }, async (_, writer) => {
        const moved: boolean[] = [];
        for (const nextOffset of shuffled(offsets, writer + 1)) {
          moved.push(
            await store.offsets.commitSinkOffset('c', { topic: 't', partition: 0, nextOffset }),
          );
        }
        return moved;
      });
      const moves = (await Promise.all(writers)).flat();
      writing = false;
      await reader;
      // Assess
      expect(await store.offsets.getSinkOffsets('c')).toEqual([
        { topic: 't', partition: 0, nextOffset: 40 },
      ]);
      expect(observed).toEqual([...observed].sort((a, b) => a - b));
      expect(moves.filter(Boolean).length).toBeLessThanOrEqual(40);
      expect(moves.filter((moved) => !moved).length).toBeGreaterThan(0);
    });

    it('keeps partitions apart and lists them by topic then partition', async () => {
      const { store } = await factory();

      await store.offsets.commitSinkOffset('c', { topic: 'b', partition: 10, nextOffset: 5 });
      await store.offsets.commitSinkOffset('c', { topic: 'b', partition: 2, nextOffset: 7 });
      await store.offsets.commitSinkOffset('c', { topic: 'a', partition: 0, nextOffset: 1 });
      const equal = await store.offsets.commitSinkOffset('c', {
        topic: 'a',
        partition: 0,
        nextOffset: 1,
      });

      expect(equal).toBe(false);
      expect(await store.offsets.getSinkOffsets('c')).toEqual([
        { topic: 'a', partition: 0, nextOffset: 1 },
        { topic: 'b', partition: 2, nextOffset: 7 },
        { topic: 'b', partition: 10, nextOffset: 5 },
      ]);
    });

    it.each(['RUNNING', 'PAUSED'] as const)(
      'refuses to alter or reset sink offsets while the connector is %s',
      async (target) => {
        const { store } = await factory();
        await seedConnector(store, 'c', { target });
        await store.offsets.commitSinkOffset('c', { topic: 't', partition: 0, nextOffset: 9 });

        const alter = store.offsets.alterSinkOffsets('c', [
          { topic: 't', partition: 0, nextOffset: 1 },
        ]);
        await expect(alter).rejects.toBeInstanceOf(ConnectorNotStoppedError);
        const reset = store.offsets.resetSinkOffsets('c');
        await expect(reset).rejects.toBeInstanceOf(IllegalStateError);

        expect(await store.offsets.getSinkOffsets('c')).toEqual([
          { topic: 't', partition: 0, nextOffset: 9 },
        ]);
      },
    );

    it('alters offsets backwards, forgets partitions and resets them once STOPPED', async () => {
      const { store } = await factory();
      await seedConnector(store, 'c');
      await store.offsets.commitSinkOffset('c', { topic: 't', partition: 0, nextOffset: 9 });
      await store.offsets.commitSinkOffset('c', { topic: 't', partition: 1, nextOffset: 4 });
      await store.configs.setTargetState('c', 'STOPPED');

      await store.offsets.alterSinkOffsets('c', [
        { topic: 't', partition: 0, nextOffset: 2 },
        { topic: 't', partition: 1, nextOffset: null },
        { topic: 'u', partition: 0, nextOffset: 0 },
      ]);
      const altered = await store.offsets.getSinkOffsets('c');
      await store.offsets.resetSinkOffsets('c');

      expect(altered).toEqual([
        { topic: 't', partition: 0, nextOffset: 2 },
        { topic: 'u', partition: 0, nextOffset: 0 },
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
