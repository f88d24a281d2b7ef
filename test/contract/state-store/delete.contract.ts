import { describe, expect, it } from 'vitest';
import { ConnectorNotFoundError, LeaseFencedError } from '../../../shared/ports/errors.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { seedConnector, TTL_MS } from './fixtures.js';
import type { StateStoreFactory } from './harness.js';

/** Gives connector `name` one item of every kind. */
async function populate(store: StateStore, name: string): Promise<void> {
  await seedConnector(store, name, { tasks: 2 });
  const ref = { connector: name, task: 0 };
  const lease = await store.leases.acquireLease({
    ...ref,
    owner: `${name}-o`,
    generation: 1,
    ttlMs: TTL_MS,
  });
  await store.status.putTaskStatus(ref, { state: 'RUNNING', workerId: 'w' }, lease);
  await store.status.putTaskStatus(
    { connector: name, task: 1 },
    { state: 'UNASSIGNED', workerId: 'e' },
  );
  await store.offsets.writePendingSourceOffsets(
    ref,
    { seq: 1, offsets: [{ partition: { p: 1 }, offset: { o: 1 } }], positions: [] },
    lease,
  );
  await store.status.putConnectorStatus(name, { state: 'RUNNING', workerId: 'e' });
  await store.offsets.commitSinkOffset(name, { topic: 't', partition: 0, nextOffset: 5 });
  await store.topics.recordActiveTopic(name, 't');
  await store.restarts.requestRestart(name, { onlyFailed: false, includeTasks: true });
}

export function deleteContract(factory: StateStoreFactory): void {
  describe('deleteConnector', () => {
    it('removes every item of the connector and nothing of another', async () => {
      // Prepare
      const { store, countItems } = await factory();
      await populate(store, 'gone');
      await populate(store, 'kept');
      await store.loggers.setLoggerLevel('org.apache.kafka', 'DEBUG');
      const keptBefore = await countItems('kept');
      // Act
      await store.configs.deleteConnector('gone');
      // Assess
      expect(await countItems('gone')).toBe(0);
      expect(await store.configs.getConnector('gone')).toBeUndefined();
      expect(await store.configs.getTaskConfigs('gone')).toEqual({
        connector: 'gone',
        version: 0,
        tasks: [],
      });
      expect(await store.status.listTaskStatuses('gone')).toEqual([]);
      expect(await store.offsets.listSourceOffsets('gone')).toEqual([]);
      expect(await store.offsets.getSinkOffsets('gone')).toEqual([]);
      expect(await store.topics.listActiveTopics('gone')).toEqual([]);
      expect(await store.restarts.getRestartRequest('gone')).toBeUndefined();
      // CONNECTOR, TASKS, TASK#0, TASK#1, STATUS, SINKOFFSET, TOPIC, RESTART
      expect(keptBefore).toBe(8);
      expect(await countItems('kept')).toBe(keptBefore);
      expect((await store.configs.listConnectors()).names).toEqual(['kept']);
      expect(await store.loggers.listLoggerLevels()).toHaveLength(1);
    });

    it('keeps source and sink offsets when asked, as Kafka Connect does', async () => {
      const { store } = await factory();
      await populate(store, 'c');

      await store.configs.deleteConnector('c', { keepOffsets: true });

      expect(await store.configs.getConnector('c')).toBeUndefined();
      expect(await store.status.listTaskStatuses('c')).toEqual([]);
      expect(await store.leases.getLease({ connector: 'c', task: 0 })).toBeUndefined();
      expect((await store.offsets.listSourceOffsets('c')).map((o) => o.pending?.seq)).toEqual([1]);
      expect(await store.offsets.getSinkOffsets('c')).toEqual([
        { topic: 't', partition: 0, nextOffset: 5 },
      ]);
      // Active topics are not offsets: they go with the connector (Kafka Connect resets them).
      expect(await store.topics.listActiveTopics('c')).toEqual([]);
    });

    it('refuses to delete a connector that does not exist', async () => {
      const { store } = await factory();

      await expect(store.configs.deleteConnector('missing')).rejects.toBeInstanceOf(
        ConnectorNotFoundError,
      );
    });

    it('keeps a zombie of a deleted connector from writing into its re-creation', async () => {
      const { store } = await factory();
      await seedConnector(store, 'c', { tasks: 1 });
      const request = { connector: 'c', task: 0, generation: 1, ttlMs: TTL_MS };
      const zombie = await store.leases.acquireLease({ ...request, owner: 'zombie' });
      await store.configs.deleteConnector('c');
      await seedConnector(store, 'c', { tasks: 1 });
      const current = await store.leases.acquireLease({ ...request, owner: 'current' });

      const write = store.status.putTaskStatus(
        { connector: 'c', task: 0 },
        { state: 'RUNNING', workerId: 'zombie' },
        zombie,
      );

      expect(current.epoch).toBe(zombie.epoch);
      await expect(write).rejects.toBeInstanceOf(LeaseFencedError);
    });
  });
}
