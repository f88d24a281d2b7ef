import { describe, expect, it } from 'vitest';
import type { SourceTaskInvocation } from '../../../../../shared/ports/dispatch.js';
import { datagenConfig, type Harness, harness } from './fixtures.js';

const MINUTE = 60_000;

/**
 * What a source invocation does to its task's state when it polls nothing: lease, RUNNING
 * status, release with the streak one longer (source-task-runner.ts), two seconds later.
 */
async function runIdle(h: Harness, invocation: SourceTaskInvocation): Promise<void> {
  const { connector, task, generation } = invocation;
  const lease = await h.store.leases.acquireLease({
    connector,
    task,
    generation,
    owner: `inv-${h.clock.now()}`,
    ttlMs: 30_000,
  });
  await h.store.status.putTaskStatus(
    { connector, task },
    { state: 'RUNNING', workerId: 'w' },
    lease,
  );
  h.clock.advance(2_000);
  const version = (await h.store.configs.getConnector(connector))?.version ?? 0;
  await h.store.leases.releaseLease(lease, {
    count: (invocation.idleStreak ?? 0) + 1,
    version,
    generation,
  });
}

/** Scheduled runs every minute for `minutes`, each dispatched invocation running idle. */
async function idleMinutes(h: Harness, minutes: number): Promise<number[]> {
  const dispatchedAt: number[] = [];
  for (let minute = 0; minute < minutes; minute += 1) {
    const start = h.clock.now();
    const before = h.invocations.length;
    await h.enumerator.reconcile('idle');
    for (const invocation of h.invocations.slice(before)) {
      dispatchedAt.push(minute);
      await runIdle(h, invocation);
    }
    h.clock.advance(MINUTE - (h.clock.now() - start));
  }
  return dispatchedAt;
}

async function idleConnector(): Promise<Harness> {
  const h = harness();
  await h.store.configs.createConnector('idle', datagenConfig('idle', { 'tasks.max': '1' }));
  return h;
}

describe('Enumerator: idle back-off of source dispatch', () => {
  it('dispatches an idle task 1, 2, 4, 8 minutes apart, then every 11 minutes (10-minute bound)', async () => {
    // Prepare
    const h = await idleConnector();
    // Act
    const dispatchedAt = await idleMinutes(h, 60);
    // Assess
    expect(dispatchedAt).toEqual([0, 1, 3, 7, 15, 26, 37, 48, 59]);
    expect(h.invocations.map((i) => i.idleStreak ?? 0)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('reports the skipped task as deferred', async () => {
    const h = await idleConnector();
    await idleMinutes(h, 2);

    const report = await h.enumerator.reconcile('idle');

    expect(report).toMatchObject({ dispatched: [], deferred: [0] });
  });

  it('dispatches a task whose invocation delivered records at the next run, the streak cleared', async () => {
    const h = await idleConnector();
    await idleMinutes(h, 8);
    const invocation = h.invocations.at(-1) as SourceTaskInvocation;
    const lease = await h.store.leases.acquireLease({
      ...invocation,
      owner: 'busy',
      ttlMs: 30_000,
    });
    await h.store.leases.releaseLease(lease); // it delivered records: no idle streak
    h.invocations.length = 0;

    await h.enumerator.reconcile('idle');

    expect(h.invocations).toEqual([
      { connector: 'idle', task: 0, generation: invocation.generation },
    ]);
  });

  it('dispatches an idle task at once for an event (S3 notification), starting a new streak', async () => {
    const h = await idleConnector();
    await idleMinutes(h, 8);
    h.invocations.length = 0;

    const scheduled = await h.enumerator.reconcile('idle');
    const event = await h.enumerator.reconcile('idle', { immediate: true });

    expect(scheduled.dispatched).toEqual([]);
    expect(event.dispatched).toEqual([0]);
    expect(h.invocations[0]?.idleStreak).toBeUndefined();
  });

  it('dispatches at once after a task restart, a pause and resume, and a config update', async () => {
    const h = await idleConnector();
    const backedOff = async () => {
      await idleMinutes(h, 8);
      return (await h.enumerator.reconcile('idle')).dispatched;
    };

    const beforeRestart = await backedOff();
    await h.engine.service.lifecycle.restartTask('idle', 0);
    const restarted = (await h.enumerator.reconcile('idle')).dispatched;
    const afterRestart = h.invocations.at(-1) as SourceTaskInvocation;
    await runIdle(h, afterRestart);

    await backedOff();
    await h.store.configs.setTargetState('idle', 'PAUSED');
    await h.enumerator.reconcile('idle');
    await h.store.configs.setTargetState('idle', 'RUNNING');
    const resumed = (await h.enumerator.reconcile('idle')).dispatched;
    const afterResume = h.invocations.at(-1) as SourceTaskInvocation;
    await runIdle(h, afterResume);

    await backedOff();
    const record = await h.store.configs.getConnector('idle');
    await h.store.configs.updateConnector(
      'idle',
      { ...record?.config, 'max.interval': '5' },
      record?.version ?? 0,
    );
    const updated = (await h.enumerator.reconcile('idle')).dispatched;

    expect(beforeRestart).toEqual([]);
    expect(restarted).toEqual([0]);
    expect(resumed).toEqual([0]);
    expect(updated).toEqual([0]);
    // Each starts a new streak: its invocation carries none.
    const afterUpdate = h.invocations.at(-1) as SourceTaskInvocation;
    expect([afterRestart, afterResume, afterUpdate].map((i) => i.idleStreak)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('dispatches an idle task every run when the bound is 0', async () => {
    const h = harness({ settings: { enumerator: { idleBackoff: { baseMs: MINUTE, maxMs: 0 } } } });
    await h.store.configs.createConnector('idle', datagenConfig('idle', { 'tasks.max': '1' }));

    const dispatchedAt = await idleMinutes(h, 10);

    expect(dispatchedAt).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
