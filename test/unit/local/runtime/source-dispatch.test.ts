import { describe, expect, it } from 'vitest';
import {
  drainableStore,
  redispatchDelayMs,
  revokeLeftoverLeases,
} from '../../../../local/runtime/source-dispatch.js';
import { createMemoryStateStore } from '../../../../shared/adapters/memory/memory-state-store.js';

async function connectorWithTasks(tasks: number) {
  const store = createMemoryStateStore();
  await store.configs.createConnector('orders', { 'connector.class': 'datagen' });
  const configs = Array.from({ length: tasks }, (_, i) => ({ task: String(i) }));
  const set = await store.configs.putTaskConfigs('orders', configs, 0);
  return { store, set };
}

describe('drainableStore', () => {
  it('shows the source runtime a PAUSED connector once draining, without writing anything', async () => {
    // Prepare
    const { store } = await connectorWithTasks(1);
    const { store: seen, drain } = drainableStore(store);
    // Act
    const before = await seen.configs.getConnector('orders');
    drain();
    const after = await seen.configs.getConnector('orders');
    // Assess
    expect(before?.targetState).toBe('RUNNING');
    expect(after?.targetState).toBe('PAUSED');
    expect((await store.configs.getConnector('orders'))?.targetState).toBe('RUNNING');
    expect((await seen.configs.getTaskConfigs('orders')).tasks).toHaveLength(1);
  });
});

describe('redispatchDelayMs', () => {
  it('dispatches a task again at once after a completed invocation, later after a retriable end, never after a failure', () => {
    // Act + Assess
    expect(redispatchDelayMs('completed')).toBe(0);
    expect(redispatchDelayMs('interrupted')).toBeGreaterThan(0);
    expect(redispatchDelayMs('failed')).toBeUndefined();
    expect(redispatchDelayMs('not-running')).toBeUndefined();
  });
});

describe('revokeLeftoverLeases', () => {
  it('takes back the live leases an earlier process left, so the tasks can start at once', async () => {
    // Prepare
    const { store, set } = await connectorWithTasks(2);
    const generation = set.tasks[0]?.generation ?? 1;
    await store.leases.acquireLease({
      connector: 'orders',
      task: 0,
      owner: 'killed-process',
      generation,
      ttlMs: 60_000,
    });
    // Act
    const revoked = await revokeLeftoverLeases(store, () => Date.now());
    const next = await store.leases.acquireLease({
      connector: 'orders',
      task: 0,
      owner: 'new-process',
      generation,
      ttlMs: 60_000,
    });
    // Assess
    expect(revoked).toEqual([{ connector: 'orders', task: 0 }]);
    expect(next.owner).toBe('new-process');
  });
});
