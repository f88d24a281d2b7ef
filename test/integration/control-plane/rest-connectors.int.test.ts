// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config placeholders are plain text here
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectorName,
  connectorPath,
  runTasks,
  sinkConfig,
  sourceConfig,
} from '../../unit/shared/control-plane/fixtures.js';
import { startTestServer, type TestServer } from './support.js';

/** Behaviours 1–18 and 32 of the REST reference (connectors), over HTTP and dynalite. */
describe('REST API: connectors', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startTestServer();
  });
  afterAll(async () => {
    await api.close();
  });

  const create = (name: string, config: Record<string, unknown>, extra: object = {}) =>
    api.http('POST', '/connectors', { body: { name, config, ...extra } });

  it('#1 GET / answers the version fields', async () => {
    // Act
    const res = await api.http('GET', '/');
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      version: '3.9.0',
      commit: 'unknown',
      kafka_cluster_id: 'it-cluster',
      serverless_connect_version: '0.1.0',
    });
  });

  it('#2 lists no connectors as [], 404 for an unknown route, 405 for DELETE /connectors', async () => {
    // Prepare
    const empty = await startTestServer();
    try {
      // Act
      const list = await empty.http('GET', '/connectors');
      const unknown = await empty.http('GET', '/nowhere');
      const wrong = await empty.http('DELETE', '/connectors');
      // Assess
      expect(list.body).toEqual([]);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error_code: 404, message: 'HTTP 404 Not Found' });
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe('GET, POST');
    } finally {
      await empty.close();
    }
  });

  it('#3 creates: 201, Location, tasks [], config.name, type', async () => {
    // Prepare
    const name = connectorName('create');
    // Act
    const res = await create(name, sinkConfig());
    // Assess
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/connectors/${name}`);
    expect(res.body).toMatchObject({ name, tasks: [], type: 'sink' });
    expect(res.body.config.name).toBe(name);
    expect(api.trigger.nudges).toContain(name);
  });

  it('#4 #5 answers 409 for an existing name, 400 when its config is also invalid', async () => {
    // Prepare
    const name = connectorName('dup');
    await create(name, sinkConfig());
    // Act
    const duplicate = await create(name, sinkConfig());
    const invalid = await create(name, sinkConfig({ 'tasks.max': 'abc' }));
    // Assess
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error_code).toBe(409);
    expect(invalid.status).toBe(400);
  });

  it('#6 answers 400 for a name mismatch in POST and in PUT', async () => {
    // Act
    const post = await create('a', sinkConfig({ name: 'b' }));
    const put = await api.http('PUT', '/connectors/a/config', { body: sinkConfig({ name: 'b' }) });
    // Assess
    expect(post.status).toBe(400);
    expect(put.status).toBe(400);
  });

  it('#7 trims names, refuses control characters, round-trips "/" and spaces', async () => {
    // Prepare
    const base = connectorName('trim');
    const odd = `${connectorName('team')}/orders sink ü`;
    // Act
    const trimmed = await create(`  ${base}  `, sinkConfig());
    const control = await create(`${base}\nx`, sinkConfig());
    const created = await create(odd, sinkConfig());
    const read = await api.http('GET', connectorPath(odd));
    const status = await api.http('GET', connectorPath(odd, '/status'));
    // Assess
    expect(trimmed.body.name).toBe(base);
    expect(control.status).toBe(400);
    expect(created.headers.get('location')).toBe(connectorPath(odd));
    expect(read.body.name).toBe(odd);
    expect(status.body.name).toBe(odd);
  });

  it('#8 answers 400 without connector.class and (ours) 400 for an unknown class', async () => {
    // Act
    const missing = await create(connectorName(), { topics: 'orders' });
    const unknown = await create(connectorName(), { 'connector.class': 'org.example.Nope' });
    // Assess
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/contains no connector type/);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/available connectors are/);
  });

  it('#9 #10 #11 answers 400 for sink topic rules, bad numbers, tolerance and null values', async () => {
    // Act
    const statuses = await Promise.all(
      [
        { 'connector.class': 'test-sink' },
        sinkConfig({ 'topics.regex': 'o.*' }),
        sinkConfig({ 'errors.deadletterqueue.topic.name': 'orders' }),
        sinkConfig({ 'tasks.max': '0' }),
        sinkConfig({ 'tasks.max': 'abc' }),
        sinkConfig({ 'errors.tolerance': 'ALL' }),
        { ...sinkConfig(), 'batch.size': null },
      ].map(async (config) => (await create(connectorName('bad'), config)).status),
    );
    // Assess
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 400]);
  });

  it('#12 accepts "tasks.max": 2 and returns "2"', async () => {
    // Act
    const res = await create(connectorName(), { ...sinkConfig(), 'tasks.max': 2 });
    // Assess
    expect(res.status).toBe(201);
    expect(res.body.config['tasks.max']).toBe('2');
  });

  it('#14 PUT creates (201, Location) then updates (200)', async () => {
    // Prepare
    const name = connectorName('put');
    // Act
    const created = await api.http('PUT', connectorPath(name, '/config'), { body: sinkConfig() });
    const updated = await api.http('PUT', connectorPath(name, '/config'), {
      body: sinkConfig({ 'batch.size': '7' }),
    });
    // Assess
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(connectorPath(name));
    expect(updated.status).toBe(200);
    expect(updated.body.config['batch.size']).toBe('7');
  });

  it('#15 answers (ours) 400 for a PUT with a {name, config} wrapper', async () => {
    // Act
    const res = await api.http('PUT', connectorPath(connectorName(), '/config'), {
      body: { name: 'x', config: sinkConfig() },
    });
    // Assess
    expect(res.status).toBe(400);
  });

  it('#16 PATCH removes null keys and keeps the rest; 404 for an unknown name', async () => {
    // Prepare
    const name = connectorName('patch');
    await create(name, sinkConfig({ k: 'v' }));
    // Act
    const res = await api.http('PATCH', connectorPath(name, '/config'), {
      body: { k: null, 'tasks.max': '3' },
    });
    const unknown = await api.http('PATCH', connectorPath(connectorName(), '/config'), {
      body: { 'tasks.max': '3' },
    });
    // Assess
    expect(res.status).toBe(200);
    expect(res.body.config).toEqual({ ...sinkConfig({ 'tasks.max': '3' }), name });
    expect(unknown.status).toBe(404);
  });

  it('#17 answers 404 for every read of an unknown connector and for /tasks/abc/status', async () => {
    // Prepare
    const name = connectorName('ghost');
    // Act
    const statuses = await Promise.all(
      ['', '/config', '/tasks', '/status', '/offsets', '/tasks/abc/status'].map(
        async (suffix) => (await api.http('GET', connectorPath(name, suffix))).status,
      ),
    );
    // Assess
    expect(statuses).toEqual([404, 404, 404, 404, 404, 404]);
  });

  it('#18 expands status and info; unknown expansions give {}', async () => {
    // Prepare
    const name = connectorName('expand');
    await create(name, sourceConfig());
    // Act
    const both = await api.http('GET', '/connectors?expand=status&expand=info');
    const foo = await api.http('GET', '/connectors?expand=foo');
    // Assess
    expect(Object.keys(both.body[name])).toEqual(['status', 'info']);
    expect(both.body[name].info.type).toBe('source');
    expect(both.body[name].status.connector.state).toBe('UNASSIGNED');
    expect(foo.body[name]).toEqual({});
  });

  it('#32 deletes (204); GET and a second DELETE 404; a re-created connector keeps offsets', async () => {
    // Prepare
    const name = connectorName('delete');
    await create(name, sinkConfig());
    await api.store.offsets.commitSinkOffset(name, {
      topic: 'orders',
      partition: 0,
      nextOffset: 10,
    });
    // Act
    const deleted = await api.http('DELETE', connectorPath(name));
    const get = await api.http('GET', connectorPath(name));
    const again = await api.http('DELETE', connectorPath(name));
    await create(name, sinkConfig());
    const offsets = await api.http('GET', connectorPath(name, '/offsets'));
    // Assess
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(get.status).toBe(404);
    expect(again.status).toBe(404);
    expect(offsets.body.offsets).toEqual([
      { partition: { kafka_topic: 'orders', kafka_partition: 0 }, offset: { kafka_offset: 10 } },
    ]);
  });

  it('returns secrets and placeholders as stored, never resolved', async () => {
    // Prepare
    const name = connectorName('secret');
    const config = sinkConfig({ 'secret.token': 'p4ss', other: '${env:HOME}' });
    await create(name, config);
    // Act
    const read = await api.http('GET', connectorPath(name, '/config'));
    const info = await api.http('GET', connectorPath(name));
    // Assess
    expect(read.body['secret.token']).toBe('p4ss');
    expect(read.body.other).toBe('${env:HOME}');
    expect(info.body.config.other).toBe('${env:HOME}');
  });

  it('shows task configs under /tasks and /tasks-config once the runtime wrote them', async () => {
    // Prepare
    const name = connectorName('tasks');
    await create(name, sinkConfig());
    await runTasks(api.store, name, 2);
    // Act
    const tasks = await api.http('GET', connectorPath(name, '/tasks'));
    const legacy = await api.http('GET', connectorPath(name, '/tasks-config'));
    const info = await api.http('GET', connectorPath(name));
    // Assess
    expect(tasks.body.map((t: { id: unknown }) => t.id)).toEqual([
      { connector: name, task: 0 },
      { connector: name, task: 1 },
    ]);
    expect(Object.keys(legacy.body)).toEqual([`${name}-0`, `${name}-1`]);
    expect(info.body.tasks).toHaveLength(2);
  });
});
