import { describe, expect, it } from 'vitest';
import { FencedError } from '../../../shared/connect/errors.js';
import { LeaseFencedError } from '../../../shared/ports/errors.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { MAX_TRACE_LENGTH } from '../../../shared/ports/status-store.js';
import { leasedTask, seedConnector, TTL_MS } from './fixtures.js';
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
      await expect(write).rejects.toBeInstanceOf(LeaseFencedError);
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

      await expect(write).rejects.toBeInstanceOf(LeaseFencedError);
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

  describe('status snapshot', () => {
    it('reads what the four separate reads return, whatever else the connector stores', async () => {
      // Prepare
      const { store } = await factory();
      await seedConnector(store, 'c', { tasks: 3 });
      await store.status.putConnectorStatus('c', { state: 'RUNNING', workerId: 'enumerator' });
      const lease = await store.leases.acquireLease({
        connector: 'c',
        task: 0,
        owner: 'fn-0',
        generation: 1,
        ttlMs: TTL_MS,
      });
      await store.status.putTaskStatus(
        { connector: 'c', task: 0 },
        { state: 'RUNNING', workerId: 'fn-0' },
        lease,
      );
      await store.status.putTaskStatus(
        { connector: 'c', task: 2 },
        { state: 'FAILED', workerId: 'fn-2', trace: 'Error: boom' },
      );
      await store.offsets.writePendingSourceOffsets(
        { connector: 'c', task: 0 },
        { seq: 1, offsets: [{ partition: { f: 'a' }, offset: { n: 1 }, at: 1 }], positions: [] },
        lease,
      );
      await store.leases.acquireLease({
        connector: 'c',
        task: 1,
        owner: 'fn-1',
        generation: 1,
        ttlMs: TTL_MS,
      });
      for (let partition = 0; partition < 30; partition += 1) {
        await store.offsets.commitSinkOffset('c', { topic: 'orders', partition, nextOffset: 5 });
      }
      await store.topics.recordActiveTopic('c', 'orders');
      await store.restarts.requestRestart('c', { includeTasks: true, onlyFailed: false });
      // Act
      const snapshot = await store.status.getConnectorSnapshot('c');
      // Assess
      expect(snapshot).toEqual({
        record: await store.configs.getConnector('c'),
        tasks: await store.configs.getTaskConfigs('c'),
        status: await store.status.getConnectorStatus('c'),
        taskStatuses: await store.status.listTaskStatuses('c'),
      });
      expect(snapshot?.taskStatuses.map((t) => [t.task, t.state])).toEqual([
        [0, 'RUNNING'],
        [2, 'FAILED'],
      ]);
      expect(snapshot?.tasks.tasks).toHaveLength(3);
    });

    it('reads a connector with no task configs and no status yet', async () => {
      const { store } = await factory();
      const record = await store.configs.createConnector('c', { 'connector.class': 'X' });

      expect(await store.status.getConnectorSnapshot('c')).toEqual({
        record,
        tasks: { connector: 'c', version: 0, tasks: [] },
        status: undefined,
        taskStatuses: [],
      });
    });

    it('reads nothing for an unknown connector or one deleted with its offsets kept', async () => {
      // Prepare
      const { store } = await factory();
      const lease = await leasedTask(store, 'c');
      await store.offsets.writePendingSourceOffsets(
        { connector: 'c', task: 0 },
        { seq: 1, offsets: [{ partition: { f: 'a' }, offset: { n: 1 } }], positions: [] },
        lease,
      );
      // Act
      await store.configs.deleteConnector('c', { keepOffsets: true });
      // Assess
      expect(await store.status.getConnectorSnapshot('c')).toBeUndefined();
      expect(await store.status.getConnectorSnapshot('never')).toBeUndefined();
    });
  });

  describe('sink snapshot', () => {
    it('reads what the four reads of a sink invocation return, whatever else is stored', async () => {
      // Prepare
      const { store } = await factory();
      await seedConnector(store, 'c', { tasks: 2 });
      await store.status.putConnectorStatus('c', { state: 'RUNNING', workerId: 'enumerator' });
      await store.status.putTaskStatus(
        { connector: 'c', task: 1 },
        { state: 'FAILED', workerId: 'fn-1', trace: 'Error: boom' },
      );
      await leasedTaskOf(store, 'c', 0);
      for (let partition = 0; partition < 12; partition += 1) {
        await store.offsets.commitSinkOffset('c', { topic: 'orders', partition, nextOffset: 10 });
      }
      await store.offsets.commitSinkOffset('c', { topic: 'audit', partition: 0, nextOffset: 7 });
      await store.configs.setTargetState('c', 'STOPPED');
      await store.offsets.alterSinkOffsets('c', [
        { topic: 'orders', partition: 3, nextOffset: 2 },
        { topic: 'orders', partition: 5, nextOffset: null },
        { topic: 'audit', partition: 1, nextOffset: 0 },
      ]);
      await store.configs.setTargetState('c', 'RUNNING');
      await store.offsets.commitSinkOffset('c', { topic: 'audit', partition: 0, nextOffset: 9 });
      await store.topics.recordActiveTopic('c', 'orders');
      await store.restarts.requestRestart('c', { includeTasks: true, onlyFailed: false });
      // Act
      const all = await store.offsets.getSinkOffsets('c');
      const snapshot = await store.status.getSinkSnapshot('c', [
        ...all,
        { topic: 'orders', partition: 5 },
        { topic: 'never', partition: 0 },
      ]);
      const some = await store.status.getSinkSnapshot('c', [
        { topic: 'audit', partition: 1 },
        { topic: 'orders', partition: 3 },
        { topic: 'orders', partition: 5 },
      ]);
      // Assess
      expect(snapshot).toEqual({
        record: await store.configs.getConnector('c'),
        tasks: await store.configs.getTaskConfigs('c'),
        status: await store.status.getConnectorStatus('c'),
        taskStatuses: await store.status.listTaskStatuses('c'),
        sinkOffsets: await store.offsets.getSinkOffsets('c'),
      });
      expect(snapshot?.sinkOffsets.map((o) => `${o.topic}-${o.partition}@${o.nextOffset}`)).toEqual(
        [
          'audit-0@9',
          'audit-1@0',
          ...[0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11].map((p) => `orders-${p}@${p === 3 ? 2 : 10}`),
        ],
      );
      expect(some?.sinkOffsets.map((o) => `${o.topic}-${o.partition}@${o.nextOffset}`)).toEqual([
        'audit-1@0',
        'orders-3@2',
      ]);
      expect(snapshot?.record.targetState).toBe('RUNNING');
      expect(snapshot?.taskStatuses.map((t) => [t.task, t.state])).toEqual([
        [0, 'RUNNING'],
        [1, 'FAILED'],
      ]);
      expect(snapshot?.tasks.tasks).toHaveLength(2);
    });

    it('reads no sink offsets once they were reset, and the rest as before', async () => {
      // Prepare
      const { store } = await factory();
      await seedConnector(store, 'c', { target: 'STOPPED', tasks: 1 });
      await store.offsets.commitSinkOffset('c', { topic: 'orders', partition: 0, nextOffset: 4 });
      // Act
      await store.offsets.resetSinkOffsets('c');
      // Assess
      expect(await store.status.getSinkSnapshot('c', [{ topic: 'orders', partition: 0 }])).toEqual({
        record: await store.configs.getConnector('c'),
        tasks: await store.configs.getTaskConfigs('c'),
        status: undefined,
        taskStatuses: [],
        sinkOffsets: [],
      });
    });

    it('reads nothing for an unknown connector or one deleted with its offsets kept', async () => {
      // Prepare
      const { store } = await factory();
      await seedConnector(store, 'c');
      await store.offsets.commitSinkOffset('c', { topic: 'orders', partition: 0, nextOffset: 4 });
      // Act
      await store.configs.deleteConnector('c', { keepOffsets: true });
      // Assess
      expect(await store.offsets.getSinkOffsets('c')).toHaveLength(1);
      const orders0 = [{ topic: 'orders', partition: 0 }];
      expect(await store.status.getSinkSnapshot('c', orders0)).toBeUndefined();
      expect(await store.status.getSinkSnapshot('never', orders0)).toBeUndefined();
    });
  });
}

/** Leases `task` of an existing connector and gives it a pending source offset. */
async function leasedTaskOf(store: StateStore, connector: string, task: number): Promise<void> {
  const lease = await store.leases.acquireLease({
    connector,
    task,
    owner: `fn-${task}`,
    generation: 1,
    ttlMs: TTL_MS,
  });
  await store.status.putTaskStatus({ connector, task }, { state: 'RUNNING', workerId: 'w' }, lease);
  await store.offsets.writePendingSourceOffsets(
    { connector, task },
    { seq: 1, offsets: [{ partition: { f: 'a' }, offset: { n: 1 }, at: 1 }], positions: [] },
    lease,
  );
}
