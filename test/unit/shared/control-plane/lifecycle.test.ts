import { describe, expect, it } from 'vitest';
import { call, runTasks, sinkConfig, testApi } from './fixtures.js';

async function created(initialState?: string) {
  const api = testApi();
  const res = await call(api.router, 'POST', '/connectors', {
    body: {
      name: 'c',
      config: sinkConfig(),
      ...(initialState === undefined ? {} : { initial_state: initialState }),
    },
  });
  expect(res.status).toBe(201);
  return api;
}

describe('LifecycleApi', () => {
  it('shows a new connector UNASSIGNED with no tasks', async () => {
    // Prepare
    const { router } = await created();
    // Act
    const res = await call(router, 'GET', '/connectors/c/status');
    // Assess
    expect(res.body).toEqual({
      name: 'c',
      connector: { state: 'UNASSIGNED', worker_id: 'serverless-connect' },
      tasks: [],
      type: 'sink',
    });
  });

  it('creates STOPPED with initial_state STOPPED (any case): STOPPED, no tasks', async () => {
    // Prepare
    const { router, store } = await created('stopped');
    // Act
    const status = await call(router, 'GET', '/connectors/c/status');
    // Assess
    expect((await store.configs.getConnector('c'))?.targetState).toBe('STOPPED');
    expect(status.body.connector.state).toBe('STOPPED');
    expect(status.body.tasks).toEqual([]);
  });

  it('shows connector and tasks PAUSED for initial_state PAUSED', async () => {
    // Prepare
    const { router, store } = await created('PAUSED');
    await runTasks(store, 'c', 2);
    // Act
    const status = await call(router, 'GET', '/connectors/c/status');
    // Assess
    expect(status.body.connector.state).toBe('PAUSED');
    expect(status.body.tasks.map((t: { state: string }) => t.state)).toEqual(['PAUSED', 'PAUSED']);
  });

  it('answers 400 for an invalid initial_state', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'POST', '/connectors', {
      body: { name: 'c', config: sinkConfig(), initial_state: 'SLEEPING' },
    });
    // Assess
    expect(res.status).toBe(400);
  });

  it('pauses (202, repeatable), resumes (202) and nudges each time', async () => {
    // Prepare
    const { router, store, trigger } = await created();
    await runTasks(store, 'c', 2);
    // Act
    const first = await call(router, 'PUT', '/connectors/c/pause');
    const again = await call(router, 'PUT', '/connectors/c/pause');
    const paused = await call(router, 'GET', '/connectors/c/status');
    const resumed = await call(router, 'PUT', '/connectors/c/resume');
    const running = await call(router, 'GET', '/connectors/c/status');
    // Assess
    expect([first.status, again.status, resumed.status]).toEqual([202, 202, 202]);
    expect(first.body).toBeUndefined();
    expect(paused.body.connector.state).toBe('PAUSED');
    expect(paused.body.tasks.every((t: { state: string }) => t.state === 'PAUSED')).toBe(true);
    expect(running.body.connector.state).toBe('RUNNING');
    expect(trigger.nudges.filter((n) => n === 'c')).toHaveLength(4);
  });

  it('stops (204): STOPPED, no tasks in status, /tasks or info', async () => {
    // Prepare
    const { router, store } = await created();
    await runTasks(store, 'c', 2);
    // Act
    const stop = await call(router, 'PUT', '/connectors/c/stop');
    const status = await call(router, 'GET', '/connectors/c/status');
    const tasks = await call(router, 'GET', '/connectors/c/tasks');
    const info = await call(router, 'GET', '/connectors/c');
    // Assess
    expect(stop.status).toBe(204);
    expect(status.body.connector.state).toBe('STOPPED');
    expect(status.body.tasks).toEqual([]);
    expect(tasks.body).toEqual([]);
    expect(info.body.tasks).toEqual([]);
    expect((await store.configs.getTaskConfigs('c')).tasks).toEqual([]);
  });

  it('pauses a STOPPED connector (202, as Kafka Connect): PAUSED with no tasks, then resumes', async () => {
    // Prepare
    const { router, store, trigger } = await created();
    await runTasks(store, 'c', 2);
    await call(router, 'PUT', '/connectors/c/stop');
    // Act
    const pause = await call(router, 'PUT', '/connectors/c/pause');
    const paused = await call(router, 'GET', '/connectors/c/status');
    const tasks = await call(router, 'GET', '/connectors/c/tasks');
    const resume = await call(router, 'PUT', '/connectors/c/resume');
    // Assess
    expect(pause.status).toBe(202);
    expect(pause.body).toBeUndefined();
    expect((await store.configs.getConnector('c'))?.targetState).toBe('RUNNING');
    expect(paused.body.connector.state).toBe('PAUSED');
    expect(paused.body.tasks).toEqual([]);
    expect(tasks.body).toEqual([]);
    expect(resume.status).toBe(202);
    expect(trigger.nudges.filter((n) => n === 'c')).toHaveLength(4); // create, stop, pause, resume
  });

  it.each(['pause', 'resume', 'stop'])('answers 404 for %s of an unknown connector', async (op) => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'PUT', `/connectors/ghost/${op}`);
    // Assess
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error_code: 404, message: 'Connector ghost not found' });
  });

  it('restarts with no parameters: 204, no body, request recorded', async () => {
    // Prepare
    const { router, store } = await created();
    // Act
    const res = await call(router, 'POST', '/connectors/c/restart');
    // Assess
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(await store.restarts.getRestartRequest('c')).toMatchObject({
      includeTasks: false,
      onlyFailed: false,
    });
  });

  it('restarts only the FAILED task with includeTasks&onlyFailed (202)', async () => {
    // Prepare
    const { router, store } = await created();
    await runTasks(store, 'c', 3, ['RUNNING', 'FAILED', 'RUNNING']);
    // Act
    const res = await call(router, 'POST', '/connectors/c/restart', {
      query: { includeTasks: ['true'], onlyFailed: ['true'] },
    });
    // Assess
    expect(res.status).toBe(202);
    expect(res.body.connector.state).toBe('RUNNING');
    expect(res.body.tasks.map((t: { state: string }) => t.state)).toEqual([
      'RUNNING',
      'RESTARTING',
      'RUNNING',
    ]);
  });

  it('restarts everything with includeTasks, nothing with onlyFailed on a healthy connector', async () => {
    // Prepare
    const { router, store } = await created();
    await runTasks(store, 'c', 2);
    // Act
    const all = await call(router, 'POST', '/connectors/c/restart', {
      query: { includeTasks: ['TRUE'] },
    });
    const none = await call(router, 'POST', '/connectors/c/restart', {
      query: { onlyFailed: ['true'] },
    });
    // Assess
    expect(all.status).toBe(202);
    expect(all.body.connector.state).toBe('RESTARTING');
    expect(all.body.tasks.map((t: { state: string }) => t.state)).toEqual([
      'RESTARTING',
      'RESTARTING',
    ]);
    expect(none.status).toBe(202);
    expect(none.body.connector.state).toBe('RUNNING');
    expect(none.body.tasks.map((t: { state: string }) => t.state)).toEqual(['RUNNING', 'RUNNING']);
  });

  it('shows a trace only on FAILED tasks', async () => {
    // Prepare
    const { router, store } = await created();
    await runTasks(store, 'c', 2, ['RUNNING', 'FAILED']);
    // Act
    const res = await call(router, 'GET', '/connectors/c/status');
    const task = await call(router, 'GET', '/connectors/c/tasks/1/status');
    // Assess
    expect(res.body.tasks[0]).toEqual({ id: 0, state: 'RUNNING', worker_id: 'worker-0' });
    expect(res.body.tasks[1].trace).toMatch(/boom/);
    expect(task.body).toEqual(res.body.tasks[1]);
  });

  it('restarts a task (204), revoking its lease and marking it RESTARTING', async () => {
    // Prepare
    const { router, store } = await created();
    await runTasks(store, 'c', 1);
    const lease = await store.leases.acquireLease({
      connector: 'c',
      task: 0,
      owner: 'invocation-1',
      generation: 1,
      ttlMs: 60_000,
    });
    // Act
    const res = await call(router, 'POST', '/connectors/c/tasks/0/restart');
    // Assess
    expect(res.status).toBe(204);
    expect((await store.status.getTaskStatus({ connector: 'c', task: 0 }))?.state).toBe(
      'RESTARTING',
    );
    await expect(store.leases.renewLease(lease, 1000)).rejects.toThrow(/fenced/);
  });

  it('answers 404 for restarting an unknown task or connector, and for /tasks/abc', async () => {
    // Prepare
    const { router, store } = await created();
    await runTasks(store, 'c', 1);
    // Act
    const task = await call(router, 'POST', '/connectors/c/tasks/99/restart');
    const connector = await call(router, 'POST', '/connectors/ghost/restart');
    const nonInt = await call(router, 'GET', '/connectors/c/tasks/abc/status');
    // Assess
    expect(task.status).toBe(404);
    expect(task.body.message).toBe('Task c-99 not found');
    expect(connector.status).toBe(404);
    expect(nonInt.status).toBe(404);
  });

  it('logs a failed nudge and still answers the write', async () => {
    // Prepare
    const { router, trigger, logger, service } = await created();
    trigger.failing = true;
    // Act
    const res = await call(router, 'PUT', '/connectors/c/pause');
    await service.waitForNudges();
    // Assess
    expect(res.status).toBe(202);
    expect(logger.lines.some((l) => l.level === 'warn' && /nudge/.test(l.message))).toBe(true);
  });

  it('stops waiting for a hanging nudge after the given time', async () => {
    // Prepare
    const { router, trigger, service } = await created();
    trigger.nudge = () => new Promise<void>(() => {});
    await call(router, 'PUT', '/connectors/c/pause');
    // Act
    const waited = await Promise.race([
      service.waitForNudges(20).then(() => 'returned'),
      new Promise((resolve) => setTimeout(() => resolve('hung'), 1000)),
    ]);
    // Assess
    expect(waited).toBe('returned');
  });
});
