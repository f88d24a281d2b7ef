import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectorName,
  connectorPath,
  runTasks,
  sinkConfig,
  sourceConfig,
} from '../../unit/shared/control-plane/fixtures.js';
import { startTestServer, type TestServer } from './support.js';

const states = (status: { tasks: { state: string }[] }) => status.tasks.map((t) => t.state);
const sinkPartition = (p: unknown) => ({ kafka_topic: 'orders', kafka_partition: p });

/** Behaviours 13 and 19–31 of the REST reference (lifecycle, restarts, offsets). */
describe('REST API: lifecycle and offsets', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startTestServer();
  });
  afterAll(async () => {
    await api.close();
  });

  /** A sink connector with `tasks` tasks in the given states, as the runtime leaves them. */
  async function running(tasks = 2, taskStates: ('RUNNING' | 'FAILED')[] = []) {
    const name = connectorName('life');
    await api.http('POST', '/connectors', { body: { name, config: sinkConfig() } });
    await runTasks(api.store, name, tasks, taskStates);
    return name;
  }

  it('#13 initial_state STOPPED: STOPPED, no tasks; PAUSED: connector and tasks PAUSED', async () => {
    // Prepare
    const stopped = connectorName('initial');
    const paused = connectorName('initial');
    // Act
    const a = await api.http('POST', '/connectors', {
      body: { name: stopped, config: sinkConfig(), initial_state: 'STOPPED' },
    });
    const b = await api.http('POST', '/connectors', {
      body: { name: paused, config: sinkConfig(), initial_state: 'PAUSED' },
    });
    await runTasks(api.store, paused, 2);
    const stoppedStatus = await api.http('GET', connectorPath(stopped, '/status'));
    const pausedStatus = await api.http('GET', connectorPath(paused, '/status'));
    // Assess
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(stoppedStatus.body.connector.state).toBe('STOPPED');
    expect(stoppedStatus.body.tasks).toEqual([]);
    expect(pausedStatus.body.connector.state).toBe('PAUSED');
    expect(states(pausedStatus.body)).toEqual(['PAUSED', 'PAUSED']);
  });

  it('#19 #20 pause (202, empty, repeatable) then resume (202): PAUSED then RUNNING', async () => {
    // Prepare
    const name = await running();
    // Act
    const pause = await api.http('PUT', connectorPath(name, '/pause'));
    const again = await api.http('PUT', connectorPath(name, '/pause'));
    const paused = await api.http('GET', connectorPath(name, '/status'));
    const resume = await api.http('PUT', connectorPath(name, '/resume'));
    const resumed = await api.http('GET', connectorPath(name, '/status'));
    // Assess
    expect([pause.status, again.status, resume.status]).toEqual([202, 202, 202]);
    expect(pause.text).toBe('');
    expect(paused.body.connector.state).toBe('PAUSED');
    expect(states(paused.body)).toEqual(['PAUSED', 'PAUSED']);
    expect(resumed.body.connector.state).toBe('RUNNING');
    expect(states(resumed.body)).toEqual(['RUNNING', 'RUNNING']);
  });

  it('#20 answers 404 for pause, resume and stop of an unknown connector', async () => {
    // Prepare
    const name = connectorName('ghost');
    // Act
    const statuses = await Promise.all(
      ['/pause', '/resume', '/stop'].map(
        async (op) => (await api.http('PUT', connectorPath(name, op))).status,
      ),
    );
    // Assess
    expect(statuses).toEqual([404, 404, 404]);
  });

  it('#21 stop (204): STOPPED, no tasks anywhere; resume lets the runtime regenerate tasks', async () => {
    // Prepare
    const name = await running();
    // Act
    const stop = await api.http('PUT', connectorPath(name, '/stop'));
    const status = await api.http('GET', connectorPath(name, '/status'));
    const tasks = await api.http('GET', connectorPath(name, '/tasks'));
    const info = await api.http('GET', connectorPath(name));
    const resume = await api.http('PUT', connectorPath(name, '/resume'));
    await runTasks(api.store, name, 2);
    const after = await api.http('GET', connectorPath(name, '/tasks'));
    // Assess
    expect(stop.status).toBe(204);
    expect(status.body.connector.state).toBe('STOPPED');
    expect(status.body.tasks).toEqual([]);
    expect(tasks.body).toEqual([]);
    expect(info.body.tasks).toEqual([]);
    expect(resume.status).toBe(202);
    expect(after.body).toHaveLength(2);
    expect(api.trigger.nudges.filter((n) => n === name).length).toBeGreaterThanOrEqual(3);
  });

  it('#22 restart without parameters: 204 and no body', async () => {
    // Prepare
    const name = await running();
    // Act
    const res = await api.http('POST', connectorPath(name, '/restart'));
    // Assess
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await api.store.restarts.getRestartRequest(name)).toMatchObject({
      includeTasks: false,
      onlyFailed: false,
    });
  });

  it('#23 includeTasks&onlyFailed with task 1 FAILED: 202, only task 1 RESTARTING', async () => {
    // Prepare
    const name = await running(3, ['RUNNING', 'FAILED', 'RUNNING']);
    // Act
    const res = await api.http(
      'POST',
      `${connectorPath(name, '/restart')}?includeTasks=true&onlyFailed=true`,
    );
    // Assess
    expect(res.status).toBe(202);
    expect(res.body.connector.state).toBe('RUNNING');
    expect(states(res.body)).toEqual(['RUNNING', 'RESTARTING', 'RUNNING']);
  });

  it('#24 includeTasks: everything RESTARTING; onlyFailed on a healthy connector: nothing', async () => {
    // Prepare
    const all = await running();
    const healthy = await running();
    // Act
    const everything = await api.http(
      'POST',
      `${connectorPath(all, '/restart')}?includeTasks=true`,
    );
    const nothing = await api.http('POST', `${connectorPath(healthy, '/restart')}?onlyFailed=true`);
    // Assess
    expect(everything.status).toBe(202);
    expect(everything.body.connector.state).toBe('RESTARTING');
    expect(states(everything.body)).toEqual(['RESTARTING', 'RESTARTING']);
    expect(nothing.status).toBe(202);
    expect(nothing.body.connector.state).toBe('RUNNING');
    expect(states(nothing.body)).toEqual(['RUNNING', 'RUNNING']);
  });

  it('#25 restart of an unknown connector 404; task restart 204; unknown task 404', async () => {
    // Prepare
    const name = await running(1);
    // Act
    const unknown = await api.http('POST', connectorPath(connectorName('ghost'), '/restart'));
    const task = await api.http('POST', connectorPath(name, '/tasks/0/restart'));
    const missing = await api.http('POST', connectorPath(name, '/tasks/99/restart'));
    // Assess
    expect(unknown.status).toBe(404);
    expect(task.status).toBe(204);
    expect(missing.status).toBe(404);
    expect((await api.store.status.getTaskStatus({ connector: name, task: 0 }))?.state).toBe(
      'RESTARTING',
    );
  });

  it('#26 FAILED tasks carry a trace, RUNNING ones no trace key', async () => {
    // Prepare
    const name = await running(2, ['RUNNING', 'FAILED']);
    // Act
    const res = await api.http('GET', connectorPath(name, '/status'));
    const failed = await api.http('GET', connectorPath(name, '/tasks/1/status'));
    // Assess
    expect(res.body.tasks[0]).not.toHaveProperty('trace');
    expect(res.body.tasks[1].trace.length).toBeGreaterThan(0);
    expect(failed.body.state).toBe('FAILED');
  });

  it('#27 PATCH offsets while RUNNING or PAUSED: 400; after stop: 200 with a message', async () => {
    // Prepare
    const name = await running();
    const body = { offsets: [{ partition: sinkPartition(0), offset: { kafka_offset: 5 } }] };
    // Act
    const whileRunning = await api.http('PATCH', connectorPath(name, '/offsets'), { body });
    await api.http('PUT', connectorPath(name, '/pause'));
    const whilePaused = await api.http('PATCH', connectorPath(name, '/offsets'), { body });
    await api.http('PUT', connectorPath(name, '/stop'));
    const stopped = await api.http('PATCH', connectorPath(name, '/offsets'), { body });
    const read = await api.http('GET', connectorPath(name, '/offsets'));
    // Assess
    expect(whileRunning.status).toBe(400);
    expect(whilePaused.status).toBe(400);
    expect(stopped.status).toBe(200);
    expect(typeof stopped.body.message).toBe('string');
    expect(read.body.offsets).toEqual([
      { partition: sinkPartition(0), offset: { kafka_offset: 5 } },
    ]);
  });

  it('#28 empty offsets: 400 even for an unknown connector; non-empty for unknown: 404', async () => {
    // Prepare
    const ghost = connectorPath(connectorName('ghost'), '/offsets');
    // Act
    const empty = await api.http('PATCH', ghost, { body: {} });
    const emptyList = await api.http('PATCH', ghost, { body: { offsets: [] } });
    const real = await api.http('PATCH', ghost, {
      body: { offsets: [{ partition: sinkPartition(0), offset: null }] },
    });
    // Assess
    expect([empty.status, emptyList.status, real.status]).toEqual([400, 400, 404]);
  });

  it('#29 sink formats: "1" accepted, "abc" 400, no kafka_topic 400, {} 400, null resets', async () => {
    // Prepare
    const name = connectorName('fmt');
    await api.http('POST', '/connectors', {
      body: { name, config: sinkConfig(), initial_state: 'STOPPED' },
    });
    const patch = (offsets: unknown[]) =>
      api.http('PATCH', connectorPath(name, '/offsets'), { body: { offsets } });
    // Act
    const numeric = await patch([{ partition: sinkPartition('1'), offset: { kafka_offset: 3 } }]);
    const abc = await patch([{ partition: sinkPartition('abc'), offset: { kafka_offset: 3 } }]);
    const noTopic = await patch([{ partition: { kafka_partition: 0 }, offset: null }]);
    const emptyOffset = await patch([{ partition: sinkPartition(0), offset: {} }]);
    const reset = await patch([{ partition: sinkPartition(1), offset: null }]);
    const read = await api.http('GET', connectorPath(name, '/offsets'));
    // Assess
    expect([numeric.status, abc.status, noTopic.status, emptyOffset.status, reset.status]).toEqual([
      200, 400, 400, 400, 200,
    ]);
    expect(read.body).toEqual({ offsets: [] });
  });

  it('#30 (ours) 400 for an unknown top-level field and for nested source values', async () => {
    // Prepare
    const sink = connectorName('extra');
    const source = connectorName('nested');
    await api.http('POST', '/connectors', {
      body: { name: sink, config: sinkConfig(), initial_state: 'STOPPED' },
    });
    await api.http('POST', '/connectors', {
      body: { name: source, config: sourceConfig(), initial_state: 'STOPPED' },
    });
    // Act
    const extra = await api.http('PATCH', connectorPath(sink, '/offsets'), {
      body: { offsets: [{ partition: sinkPartition(0), offset: null }], extra: 1 },
    });
    const nested = await api.http('PATCH', connectorPath(source, '/offsets'), {
      body: { offsets: [{ partition: { file: 'a' }, offset: { position: { deep: 1 } } }] },
    });
    // Assess
    expect(extra.status).toBe(400);
    expect(nested.status).toBe(400);
  });

  it('#31 DELETE offsets on a STOPPED connector: 200, again 200, then GET {"offsets":[]}', async () => {
    // Prepare
    const name = connectorName('reset');
    await api.http('POST', '/connectors', {
      body: { name, config: sinkConfig(), initial_state: 'STOPPED' },
    });
    await api.store.offsets.commitSinkOffset(name, {
      topic: 'orders',
      partition: 2,
      nextOffset: 8,
    });
    // Act
    const first = await api.http('DELETE', connectorPath(name, '/offsets'));
    const second = await api.http('DELETE', connectorPath(name, '/offsets'));
    const read = await api.http('GET', connectorPath(name, '/offsets'));
    // Assess
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.body.message).toMatch(/reset successfully/);
    expect(read.body).toEqual({ offsets: [] });
  });

  it('#32 source offsets: alter, then GET shows them; null and DELETE reset; RUNNING 400', async () => {
    // Prepare
    const name = connectorName('src-offsets');
    const running = connectorName('src-running');
    await api.http('POST', '/connectors', {
      body: { name, config: sourceConfig(), initial_state: 'STOPPED' },
    });
    await api.http('POST', '/connectors', { body: { name: running, config: sourceConfig() } });
    const p = (i: number) => ({ 'datagen.partition': i });
    const patch = (connector: string, offsets: unknown[]) =>
      api.http('PATCH', connectorPath(connector, '/offsets'), { body: { offsets } });
    const read = async () => (await api.http('GET', connectorPath(name, '/offsets'))).body;
    // Act
    const altered = await patch(name, [
      { partition: p(1), offset: { seq: 10 } },
      { partition: p(0), offset: { seq: 4 } },
    ]);
    const afterAlter = await read();
    const nulled = await patch(name, [{ partition: p(1), offset: null }]);
    const afterNull = await read();
    const reset = await api.http('DELETE', connectorPath(name, '/offsets'));
    const afterReset = await read();
    const whileRunning = await patch(running, [{ partition: p(0), offset: { seq: 1 } }]);
    const resetWhileRunning = await api.http('DELETE', connectorPath(running, '/offsets'));
    // Assess
    expect(altered.status).toBe(200);
    expect(altered.body).toEqual({
      message: 'The offsets for this connector have been altered successfully',
    });
    expect(afterAlter).toEqual({
      offsets: [
        { partition: p(0), offset: { seq: 4 } },
        { partition: p(1), offset: { seq: 10 } },
      ],
    });
    expect(nulled.status).toBe(200);
    expect(afterNull).toEqual({ offsets: [{ partition: p(0), offset: { seq: 4 } }] });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({
      message: 'The offsets for this connector have been reset successfully',
    });
    expect(afterReset).toEqual({ offsets: [] });
    expect([whileRunning.status, resetWhileRunning.status]).toEqual([400, 400]);
    expect(whileRunning.body.message).toBe(
      `Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/${running}/stop' endpoint`,
    );
  });

  it('#33 (ours) malformed source offset bodies: 400 and nothing stored', async () => {
    // Prepare
    const name = connectorName('src-bad');
    await api.http('POST', '/connectors', {
      body: { name, config: sourceConfig(), initial_state: 'STOPPED' },
    });
    const patch = (body: unknown) => api.http('PATCH', connectorPath(name, '/offsets'), { body });
    // Act
    const statuses = [
      await patch('{"offsets": [{"partition": {"datagen.partition": 0}, "offset": '),
      await patch({ offsets: [{ partition: null, offset: { seq: 1 } }] }),
      await patch({ offsets: [{ partition: { 'datagen.partition': 0 }, offset: [1] }] }),
      await patch({ offsets: [{ partition: { 'datagen.partition': [0] }, offset: null }] }),
      await patch({ offsets: [{ partition: { file: 'not datagen' }, offset: null }] }),
      await patch({ offsets: 'all' }),
    ].map((res) => [res.status, res.body.error_code]);
    const read = await api.http('GET', connectorPath(name, '/offsets'));
    // Assess
    expect(statuses).toEqual(Array.from({ length: 6 }, () => [400, 400]));
    expect(read.body).toEqual({ offsets: [] });
    expect(await api.store.offsets.listSourceOffsets(name)).toEqual([]);
  });
});
