import { describe, expect, it } from 'vitest';
import { FencedError } from '../../../shared/connect/errors.js';
import { EpochFencedError } from '../../../shared/ports/errors.js';
import { MAX_TRACE_LENGTH } from '../../../shared/ports/status-store.js';
import { leasedTask, TTL_MS } from './fixtures.js';
import type { StateStoreFactory } from './harness.js';

export function statusContract(factory: StateStoreFactory): void {
  describe('status', () => {
    it('stores connector status with the writer and the time', async () => {
      const { store, clock } = await factory();

      await store.status.putConnectorStatus('c', { state: 'RUNNING', workerId: 'enumerator' });

      expect(await store.status.getConnectorStatus('c')).toEqual({
        state: 'RUNNING',
        workerId: 'enumerator',
        updatedAt: clock.now(),
      });
      expect(await store.status.getConnectorStatus('other')).toBeUndefined();
    });

    it('stores a task status written under the current lease, and lists tasks in order', async () => {
      const { store } = await factory();
      const lease = await leasedTask(store, 'c');
      await store.status.putTaskStatus(
        { connector: 'c', task: 3 },
        { state: 'UNASSIGNED', workerId: 'enumerator' },
      );

      await store.status.putTaskStatus(
        { connector: 'c', task: 0 },
        { state: 'FAILED', workerId: 'fn-1', trace: 'Error: boom\n    at poll' },
        lease,
      );

      expect(await store.status.listTaskStatuses('c')).toEqual([
        expect.objectContaining({ task: 0, state: 'FAILED', trace: 'Error: boom\n    at poll' }),
        expect.objectContaining({ task: 3, state: 'UNASSIGNED', workerId: 'enumerator' }),
      ]);
    });

    it('drops the trace when a later status has none', async () => {
      const { store } = await factory();
      const ref = { connector: 'c', task: 0 };
      await store.status.putTaskStatus(ref, { state: 'FAILED', workerId: 'w', trace: 't' });

      await store.status.putTaskStatus(ref, { state: 'RESTARTING', workerId: 'w' });

      expect(await store.status.getTaskStatus(ref)).not.toHaveProperty('trace');
    });

    it('cuts a very long trace so the status still fits its item', async () => {
      const { store } = await factory();
      const ref = { connector: 'c', task: 0 };

      await store.status.putTaskStatus(ref, {
        state: 'FAILED',
        workerId: 'w',
        trace: `Error: x\n${'    at frame\n'.repeat(20_000)}`,
      });

      const trace = (await store.status.getTaskStatus(ref))?.trace ?? '';
      expect(trace.length).toBe(MAX_TRACE_LENGTH);
      expect(trace.startsWith('Error: x')).toBe(true);
      expect(trace.endsWith('(trace truncated)')).toBe(true);
    });

    it('rejects the status of an older holder once a newer one took the lease', async () => {
      const { store, clock } = await factory();
      const zombie = await leasedTask(store, 'c', 'zombie');
      clock.advance(TTL_MS);
      const current = await store.leases.acquireLease({
        connector: 'c',
        task: 0,
        owner: 'current',
        generation: 1,
        ttlMs: TTL_MS,
      });
      const ref = { connector: 'c', task: 0 };

      const write = store.status.putTaskStatus(
        ref,
        { state: 'RUNNING', workerId: 'zombie' },
        zombie,
      );
      await expect(write).rejects.toBeInstanceOf(EpochFencedError);
      await store.status.putTaskStatus(ref, { state: 'RUNNING', workerId: 'current' }, current);

      await expect(write).rejects.toBeInstanceOf(FencedError);
      expect((await store.status.getTaskStatus(ref))?.workerId).toBe('current');
    });

    it('rejects the status of a holder that released its lease', async () => {
      const { store } = await factory();
      const lease = await leasedTask(store, 'c');
      await store.leases.releaseLease(lease);

      const write = store.status.putTaskStatus(
        { connector: 'c', task: 0 },
        { state: 'RUNNING', workerId: 'w' },
        lease,
      );

      await expect(write).rejects.toBeInstanceOf(EpochFencedError);
    });

    it('forgets the status of a removed task but keeps its epoch', async () => {
      // Prepare
      const { store } = await factory();
      const lease = await leasedTask(store, 'c', 'holder');
      await store.status.putTaskStatus(
        { connector: 'c', task: 0 },
        { state: 'RUNNING', workerId: 'w' },
        lease,
      );
      // Act
      await store.status.removeTaskStatus({ connector: 'c', task: 0 });
      await store.status.removeTaskStatus({ connector: 'c', task: 7 });
      // Assess
      expect(await store.status.getTaskStatus({ connector: 'c', task: 0 })).toBeUndefined();
      expect(await store.status.listTaskStatuses('c')).toEqual([]);
      expect((await store.leases.getLease({ connector: 'c', task: 0 }))?.epoch).toBe(lease.epoch);
    });
  });
}
