import { describe, expect, it } from 'vitest';
import { call, sinkConfig, TEST_SINK_CLASS, testApi } from './fixtures.js';

describe('PluginsApi', () => {
  it('lists only sinks then sources by default', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'GET', '/connector-plugins');
    // Assess
    const types: string[] = res.body.map((p: { type: string }) => p.type);
    expect(new Set(types)).toEqual(new Set(['sink', 'source']));
    expect(types.indexOf('source')).toBeGreaterThan(types.lastIndexOf('sink'));
    expect(res.body).toContainEqual({ class: TEST_SINK_CLASS, type: 'sink', version: '1.0.0' });
  });

  it('adds transformations, predicates and converters with connectorsOnly=false', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'GET', '/connector-plugins', {
      query: { connectorsOnly: ['false'] },
    });
    // Assess
    const types = new Set(res.body.map((p: { type: string }) => p.type));
    expect(types).toEqual(
      new Set(['sink', 'source', 'transformation', 'predicate', 'converter', 'header_converter']),
    );
  });

  it("returns a connector's own keys then the framework keys; 404 for an unknown plugin", async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'GET', '/connector-plugins/test-sink/config');
    const transform = await call(
      router,
      'GET',
      `/connector-plugins/${encodeURIComponent('InsertField$Value')}/config`,
    );
    const unknown = await call(router, 'GET', '/connector-plugins/Nope/config');
    // Assess
    const names = res.body.map((k: { name: string }) => k.name);
    expect(names.slice(0, 2)).toEqual(['secret.token', 'batch.size']);
    expect(names).toContain('topics');
    expect(transform.status).toBe(200);
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('Unknown plugin Nope.');
  });

  it('validates with 200 even with errors; error_count equals the messages', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'PUT', '/connector-plugins/test-sink/config/validate', {
      body: { 'connector.class': 'test-sink', name: 'v', 'tasks.max': '0' },
    });
    // Assess
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('test-sink');
    const messages = res.body.configs.flatMap(
      (c: { value: { errors: string[] } | null }) => c.value?.errors ?? [],
    );
    expect(res.body.error_count).toBe(messages.length);
    expect(res.body.error_count).toBe(3); // tasks.max, and topics + topics.regex
  });

  it('shows required keys with required=true and PASSWORD values hidden', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'PUT', '/connector-plugins/TestSinkConnector/config/validate', {
      body: sinkConfig({
        'connector.class': TEST_SINK_CLASS,
        'secret.token': 'hunter2',
        name: 'v',
      }),
    });
    // Assess
    const byName = new Map(
      res.body.configs.map((c: { definition: { name: string } | null; value: unknown }) => [
        c.definition?.name,
        c,
      ]),
    );
    const name = byName.get('name') as { definition: { required: boolean; default_value: null } };
    const secret = byName.get('secret.token') as { value: { value: string } };
    expect(res.status).toBe(200);
    expect(name.definition.required).toBe(true);
    expect(name.definition.default_value).toBeNull();
    expect(secret.value.value).toBe('[hidden]');
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
  });

  it('answers 400 when the class does not match the path or is missing', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const mismatch = await call(router, 'PUT', '/connector-plugins/datagen/config/validate', {
      body: sinkConfig(),
    });
    const missing = await call(router, 'PUT', '/connector-plugins/test-sink/config/validate', {
      body: { topics: 'orders' },
    });
    // Assess
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.message).toBe(
      'Included connector type test-sink does not match request type datagen',
    );
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/contains no connector type/);
  });

  it('reports exactly.once.support=required errors for a connector that cannot promise it', async () => {
    // Prepare
    const { router } = testApi(undefined, { exactlyOnceSource: false });
    // Act
    const res = await call(router, 'PUT', '/connector-plugins/datagen/config/validate', {
      body: {
        'connector.class': 'datagen',
        name: 'd',
        'kafka.topic': 't',
        'exactly.once.support': 'required',
      },
    });
    // Assess
    const eos = res.body.configs.find(
      (c: { definition: { name: string } | null }) => c.definition?.name === 'exactly.once.support',
    );
    expect(eos.value.errors).toEqual([
      'This worker does not have exactly-once source support enabled.',
    ]);
  });
});

describe('LoggersApi', () => {
  it('lists root with no last_modified until a level is set', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'GET', '/admin/loggers');
    const root = await call(router, 'GET', '/admin/loggers/root');
    // Assess
    expect(res.body).toEqual({ root: { level: 'INFO', last_modified: null } });
    expect(root.body).toEqual({ level: 'INFO', last_modified: null });
  });

  it('sets a level (worker scope: 200 with the affected loggers, below it too)', async () => {
    // Prepare
    const { router } = testApi();
    await call(router, 'PUT', '/admin/loggers/a.b.c', { body: { level: 'WARN' } });
    // Act
    const res = await call(router, 'PUT', '/admin/loggers/a.b', { body: { level: 'debug' } });
    const child = await call(router, 'GET', '/admin/loggers/a.b.c');
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual(['a.b', 'a.b.c']);
    expect(child.body.level).toBe('DEBUG');
    expect(typeof child.body.last_modified).toBe('number');
  });

  it('answers 204 with scope=cluster, 400 without a level, 404 for an unknown level', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const cluster = await call(router, 'PUT', '/admin/loggers/a.b', {
      body: { level: 'INFO' },
      query: { scope: ['cluster'] },
    });
    const noLevel = await call(router, 'PUT', '/admin/loggers/a.b', { body: {} });
    const loud = await call(router, 'PUT', '/admin/loggers/a.b', { body: { level: 'LOUD' } });
    const unknown = await call(router, 'GET', '/admin/loggers/nobody');
    // Assess
    expect(cluster.status).toBe(204);
    expect(noLevel.status).toBe(400);
    expect(loud.status).toBe(404);
    expect(loud.body.message).toBe("invalid log level 'LOUD'.");
    expect(unknown.status).toBe(404);
  });
});

describe('root resources', () => {
  it('answers GET / with the Connect version, commit, cluster id and our version', async () => {
    // Prepare
    const { router } = testApi(undefined, { commit: 'abc123' });
    // Act
    const res = await call(router, 'GET', '/');
    // Assess
    expect(res.body).toEqual({
      version: '3.9.0',
      commit: 'abc123',
      kafka_cluster_id: 'test-cluster',
      serverless_connect_version: '0.1.0',
    });
  });

  it('answers GET /health healthy while the store answers, else 500 with both shapes', async () => {
    // Prepare
    const healthy = testApi();
    const broken = testApi();
    broken.store.loggers.getLoggerLevel = async () => {
      throw new Error('socket hang up at 10.0.0.1');
    };
    // Act
    const ok = await call(healthy.router, 'GET', '/health');
    const bad = await call(broken.router, 'GET', '/health');
    // Assess
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('healthy');
    expect(bad.status).toBe(500);
    expect(bad.body).toEqual({
      error_code: 500,
      status: 'unhealthy',
      message: 'The state store did not answer.',
    });
  });
});
