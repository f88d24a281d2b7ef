import { describe, expect, it } from 'vitest';
import { connectorConfig, seedConnector } from './fixtures.js';
import type { StateStoreFactory } from './harness.js';

export function metaContract(factory: StateStoreFactory): void {
  describe('active topics', () => {
    it('records each topic once, lists them sorted and forgets them on reset', async () => {
      const { store } = await factory();

      const first = await store.topics.recordActiveTopic('c', 'orders');
      const again = await store.topics.recordActiveTopic('c', 'orders');
      await store.topics.recordActiveTopic('c', 'invoices');
      await store.topics.recordActiveTopic('other', 'payments');
      const listed = await store.topics.listActiveTopics('c');
      await store.topics.resetActiveTopics('c');

      expect([first, again]).toEqual([true, false]);
      expect(listed).toEqual(['invoices', 'orders']);
      expect(await store.topics.listActiveTopics('c')).toEqual([]);
      expect(await store.topics.listActiveTopics('other')).toEqual(['payments']);
    });

    it('answers true to exactly one of concurrent records of one topic', async () => {
      const { store } = await factory();

      const results = await Promise.all(
        Array.from({ length: 8 }, () => store.topics.recordActiveTopic('c', 'orders')),
      );

      expect(results.filter((created) => created)).toHaveLength(1);
      expect(await store.topics.listActiveTopics('c')).toEqual(['orders']);
    });

    it('keeps any legal topic name apart from the others, sorted', async () => {
      const { store } = await factory();
      const topics = ['orders.v2', 'orders', 'Orders_eu-1', 'orders-dlq', 'a'.repeat(249)];

      for (const topic of topics) await store.topics.recordActiveTopic('c', topic);
      await store.topics.recordActiveTopic('c2', 'orders-c2');

      expect(await store.topics.listActiveTopics('c')).toEqual([...topics].sort());
      expect(await store.topics.listActiveTopics('c2')).toEqual(['orders-c2']);
    });

    it('lists nothing for an unknown connector and resets one without failing', async () => {
      const { store } = await factory();
      await store.topics.recordActiveTopic('c', 'orders');

      const unknown = await store.topics.listActiveTopics('ghost');
      await store.topics.resetActiveTopics('ghost');

      expect(unknown).toEqual([]);
      expect(await store.topics.listActiveTopics('ghost')).toEqual([]);
      expect(await store.topics.listActiveTopics('c')).toEqual(['orders']);
    });

    it('keeps the topics through restarts, stops, resumes and new task configs', async () => {
      const { store } = await factory();
      const tasks = await seedConnector(store, 'c', { tasks: 2 });
      await store.topics.recordActiveTopic('c', 'orders');

      const restart = await store.restarts.requestRestart('c', {
        onlyFailed: false,
        includeTasks: true,
      });
      await store.restarts.completeRestart('c', restart.seq);
      await store.configs.setTargetState('c', 'STOPPED');
      const stopped = await store.configs.putTaskConfigs('c', [], tasks.version);
      await store.configs.setTargetState('c', 'RUNNING');
      await store.configs.putTaskConfigs('c', [{ 'task.id': '0' }], stopped.version);
      await store.configs.updateConnector('c', connectorConfig('c', { x: '1' }), 1);

      expect(await store.topics.listActiveTopics('c')).toEqual(['orders']);
      expect(await store.topics.recordActiveTopic('c', 'orders')).toBe(false);
    });
  });

  describe('restart requests', () => {
    it('keeps the latest request until the enumerator completes it', async () => {
      const { store, clock } = await factory();

      const first = await store.restarts.requestRestart('c', {
        onlyFailed: true,
        includeTasks: false,
      });
      const second = await store.restarts.requestRestart('c', {
        onlyFailed: false,
        includeTasks: true,
      });
      const pending = await store.restarts.getRestartRequest('c');
      const done = await store.restarts.completeRestart('c', second.seq);

      expect(second.seq).toBeGreaterThan(first.seq);
      expect(pending).toEqual({
        connector: 'c',
        onlyFailed: false,
        includeTasks: true,
        seq: second.seq,
        requestedAt: clock.now(),
      });
      expect(done).toBe(true);
      expect(await store.restarts.getRestartRequest('c')).toBeUndefined();
    });

    it('does not lose a request made while an older one was being handled', async () => {
      const { store } = await factory();
      const handled = await store.restarts.requestRestart('c', {
        onlyFailed: false,
        includeTasks: false,
      });
      const newer = await store.restarts.requestRestart('c', {
        onlyFailed: true,
        includeTasks: true,
      });

      const completed = await store.restarts.completeRestart('c', handled.seq);

      expect(completed).toBe(false);
      expect((await store.restarts.getRestartRequest('c'))?.seq).toBe(newer.seq);
    });

    it('numbers a request after a completed one above it', async () => {
      const { store } = await factory();
      const first = await store.restarts.requestRestart('c', {
        onlyFailed: false,
        includeTasks: false,
      });
      await store.restarts.completeRestart('c', first.seq);

      const next = await store.restarts.requestRestart('c', {
        onlyFailed: false,
        includeTasks: false,
      });

      expect(next.seq).toBeGreaterThan(first.seq);
      expect(await store.restarts.completeRestart('c', first.seq)).toBe(false);
    });
  });

  describe('logger levels', () => {
    it('stores levels globally, sorted by logger, surviving connector deletion', async () => {
      const { store, clock } = await factory();
      await store.configs.createConnector('c', connectorConfig('c'));
      await store.loggers.setLoggerLevel('org.apache.kafka.connect', 'DEBUG');
      clock.advance(5);
      await store.loggers.setLoggerLevel('com.example', 'WARN');

      await store.configs.deleteConnector('c');

      expect(await store.loggers.listLoggerLevels()).toEqual([
        { logger: 'com.example', level: 'WARN', lastModified: clock.now() },
        { logger: 'org.apache.kafka.connect', level: 'DEBUG', lastModified: clock.now() - 5 },
      ]);
      expect(await store.loggers.getLoggerLevel('nope')).toBeUndefined();
    });

    it('replaces the level of a logger set again', async () => {
      const { store } = await factory();
      await store.loggers.setLoggerLevel('a', 'DEBUG');

      await store.loggers.setLoggerLevel('a', 'ERROR');

      expect((await store.loggers.getLoggerLevel('a'))?.level).toBe('ERROR');
    });
  });
}
