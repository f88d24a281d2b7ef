import { describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  ConflictError,
  IllegalStateError,
  NotFoundError,
} from '../../../shared/connect/errors.js';
import {
  TARGET_STATE_TRANSITIONS,
  TARGET_STATES,
  type TargetState,
} from '../../../shared/ports/config-store.js';
import {
  ConnectorExistsError,
  ConnectorNotFoundError,
  InvalidTransitionError,
  ItemTooLargeError,
  StaleVersionError,
} from '../../../shared/ports/errors.js';
import { connectorConfig, seedConnector, taskConfig } from './fixtures.js';
import type { StateStoreFactory } from './harness.js';

export function configContract(factory: StateStoreFactory): void {
  describe('connector configs', () => {
    it('creates a connector at version 1, RUNNING unless an initial state is given', async () => {
      // Prepare
      const { store, clock } = await factory();
      // Act
      const created = await store.configs.createConnector('orders', connectorConfig('orders'));
      await store.configs.createConnector('paused', connectorConfig('paused'), {
        initialState: 'PAUSED',
      });
      // Assess
      expect(created).toEqual({
        name: 'orders',
        config: connectorConfig('orders'),
        version: 1,
        targetState: 'RUNNING',
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      expect(await store.configs.getConnector('orders')).toEqual(created);
      expect((await store.configs.getConnector('paused'))?.targetState).toBe('PAUSED');
    });

    it('refuses to create a connector whose name is taken', async () => {
      const { store } = await factory();
      await store.configs.createConnector('orders', connectorConfig('orders'));

      const again = store.configs.createConnector('orders', connectorConfig('orders', { x: '1' }));

      await expect(again).rejects.toBeInstanceOf(ConnectorExistsError);
      await expect(again).rejects.toBeInstanceOf(AlreadyExistsError);
      expect((await store.configs.getConnector('orders'))?.config).toEqual(
        connectorConfig('orders'),
      );
    });

    it('returns undefined for a connector that does not exist', async () => {
      const { store } = await factory();

      expect(await store.configs.getConnector('missing')).toBeUndefined();
    });

    it('updates the config at the expected version and bumps the version', async () => {
      const { store, clock } = await factory();
      await store.configs.createConnector('orders', connectorConfig('orders'));
      clock.advance(1000);

      const updated = await store.configs.updateConnector(
        'orders',
        connectorConfig('orders', { 'tasks.max': '4' }),
        1,
      );

      expect(updated.version).toBe(2);
      expect(updated.updatedAt).toBe(clock.now());
      expect(await store.configs.getConnector('orders')).toEqual(updated);
    });

    it('refuses to update a connector that does not exist', async () => {
      const { store } = await factory();

      const update = store.configs.updateConnector('missing', connectorConfig('missing'), 1);

      await expect(update).rejects.toBeInstanceOf(ConnectorNotFoundError);
      await expect(update).rejects.toBeInstanceOf(NotFoundError);
      expect(await store.configs.getConnector('missing')).toBeUndefined();
    });

    it('lets exactly one of two concurrent updates from the same version win', async () => {
      const { store } = await factory();
      await store.configs.createConnector('orders', connectorConfig('orders'));
      const a = connectorConfig('orders', { writer: 'a' });
      const b = connectorConfig('orders', { writer: 'b' });

      const results = await Promise.allSettled([
        store.configs.updateConnector('orders', a, 1),
        store.configs.updateConnector('orders', b, 1),
      ]);

      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(StaleVersionError);
      expect(lost[0]).toBeInstanceOf(ConflictError);
      expect((lost[0] as StaleVersionError).actual).toBe(2);
      const stored = await store.configs.getConnector('orders');
      expect(stored?.version).toBe(2);
      expect([a, b]).toContainEqual(stored?.config);
    });

    it('lists connector names in order, one page at a time', async () => {
      const { store } = await factory();
      const names = ['g', 'c', 'a', 'e', 'b', 'f', 'd'];
      for (const name of names) await store.configs.createConnector(name, connectorConfig(name));

      const first = await store.configs.listConnectors({ limit: 3 });
      const second = await store.configs.listConnectors({
        limit: 3,
        ...(first.nextCursor === undefined ? {} : { cursor: first.nextCursor }),
      });
      const third = await store.configs.listConnectors({
        limit: 3,
        ...(second.nextCursor === undefined ? {} : { cursor: second.nextCursor }),
      });

      expect(first.names).toEqual(['a', 'b', 'c']);
      expect(second.names).toEqual(['d', 'e', 'f']);
      expect(third).toEqual({ names: ['g'] });
      expect(await store.configs.listConnectors()).toEqual({ names: [...names].sort() });
    });

    it('lists no names and no cursor when a page ends exactly at the last connector', async () => {
      const { store } = await factory();
      for (const name of ['a', 'b'])
        await store.configs.createConnector(name, connectorConfig(name));

      const page = await store.configs.listConnectors({ limit: 2 });

      expect(page).toEqual({ names: ['a', 'b'] });
    });

    it('hands out copies that do not change the stored config when mutated', async () => {
      const { store } = await factory();
      await store.configs.createConnector('orders', connectorConfig('orders'));

      const read = await store.configs.getConnector('orders');
      (read?.config as Record<string, string>)['tasks.max'] = '99';

      expect((await store.configs.getConnector('orders'))?.config['tasks.max']).toBe('2');
    });

    it('keeps config keys named __proto__ or constructor as ordinary keys', async () => {
      const { store } = await factory();
      const config = JSON.parse(
        '{"name":"odd","connector.class":"datagen","__proto__":"p","constructor":"k"}',
      ) as Record<string, string>;

      await store.configs.createConnector('odd', config);
      await store.configs.putTaskConfigs('odd', [config], 0);
      const read = await store.configs.getConnector('odd');
      const tasks = await store.configs.getTaskConfigs('odd');

      for (const stored of [read?.config, tasks.tasks[0]?.config]) {
        expect(Object.entries(stored ?? {})).toEqual(Object.entries(config));
        expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
      }
    });
  });

  describe('target states', () => {
    const pairs = TARGET_STATES.flatMap((from) =>
      TARGET_STATES.map((to) => [from, to] as [TargetState, TargetState]),
    );

    it.each(pairs)('follows the transition table from %s to %s', async (from, to) => {
      const { store } = await factory();
      await store.configs.createConnector('c', connectorConfig('c'), { initialState: from });
      const legal = TARGET_STATE_TRANSITIONS[from].includes(to);

      const change = store.configs.setTargetState('c', to);

      if (legal) {
        await expect(change).resolves.toEqual({ from, to });
        expect((await store.configs.getConnector('c'))?.targetState).toBe(to);
      } else {
        await expect(change).rejects.toBeInstanceOf(InvalidTransitionError);
        await expect(change).rejects.toBeInstanceOf(IllegalStateError);
        expect((await store.configs.getConnector('c'))?.targetState).toBe(from);
      }
    });

    it('pauses a stopped connector (as Kafka Connect does), then resumes it', async () => {
      const { store } = await factory();
      await store.configs.createConnector('c', connectorConfig('c'), { initialState: 'STOPPED' });

      const pause = await store.configs.setTargetState('c', 'PAUSED');
      const paused = await store.configs.getConnector('c');
      const resume = await store.configs.setTargetState('c', 'RUNNING');

      expect(pause).toEqual({ from: 'STOPPED', to: 'PAUSED' });
      expect(paused?.targetState).toBe('PAUSED');
      expect(resume).toEqual({ from: 'PAUSED', to: 'RUNNING' });
      expect((await store.configs.getConnector('c'))?.targetState).toBe('RUNNING');
    });

    it('refuses a target state for a connector that does not exist', async () => {
      const { store } = await factory();

      await expect(store.configs.setTargetState('missing', 'PAUSED')).rejects.toBeInstanceOf(
        ConnectorNotFoundError,
      );
    });

    it('keeps the config version when the target state changes', async () => {
      const { store } = await factory();
      await store.configs.createConnector('c', connectorConfig('c'));

      await store.configs.setTargetState('c', 'PAUSED');

      expect((await store.configs.getConnector('c'))?.version).toBe(1);
    });
  });

  describe('task configs', () => {
    it('reads version 0 and no tasks before any were written', async () => {
      const { store } = await factory();
      await store.configs.createConnector('c', connectorConfig('c'));

      expect(await store.configs.getTaskConfigs('c')).toEqual({
        connector: 'c',
        version: 0,
        tasks: [],
      });
    });

    it('writes all task configs under version 1, each at generation 1', async () => {
      const { store } = await factory();

      const set = await seedConnector(store, 'c', { tasks: 3 });

      expect(set.version).toBe(1);
      expect(set.tasks.map((t) => [t.task, t.generation])).toEqual([
        [0, 1],
        [1, 1],
        [2, 1],
      ]);
      expect(await store.configs.getTaskConfigs('c')).toEqual(set);
    });

    it('gives a new generation only to tasks whose config changed or that are new', async () => {
      const { store } = await factory();
      await seedConnector(store, 'c', { tasks: 3 });
      const changed = [
        taskConfig('c', 0),
        taskConfig('c', 1, { split: 'moved' }),
        taskConfig('c', 2),
        taskConfig('c', 3),
      ];

      const set = await store.configs.putTaskConfigs('c', changed, 1);

      expect(set.version).toBe(2);
      expect(set.tasks.map((t) => t.generation)).toEqual([1, 2, 1, 2]);
    });

    it('never reuses a generation for a task id that is removed and added back', async () => {
      const { store } = await factory();
      await seedConnector(store, 'c', { tasks: 2 });
      await store.configs.putTaskConfigs('c', [taskConfig('c', 0)], 1);

      const set = await store.configs.putTaskConfigs(
        'c',
        [taskConfig('c', 0), taskConfig('c', 1)],
        2,
      );

      expect(set.tasks.map((t) => t.generation)).toEqual([1, 3]);
    });

    it('does not rewrite a set equal to the stored one', async () => {
      const { store } = await factory();
      const first = await seedConnector(store, 'c', { tasks: 2 });

      const again = await store.configs.putTaskConfigs(
        'c',
        first.tasks.map((t) => t.config),
        1,
      );

      expect(again).toEqual(first);
    });

    it('writes an empty set (stop) as a new version', async () => {
      const { store } = await factory();
      await seedConnector(store, 'c', { tasks: 2 });

      const set = await store.configs.putTaskConfigs('c', [], 1);

      expect(set).toEqual({ connector: 'c', version: 2, tasks: [], fencing: [0, 1] });
    });

    it('lists the tasks each write replaces for fencing, accumulating until cleared', async () => {
      const { store } = await factory();
      await seedConnector(store, 'c', { tasks: 3 });
      const first = await store.configs.putTaskConfigs(
        'c',
        [taskConfig('c', 0), taskConfig('c', 1, { split: 'moved' })],
        1,
      );

      const second = await store.configs.putTaskConfigs(
        'c',
        [taskConfig('c', 0, { split: 'again' }), taskConfig('c', 1, { split: 'moved' })],
        2,
      );

      expect(first.fencing).toEqual([1, 2]);
      expect(second.fencing).toEqual([0, 1, 2]);
      expect((await store.configs.getTaskConfigs('c')).fencing).toEqual([0, 1, 2]);
    });

    it('clears the fencing list only at the version the fencing round read', async () => {
      const { store } = await factory();
      await seedConnector(store, 'c', { tasks: 2 });
      const written = await store.configs.putTaskConfigs('c', [taskConfig('c', 0)], 1);

      const stale = store.configs.clearFencing('c', 1);
      await expect(stale).rejects.toBeInstanceOf(StaleVersionError);
      const cleared = await store.configs.clearFencing('c', written.version);

      expect(written.fencing).toEqual([1]);
      expect(cleared.fencing ?? []).toEqual([]);
      expect(cleared.version).toBe(2);
      expect(await store.configs.getTaskConfigs('c')).toEqual(cleared);
    });

    it('refuses task configs written over a version the writer did not read', async () => {
      const { store } = await factory();
      await seedConnector(store, 'c', { tasks: 1 });

      const stale = store.configs.putTaskConfigs('c', [taskConfig('c', 0, { x: 'y' })], 0);

      await expect(stale).rejects.toBeInstanceOf(StaleVersionError);
      expect((await store.configs.getTaskConfigs('c')).version).toBe(1);
    });

    it('refuses task configs of a connector that does not exist', async () => {
      const { store } = await factory();

      await expect(store.configs.putTaskConfigs('missing', [{}], 0)).rejects.toBeInstanceOf(
        ConnectorNotFoundError,
      );
    });

    it('stores task configs up to the item limit and refuses a set over 400 KB clearly', async () => {
      const { store } = await factory();
      await store.configs.createConnector('c', connectorConfig('c'));
      const fits = [0, 1, 2].map((task) => taskConfig('c', task, { blob: 'x'.repeat(100_000) }));
      const tooBig = [0, 1, 2, 3].map((task) =>
        taskConfig('c', task, { blob: 'y'.repeat(120_000) }),
      );

      const stored = await store.configs.putTaskConfigs('c', fits, 0);
      const refused = store.configs.putTaskConfigs('c', tooBig, 1);

      expect(stored.tasks).toHaveLength(3);
      await expect(refused).rejects.toBeInstanceOf(ItemTooLargeError);
      await expect(refused).rejects.toThrow(/task configs of c .*409600-byte limit/);
      expect((await store.configs.getTaskConfigs('c')).version).toBe(1);
    });
  });
}
