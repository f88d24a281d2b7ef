import { describe, expect, it } from 'vitest';
import { FencedError } from '../../../shared/connect/errors.js';
import {
  ConnectorNotFoundError,
  LeaseFencedError,
  LeaseHeldError,
  StaleGenerationError,
  TargetNotRunningError,
  TaskNotFoundError,
} from '../../../shared/ports/errors.js';
import type { Lease } from '../../../shared/ports/lease-store.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { leasedTask, seedConnector, TTL_MS } from './fixtures.js';
import type { StateStoreFactory } from './harness.js';

async function contend(store: StateStore, round: string, contenders = 20) {
  const results = await Promise.allSettled(
    Array.from({ length: contenders }, (_, i) =>
      store.leases.acquireLease({
        connector: 'c',
        task: 0,
        owner: `${round}-${i}`,
        generation: 1,
        ttlMs: TTL_MS,
      }),
    ),
  );
  const winners = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const losers = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  return { winners, losers };
}

export function leaseContract(factory: StateStoreFactory): void {
  describe('leases', () => {
    it('grants the lease to exactly one of 20 concurrent contenders per lease period', async () => {
      // Prepare
      const { store, clock } = await factory();
      await seedConnector(store, 'c', { tasks: 1 });
      // Act
      const first = await contend(store, 'first');
      const whileHeld = await contend(store, 'held');
      clock.advance(TTL_MS);
      const afterExpiry = await contend(store, 'second');
      // Assess
      expect(first.winners).toHaveLength(1);
      expect(first.losers.every((e) => e instanceof LeaseHeldError)).toBe(true);
      expect(whileHeld.winners).toHaveLength(0);
      expect(afterExpiry.winners).toHaveLength(1);
      expect(afterExpiry.losers).toHaveLength(19);
      const [a, b] = [first.winners[0], afterExpiry.winners[0]] as [Lease, Lease];
      expect(b.epoch).toBeGreaterThan(a.epoch);
      expect(await store.leases.getLease({ connector: 'c', task: 0 })).toEqual(b);
    });

    it('tells a loser who holds the task and until when', async () => {
      const { store } = await factory();
      const lease = await leasedTask(store, 'c', 'holder');

      const refused = store.leases.acquireLease({
        connector: 'c',
        task: 0,
        owner: 'other',
        generation: 1,
        ttlMs: TTL_MS,
      });

      await expect(refused).rejects.toMatchObject({ owner: 'holder', expiresAt: lease.expiresAt });
    });

    it('refuses a lease for a generation that is not the task current one', async () => {
      const { store } = await factory();
      await seedConnector(store, 'c', { tasks: 1 });

      const acquire = store.leases.acquireLease({
        connector: 'c',
        task: 0,
        owner: 'o',
        generation: 2,
        ttlMs: TTL_MS,
      });

      await expect(acquire).rejects.toBeInstanceOf(StaleGenerationError);
      expect(await store.leases.getLease({ connector: 'c', task: 0 })).toBeUndefined();
    });

    it.each(['PAUSED', 'STOPPED'] as const)(
      'refuses a lease while the target state is %s',
      async (target) => {
        const { store } = await factory();
        await seedConnector(store, 'c', { tasks: 1, target });

        const acquire = store.leases.acquireLease({
          connector: 'c',
          task: 0,
          owner: 'o',
          generation: 1,
          ttlMs: TTL_MS,
        });

        await expect(acquire).rejects.toBeInstanceOf(TargetNotRunningError);
      },
    );

    it('refuses a lease for an unknown task or connector', async () => {
      const { store } = await factory();
      await seedConnector(store, 'c', { tasks: 1 });
      const request = { owner: 'o', generation: 1, ttlMs: TTL_MS };

      await expect(
        store.leases.acquireLease({ ...request, connector: 'c', task: 1 }),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(
        store.leases.acquireLease({ ...request, connector: 'missing', task: 0 }),
      ).rejects.toBeInstanceOf(ConnectorNotFoundError);
    });

    it('renews the lease of its holder, also after expiry while nobody took the task', async () => {
      const { store, clock } = await factory();
      const lease = await leasedTask(store, 'c');
      clock.advance(TTL_MS + 1);

      const renewed = await store.leases.renewLease(lease, TTL_MS);

      expect(renewed).toEqual({ ...lease, expiresAt: clock.now() + TTL_MS });
      await expect(
        store.leases.acquireLease({ connector: 'c', task: 0, owner: 'x', generation: 1, ttlMs: 1 }),
      ).rejects.toBeInstanceOf(LeaseHeldError);
    });

    it('refuses to renew or release a lease another invocation took over', async () => {
      const { store, clock } = await factory();
      const old = await leasedTask(store, 'c', 'old');
      clock.advance(TTL_MS);
      await store.leases.acquireLease({
        connector: 'c',
        task: 0,
        owner: 'new',
        generation: 1,
        ttlMs: TTL_MS,
      });

      const renew = store.leases.renewLease(old, TTL_MS);
      await expect(renew).rejects.toBeInstanceOf(LeaseFencedError);
      const release = store.leases.releaseLease(old);

      await expect(release).rejects.toBeInstanceOf(FencedError);
      expect((await store.leases.getLease({ connector: 'c', task: 0 }))?.owner).toBe('new');
    });

    it('frees the task on release, and the next holder gets a higher epoch', async () => {
      const { store } = await factory();
      const first = await leasedTask(store, 'c', 'first');

      await store.leases.releaseLease(first);
      const second = await store.leases.acquireLease({
        connector: 'c',
        task: 0,
        owner: 'second',
        generation: 1,
        ttlMs: TTL_MS,
      });

      expect(second.epoch).toBe(first.epoch + 1);
    });

    it('revokes a held lease: the holder is fenced and the next invocation takes the task at once', async () => {
      // Prepare
      const { store } = await factory();
      const lease = await leasedTask(store, 'c', 'holder');
      // Act
      const epoch = await store.leases.revokeLease({ connector: 'c', task: 0 });
      const next = await store.leases.acquireLease({
        connector: 'c',
        task: 0,
        owner: 'next',
        generation: 1,
        ttlMs: TTL_MS,
      });
      // Assess
      expect(epoch).toBe(lease.epoch + 1);
      expect(next.epoch).toBe(epoch + 1);
      await expect(store.leases.renewLease(lease, TTL_MS)).rejects.toBeInstanceOf(LeaseFencedError);
      await expect(
        store.status.putTaskStatus(
          { connector: 'c', task: 0 },
          { state: 'RUNNING', workerId: 'w' },
          lease,
        ),
      ).rejects.toBeInstanceOf(LeaseFencedError);
    });

    it('revoking a free task only raises its epoch', async () => {
      const { store } = await factory();
      const lease = await leasedTask(store, 'c', 'holder');
      await store.leases.releaseLease(lease);

      const epoch = await store.leases.revokeLease({ connector: 'c', task: 0 });

      expect(epoch).toBe(lease.epoch + 1);
      expect(await store.leases.getLease({ connector: 'c', task: 0 })).toBeUndefined();
    });

    it('records the idle streak with the release, under the fence, and reads it with the lease', async () => {
      // Prepare
      const { store, clock } = await factory();
      const lease = await leasedTask(store, 'c', 'idle');
      const idle = { count: 3, version: 1, generation: 1 };
      // Act
      await store.leases.releaseLease(lease, idle);
      const state = await store.leases.getLeaseState({ connector: 'c', task: 0 });
      // Assess
      expect(state).toEqual({ lease: undefined, idle: { ...idle, endedAt: clock.now() } });
      await expect(store.leases.releaseLease(lease, idle)).rejects.toBeInstanceOf(LeaseFencedError);
    });

    it('keeps the idle streak through the next acquire, and clears it with a release that delivered', async () => {
      const { store } = await factory();
      const first = await leasedTask(store, 'c', 'first');
      await store.leases.releaseLease(first, { count: 1, version: 1, generation: 1 });
      const second = await store.leases.acquireLease({
        connector: 'c',
        task: 0,
        owner: 'second',
        generation: 1,
        ttlMs: TTL_MS,
      });

      const whileHeld = await store.leases.getLeaseState({ connector: 'c', task: 0 });
      await store.leases.releaseLease(second);
      const after = await store.leases.getLeaseState({ connector: 'c', task: 0 });

      expect(whileHeld).toMatchObject({ lease: second, idle: { count: 1 } });
      expect(after).toEqual({ lease: undefined, idle: undefined });
    });

    it('clears the idle streak when the lease is revoked (a restart)', async () => {
      const { store } = await factory();
      const lease = await leasedTask(store, 'c', 'idle');
      await store.leases.releaseLease(lease, { count: 4, version: 1, generation: 1 });

      await store.leases.revokeLease({ connector: 'c', task: 0 });

      expect(await store.leases.getLeaseState({ connector: 'c', task: 0 })).toEqual({
        lease: undefined,
        idle: undefined,
      });
    });
  });
}
