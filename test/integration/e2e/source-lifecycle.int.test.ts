import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Body, committedSeq, isRunning, readers, taskStates } from './connector-views.js';
import {
  connectorPath,
  datagenConfig,
  type E2eRuntime,
  eventually,
  type Http,
  lastLogs,
  sleep,
  startE2eRuntime,
  uniqueName,
} from './support.js';

describe('local runtime, end to end through HTTP: source connectors', () => {
  let e2e: E2eRuntime;
  let http: Http;
  let status: (name: string) => Promise<Body>;
  let offsets: (name: string) => Promise<Body>;

  beforeAll(async () => {
    e2e = await startE2eRuntime();
    http = e2e.http;
    ({ status, offsets } = readers(http));
  });

  afterAll(async () => {
    await e2e?.close();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(lastLogs(e2e));
  });

  it('takes a source connector through create, status, tasks, pause, resume, restart, stop, offsets and delete', async () => {
    // Prepare
    const topic = uniqueName('e2e-src');
    const name = uniqueName('src');
    const config = datagenConfig(topic, { 'rate.per.second': '200' });
    // Act + Assess: create
    const created = await http('POST', '/connectors', { name, config });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name, type: 'source', config: { ...config, name } });
    expect((await http('GET', '/connectors')).body).toContain(name);
    const running = await eventually(
      () => status(name),
      (s) => isRunning(s, 1),
      30_000,
      'RUNNING',
    );
    expect(running).toMatchObject({ name, type: 'source', connector: { state: 'RUNNING' } });
    const tasks = await http('GET', connectorPath(name, '/tasks'));
    expect(tasks.status).toBe(200);
    expect(tasks.body).toEqual([
      expect.objectContaining({ id: { connector: name, task: 0 }, config: expect.any(Object) }),
    ]);
    await eventually(
      () => offsets(name),
      (o) => committedSeq(o) > 0,
      20_000,
      'first commit',
    );

    // pause: PAUSED, and no record is committed while paused
    expect((await http('PUT', connectorPath(name, '/pause'))).status).toBe(202);
    await eventually(
      () => status(name),
      (s) => s.connector.state === 'PAUSED' && taskStates(s).every((t) => t === 'PAUSED'),
      20_000,
      'PAUSED',
    );
    await sleep(1_000); // an invocation notices the pause within its assignment check
    const pausedAt = committedSeq(await offsets(name));
    await sleep(1_500);
    expect(committedSeq(await offsets(name))).toBe(pausedAt);

    // resume: RUNNING, records flow again
    expect((await http('PUT', connectorPath(name, '/resume'))).status).toBe(202);
    await eventually(
      () => status(name),
      (s) => isRunning(s, 1),
      20_000,
      'RUNNING after resume',
    );
    await eventually(
      () => offsets(name),
      (o) => committedSeq(o) > pausedAt,
      20_000,
      'progress',
    );

    // restart?onlyFailed: nothing failed, nothing restarts
    const onlyFailed = await http(
      'POST',
      connectorPath(name, '/restart?includeTasks=true&onlyFailed=true'),
    );
    expect(onlyFailed.status).toBe(202);
    expect(taskStates(onlyFailed.body)).toEqual(['RUNNING']);
    expect(onlyFailed.body.connector.state).toBe('RUNNING');
    // restart?includeTasks: connector and task RESTARTING, then RUNNING again
    const restart = await http('POST', connectorPath(name, '/restart?includeTasks=true'));
    expect(restart.status).toBe(202);
    expect(restart.body.connector.state).toBe('RESTARTING');
    expect(taskStates(restart.body)).toEqual(['RESTARTING']);
    const restartedAt = committedSeq(await offsets(name));
    await eventually(
      () => status(name),
      (s) => isRunning(s, 1),
      20_000,
      'RUNNING after restart',
    );
    await eventually(
      () => offsets(name),
      (o) => committedSeq(o) > restartedAt,
      20_000,
      'progress',
    );

    // stop: STOPPED without tasks; the committed offsets stay readable
    expect((await http('PUT', connectorPath(name, '/stop'))).status).toBe(204);
    const stopped = await eventually(
      () => status(name),
      (s) => s.connector.state === 'STOPPED',
      20_000,
      'STOPPED',
    );
    expect(stopped.tasks).toEqual([]);
    expect((await http('GET', connectorPath(name, '/tasks'))).body).toEqual([]);
    const offsetsGet = await http('GET', connectorPath(name, '/offsets'));
    expect(offsetsGet.status).toBe(200);
    expect(offsetsGet.body.offsets).toEqual([
      { partition: { 'datagen.partition': 0 }, offset: { seq: expect.any(Number) } },
    ]);
    expect(offsetsGet.body.offsets[0].offset.seq).toBeGreaterThan(restartedAt);

    // delete: 204, then 404 and gone from the list
    expect((await http('DELETE', connectorPath(name))).status).toBe(204);
    expect((await http('GET', connectorPath(name))).status).toBe(404);
    expect((await http('GET', '/connectors')).body).not.toContain(name);
  });

  it('alters and resets the offsets of a stopped source connector, and its task resumes from them', async () => {
    // Prepare: a source that committed a few hundred records
    const topic = uniqueName('e2e-src-offsets');
    const name = uniqueName('src');
    const partition = { 'datagen.partition': 0 };
    await http('POST', '/connectors', {
      name,
      config: datagenConfig(topic, { 'rate.per.second': '200' }),
    });
    await eventually(
      () => offsets(name),
      (o) => committedSeq(o) > 400,
      30_000,
      'commits',
    );
    const stop = async () => {
      expect((await http('PUT', connectorPath(name, '/stop'))).status).toBe(204);
      await eventually(
        () => status(name),
        (s) => s.connector.state === 'STOPPED',
        20_000,
      );
      // A run that read the connector before the stop may write task configs once more; the
      // next run, a second later at most, removes them again.
      await sleep(2_500);
      return committedSeq(await offsets(name));
    };
    // The stop's fencing round may still run for a moment (409 meanwhile).
    const whenStopped = (method: string, body?: unknown) =>
      eventually(
        () => http(method, connectorPath(name, '/offsets'), body),
        (r) => r.status !== 409,
      );
    const resumeFrom = async (below: number) => {
      expect((await http('PUT', connectorPath(name, '/resume'))).status).toBe(202);
      return committedSeq(
        await eventually(
          () => offsets(name),
          (o) => (o?.offsets ?? []).length > 0 && committedSeq(o) < below && committedSeq(o) > 5,
          20_000,
          'progress from the new offsets',
        ),
      );
    };
    // Act + Assess: alter to seq 5, then the task continues from there
    const stoppedAt = await stop();
    const alter = await whenStopped('PATCH', { offsets: [{ partition, offset: { seq: 5 } }] });
    expect(alter.status).toBe(200);
    expect(alter.body.message).toMatch(/altered successfully/);
    expect((await offsets(name)).offsets).toEqual([{ partition, offset: { seq: 5 } }]);
    expect(await resumeFrom(stoppedAt)).toBeLessThan(stoppedAt);
    // reset: no offsets, then the task starts over
    await eventually(
      () => offsets(name),
      (o) => committedSeq(o) > 400,
      30_000,
      'commits',
    );
    const again = await stop();
    const reset = await whenStopped('DELETE');
    expect(reset.status).toBe(200);
    expect(reset.body.message).toMatch(/reset successfully/);
    expect((await offsets(name)).offsets).toEqual([]);
    expect(await resumeFrom(again)).toBeLessThan(again);
    expect((await http('DELETE', connectorPath(name))).status).toBe(204);
  });
});
