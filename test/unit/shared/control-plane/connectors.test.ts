// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config placeholders such as ${secretsmanager:x} are plain text here
import { describe, expect, it } from 'vitest';
import { call, connectorPath, runTasks, sinkConfig, sourceConfig, testApi } from './fixtures.js';

describe('ConnectorsApi', () => {
  it('creates a connector with 201, a Location, no tasks and the name in its config', async () => {
    // Prepare
    const { router, trigger } = testApi();
    // Act
    const res = await call(router, 'POST', '/connectors', {
      body: { name: 'orders', config: sinkConfig() },
    });
    // Assess
    expect(res.status).toBe(201);
    expect(res.headers.Location).toBe('/connectors/orders');
    expect(res.body).toEqual({
      name: 'orders',
      config: { ...sinkConfig(), name: 'orders' },
      tasks: [],
      type: 'sink',
    });
    expect(trigger.nudges).toEqual(['orders']);
  });

  it('answers 409 for an existing name with a valid config', async () => {
    // Prepare
    const { router } = testApi();
    await call(router, 'POST', '/connectors', { body: { name: 'a', config: sinkConfig() } });
    // Act
    const res = await call(router, 'POST', '/connectors', {
      body: { name: 'a', config: sinkConfig() },
    });
    // Assess
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error_code: 409, message: 'Connector a already exists' });
  });

  it('answers 400 for an existing name with an invalid config (validation first)', async () => {
    // Prepare
    const { router } = testApi();
    await call(router, 'POST', '/connectors', { body: { name: 'a', config: sinkConfig() } });
    // Act
    const res = await call(router, 'POST', '/connectors', {
      body: { name: 'a', config: sinkConfig({ 'tasks.max': '0' }) },
    });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(
      /^Connector configuration is invalid and contains the following 1 error\(s\):\nInvalid value 0 for configuration tasks.max/,
    );
    expect(res.body.message).toMatch(/config\/validate`$/);
  });

  it('answers 400 when the body name and config.name differ', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'POST', '/connectors', {
      body: { name: 'a', config: sinkConfig({ name: 'b' }) },
    });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      "Connector name configuration (b) doesn't match connector name in the URL (a)",
    );
  });

  it('trims the name and rejects control characters in it', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const trimmed = await call(router, 'POST', '/connectors', {
      body: { name: '  padded  ', config: sinkConfig() },
    });
    const control = await call(router, 'POST', '/connectors', {
      body: { name: 'new\nline', config: sinkConfig() },
    });
    // Assess
    expect(trimmed.status).toBe(201);
    expect(trimmed.body.name).toBe('padded');
    expect(control.status).toBe(400);
    expect(control.body.message).toContain('String may not contain control sequences');
  });

  it('coerces JSON numbers and booleans in the config to strings', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'POST', '/connectors', {
      body: { name: 'n', config: { ...sinkConfig(), 'tasks.max': 2, 'errors.log.enable': true } },
    });
    // Assess
    expect(res.status).toBe(201);
    expect(res.body.config['tasks.max']).toBe('2');
    expect(res.body.config['errors.log.enable']).toBe('true');
  });

  it.each([
    ['no connector.class', { topics: 'orders' }, /contains no connector type/],
    ['an unknown class', { 'connector.class': 'Nope' }, /available connectors are: .*datagen/i],
    ['tasks.max abc', sinkConfig({ 'tasks.max': 'abc' }), /tasks.max/],
    ['errors.tolerance ALL', sinkConfig({ 'errors.tolerance': 'ALL' }), /errors.tolerance/],
    ['neither topics nor regex', { 'connector.class': 'test-sink' }, /Must configure one of/],
    [
      'both topics and regex',
      sinkConfig({ 'topics.regex': 'o.*' }),
      /mutually exclusive options, but both are set/,
    ],
    [
      'a DLQ topic among the topics',
      sinkConfig({ 'errors.deadletterqueue.topic.name': 'orders' }),
      /DLQ topic 'orders' may not be included/,
    ],
  ])('answers 400 for %s', async (_case, config, message) => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'POST', '/connectors', { body: { name: 'x', config } });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(400);
    expect(res.body.message).toMatch(message);
  });

  it('answers 400 for a null config value on create', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'POST', '/connectors', {
      body: { name: 'x', config: { ...sinkConfig(), 'batch.size': null } },
    });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('Null value can not be supplied');
  });

  it('creates with PUT (201, Location) and updates with PUT (200)', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const created = await call(router, 'PUT', '/connectors/p/config', { body: sinkConfig() });
    const updated = await call(router, 'PUT', '/connectors/p/config', {
      body: sinkConfig({ 'batch.size': '5' }),
    });
    // Assess
    expect(created.status).toBe(201);
    expect(created.headers.Location).toBe('/connectors/p');
    expect(updated.status).toBe(200);
    expect(updated.body.config['batch.size']).toBe('5');
  });

  it('lists the tasks that existed before a PUT update', async () => {
    // Prepare
    const { router, store } = testApi();
    await call(router, 'PUT', '/connectors/p/config', { body: sinkConfig() });
    await runTasks(store, 'p', 2);
    // Act
    const res = await call(router, 'PUT', '/connectors/p/config', {
      body: sinkConfig({ 'tasks.max': '1' }),
    });
    // Assess
    expect(res.body.tasks).toEqual([
      { connector: 'p', task: 0 },
      { connector: 'p', task: 1 },
    ]);
  });

  it('answers 400 for a PUT whose name differs from the path or that wraps {name, config}', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const renamed = await call(router, 'PUT', '/connectors/a/config', {
      body: sinkConfig({ name: 'b' }),
    });
    const wrapped = await call(router, 'PUT', '/connectors/a/config', {
      body: { name: 'a', config: sinkConfig() },
    });
    // Assess
    expect(renamed.status).toBe(400);
    expect(wrapped.status).toBe(400);
    expect(wrapped.body.message).toBe(
      "The value of config key 'config' must be a string, not an object",
    );
  });

  it('patches: null removes a key, others are merged, the target state is kept', async () => {
    // Prepare
    const { router, store } = testApi();
    await call(router, 'POST', '/connectors', {
      body: { name: 'm', config: sinkConfig({ k: 'v' }), initial_state: 'STOPPED' },
    });
    // Act
    const res = await call(router, 'PATCH', '/connectors/m/config', {
      body: { k: null, 'tasks.max': '3' },
    });
    // Assess
    expect(res.status).toBe(200);
    expect(res.body.config).toEqual({ ...sinkConfig({ 'tasks.max': '3' }), name: 'm' });
    expect((await store.configs.getConnector('m'))?.targetState).toBe('STOPPED');
  });

  it('answers 404 for a patch of an unknown connector and 400 for a changed name', async () => {
    // Prepare
    const { router } = testApi();
    await call(router, 'POST', '/connectors', { body: { name: 'm', config: sinkConfig() } });
    // Act
    const unknown = await call(router, 'PATCH', '/connectors/nope/config', { body: {} });
    const renamed = await call(router, 'PATCH', '/connectors/m/config', { body: { name: 'z' } });
    // Assess
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('Connector nope not found');
    expect(renamed.status).toBe(400);
  });

  it('returns PASSWORD values and placeholders exactly as stored', async () => {
    // Prepare
    const { router } = testApi();
    const config = sinkConfig({
      'secret.token': 's3cr3t',
      'other.secret': '${secretsmanager:prod/db:password}',
    });
    await call(router, 'POST', '/connectors', { body: { name: 's', config } });
    // Act
    const res = await call(router, 'GET', '/connectors/s/config');
    // Assess
    expect(res.body['secret.token']).toBe('s3cr3t');
    expect(res.body['other.secret']).toBe('${secretsmanager:prod/db:password}');
  });

  it('round-trips names with "/", spaces, "%" and non-ASCII through encoded paths', async () => {
    // Prepare
    const { router } = testApi();
    const name = 'team/a b%ü?#';
    await call(router, 'PUT', connectorPath(name, '/config'), { body: sourceConfig() });
    // Act
    const res = await call(router, 'GET', connectorPath(name));
    const list = await call(router, 'GET', '/connectors');
    // Assess
    expect(res.status).toBe(200);
    expect(res.body.name).toBe(name);
    expect(list.body).toEqual([name]);
  });

  it('deletes (204), then answers 404 on GET and on a second DELETE', async () => {
    // Prepare
    const { router } = testApi();
    await call(router, 'POST', '/connectors', { body: { name: 'd', config: sinkConfig() } });
    // Act
    const deleted = await call(router, 'DELETE', '/connectors/d');
    const get = await call(router, 'GET', '/connectors/d');
    const again = await call(router, 'DELETE', '/connectors/d');
    // Assess
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect(get.status).toBe(404);
    expect(again.status).toBe(404);
  });

  it('keeps sink offsets across delete and re-create', async () => {
    // Prepare
    const { router, store } = testApi();
    await call(router, 'POST', '/connectors', { body: { name: 'o', config: sinkConfig() } });
    await store.offsets.commitSinkOffset('o', { topic: 'orders', partition: 0, nextOffset: 42 });
    await call(router, 'DELETE', '/connectors/o');
    // Act
    await call(router, 'POST', '/connectors', { body: { name: 'o', config: sinkConfig() } });
    const res = await call(router, 'GET', '/connectors/o/offsets');
    // Assess
    expect(res.body).toEqual({
      offsets: [
        { partition: { kafka_topic: 'orders', kafka_partition: 0 }, offset: { kafka_offset: 42 } },
      ],
    });
  });

  it.each(['', '/config', '/tasks', '/status', '/offsets', '/tasks-config', '/tasks/0/status'])(
    'answers 404 for GET %s of an unknown connector',
    async (suffix) => {
      // Prepare
      const { router } = testApi();
      // Act
      const res = await call(router, 'GET', connectorPath('ghost', suffix));
      // Assess
      expect(res.status).toBe(404);
      expect(res.body.error_code).toBe(404);
    },
  );

  it('lists names, and with expand=status&expand=info both keys per connector', async () => {
    // Prepare
    const { router } = testApi();
    await call(router, 'POST', '/connectors', { body: { name: 'b', config: sinkConfig() } });
    await call(router, 'POST', '/connectors', { body: { name: 'a', config: sourceConfig() } });
    // Act
    const names = await call(router, 'GET', '/connectors');
    const both = await call(router, 'GET', '/connectors', {
      query: { expand: ['status', 'info'] },
    });
    const unknown = await call(router, 'GET', '/connectors', { query: { expand: ['foo'] } });
    // Assess
    expect(names.body).toEqual(['a', 'b']);
    expect(Object.keys(both.body)).toEqual(['a', 'b']);
    expect(both.body.a.info.type).toBe('source');
    expect(both.body.b.status.connector.state).toBe('UNASSIGNED');
    expect(unknown.body).toEqual({ a: {}, b: {} });
  });

  it('shows task configs under /tasks and the deprecated /tasks-config', async () => {
    // Prepare
    const { router, store } = testApi();
    await call(router, 'POST', '/connectors', { body: { name: 't', config: sinkConfig() } });
    await runTasks(store, 't', 2);
    // Act
    const tasks = await call(router, 'GET', '/connectors/t/tasks');
    const legacy = await call(router, 'GET', '/connectors/t/tasks-config');
    // Assess
    expect(tasks.body).toEqual([
      { id: { connector: 't', task: 0 }, config: { 'task.id': '0' } },
      { id: { connector: 't', task: 1 }, config: { 'task.id': '1' } },
    ]);
    expect(legacy.body).toEqual({ 't-0': { 'task.id': '0' }, 't-1': { 'task.id': '1' } });
  });

  it('lists active topics (empty for unknown names) and resets them', async () => {
    // Prepare
    const { router, store } = testApi();
    await store.topics.recordActiveTopic('x', 'orders');
    // Act
    const before = await call(router, 'GET', '/connectors/x/topics');
    const reset = await call(router, 'PUT', '/connectors/x/topics/reset');
    const after = await call(router, 'GET', '/connectors/x/topics');
    const unknown = await call(router, 'GET', '/connectors/ghost/topics');
    // Assess
    expect(before.body).toEqual({ x: { topics: ['orders'] } });
    expect(reset.status).toBe(202);
    expect(after.body).toEqual({ x: { topics: [] } });
    expect(unknown.body).toEqual({ ghost: { topics: [] } });
  });

  it('answers 403 for topics when topic tracking is disabled', async () => {
    // Prepare
    const { router } = testApi(undefined, { topicTracking: { enabled: false, allowReset: true } });
    const noReset = testApi(undefined, {
      topicTracking: { enabled: true, allowReset: false },
    }).router;
    // Act
    const get = await call(router, 'GET', '/connectors/x/topics');
    const reset = await call(noReset, 'PUT', '/connectors/x/topics/reset');
    // Assess
    expect(get.status).toBe(403);
    expect(get.body.message).toBe('Topic tracking is disabled.');
    expect(reset.status).toBe(403);
    expect(reset.body.message).toBe('Topic tracking reset is disabled.');
  });

  it('answers 413 for a config too large for one state item', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'POST', '/connectors', {
      body: { name: 'big', config: sinkConfig({ blob: 'x'.repeat(500_000) }) },
    });
    // Assess
    expect(res.status).toBe(413);
  });

  it('answers 400 for a name over 1024 bytes and 404 when looking one up', async () => {
    // Prepare
    const { router } = testApi();
    const name = 'n'.repeat(1025);
    // Act
    const created = await call(router, 'POST', '/connectors', {
      body: { name, config: sinkConfig() },
    });
    const get = await call(router, 'GET', connectorPath(name));
    // Assess
    expect(created.status).toBe(400);
    expect(get.status).toBe(404);
  });
});
