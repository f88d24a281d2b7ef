import { describe, expect, it } from 'vitest';
import { datagenConfig, harness, sinkConfig } from './fixtures.js';

/**
 * Task configs are generated only while a connector is RUNNING, as Kafka Connect's leader does
 * (`DistributedHerder.reconfigureConnector` skips a connector whose target is not STARTED): a
 * PAUSED connector keeps the tasks it has, and has none when it was paused from STOPPED or
 * created PAUSED (Connect's `testPauseStopResume`, `testCreateConnectorWithPausedInitialState`).
 */
describe('Enumerator: PAUSED connectors', () => {
  it('pauses a STOPPED source with no tasks (the stop’s tasks fenced, nothing dispatched), and resume brings them back', async () => {
    // Prepare: 3 running tasks, task 0 held by an invocation; then the REST stop (target, then
    // an empty task set listing the 3 tasks to fence) and a pause before any enumerator run.
    const h = harness();
    await h.store.configs.createConnector('gen', datagenConfig('gen'));
    await h.enumerator.reconcile('gen');
    const running = await h.store.configs.getTaskConfigs('gen');
    const lease = await h.store.leases.acquireLease({
      connector: 'gen',
      task: 0,
      owner: 'invocation',
      generation: running.tasks[0]?.generation ?? -1,
      ttlMs: 600_000,
    });
    await h.store.configs.setTargetState('gen', 'STOPPED');
    await h.store.configs.putTaskConfigs('gen', [], running.version);
    await h.store.configs.setTargetState('gen', 'PAUSED');
    h.invocations.length = 0;
    // Act
    const paused = await h.enumerator.reconcile('gen');
    const pausedSet = await h.store.configs.getTaskConfigs('gen');
    const pausedStatuses = await h.store.status.listTaskStatuses('gen');
    const pausedState = (await h.store.status.getConnectorStatus('gen'))?.state;
    await h.store.configs.setTargetState('gen', 'RUNNING');
    const resumed = await h.enumerator.reconcile('gen');
    // Assess
    expect(paused).toMatchObject({ state: 'PAUSED', kind: 'source', tasks: 0, dispatched: [] });
    expect(pausedSet.tasks).toEqual([]);
    expect(pausedSet.fencing).toBeUndefined();
    expect(h.fenced).toEqual([
      'serverless-connect-gen-0',
      'serverless-connect-gen-1',
      'serverless-connect-gen-2',
    ]);
    await expect(h.store.leases.renewLease(lease, 1_000)).rejects.toThrow();
    expect(pausedStatuses).toEqual([]);
    expect(pausedState).toBe('PAUSED');
    expect(resumed).toMatchObject({ state: 'RUNNING', tasks: 3, dispatched: [0, 1, 2] });
  });

  it('creates no task configs for a connector created PAUSED until it is resumed', async () => {
    // Prepare
    const h = harness();
    await h.store.configs.createConnector('gen', datagenConfig('gen'), { initialState: 'PAUSED' });
    // Act
    const paused = await h.enumerator.reconcile('gen');
    const pausedTasks = (await h.store.configs.getTaskConfigs('gen')).tasks;
    await h.store.configs.setTargetState('gen', 'RUNNING');
    const resumed = await h.enumerator.reconcile('gen');
    // Assess
    expect(paused).toMatchObject({ state: 'PAUSED', tasks: 0, dispatched: [] });
    expect(pausedTasks).toEqual([]);
    expect(h.fenced).toEqual([]);
    expect(resumed).toMatchObject({ state: 'RUNNING', tasks: 3, dispatched: [0, 1, 2] });
  });

  it('keeps a PAUSED connector’s task configs when its config changes; the resume applies it', async () => {
    // Prepare
    const h = harness();
    await h.store.configs.createConnector('gen', datagenConfig('gen'));
    await h.enumerator.reconcile('gen');
    await h.store.configs.setTargetState('gen', 'PAUSED');
    await h.enumerator.reconcile('gen');
    const before = await h.store.configs.getTaskConfigs('gen');
    const record = await h.store.configs.getConnector('gen');
    await h.store.configs.updateConnector(
      'gen',
      datagenConfig('gen', { 'tasks.max': '2' }),
      record?.version ?? 0,
    );
    // Act
    const paused = await h.enumerator.reconcile('gen');
    const whilePaused = await h.store.configs.getTaskConfigs('gen');
    const statuses = (await h.store.status.listTaskStatuses('gen')).map((s) => s.state);
    await h.store.configs.setTargetState('gen', 'RUNNING');
    const resumed = await h.enumerator.reconcile('gen');
    // Assess
    expect(paused).toMatchObject({ state: 'PAUSED', tasks: 3, dispatched: [] });
    expect(whilePaused).toEqual(before);
    expect(statuses).toEqual(['PAUSED', 'PAUSED', 'PAUSED']);
    expect(resumed).toMatchObject({ state: 'RUNNING', tasks: 2 });
  });

  it('pauses a STOPPED sink with no tasks and no enabled mapping; resume assigns and enables them', async () => {
    // Prepare
    const h = harness();
    h.cluster.add('orders', 4);
    await h.store.configs.createConnector('s', sinkConfig('s'));
    await h.enumerator.reconcile('s');
    await h.store.configs.setTargetState('s', 'STOPPED');
    await h.enumerator.reconcile('s');
    await h.store.configs.setTargetState('s', 'PAUSED');
    // Act
    const paused = await h.enumerator.reconcile('s');
    const pausedTasks = (await h.store.configs.getTaskConfigs('s')).tasks;
    const pausedMappings = (await h.mappings.list('s')).map((m) => m.enabled);
    await h.store.configs.setTargetState('s', 'RUNNING');
    const resumed = await h.enumerator.reconcile('s');
    // Assess
    expect(paused).toMatchObject({ state: 'PAUSED', kind: 'sink', tasks: 0 });
    expect(pausedTasks).toEqual([]);
    expect(pausedMappings.every((enabled) => !enabled)).toBe(true);
    expect(resumed).toMatchObject({ state: 'RUNNING', tasks: 2 });
    expect((await h.mappings.list('s')).map((m) => m.enabled)).toEqual([true]);
  });
});
