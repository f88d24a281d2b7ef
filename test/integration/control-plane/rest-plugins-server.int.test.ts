import { request } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleProxyEvent, rawPathOf } from '../../../functions/api/proxy-event.js';
import { startApiServer } from '../../../local/api-server.js';
import {
  connectorName,
  connectorPath,
  sinkConfig,
  testApi,
} from '../../unit/shared/control-plane/fixtures.js';
import { startTestServer, type TestServer } from './support.js';

/** Behaviours 33–38, the bad-input list, authentication and the Lambda path translation. */
describe('REST API: plugins, loggers and the HTTP edge', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startTestServer();
  });
  afterAll(async () => {
    await api.close();
  });

  it('#33 validate: 200 with error_count = messages; 400 for a class mismatch or none', async () => {
    // Act
    const res = await api.http('PUT', '/connector-plugins/test-sink/config/validate', {
      body: { 'connector.class': 'test-sink', name: 'v', 'tasks.max': 'x' },
    });
    const mismatch = await api.http('PUT', '/connector-plugins/datagen/config/validate', {
      body: sinkConfig(),
    });
    const none = await api.http('PUT', '/connector-plugins/test-sink/config/validate', {
      body: { topics: 'orders' },
    });
    // Assess
    const messages = res.body.configs.flatMap(
      (c: { value: { errors: string[] } | null }) => c.value?.errors ?? [],
    );
    expect(res.status).toBe(200);
    expect(res.body.error_count).toBe(messages.length);
    expect(res.body.error_count).toBeGreaterThan(0);
    expect([mismatch.status, none.status]).toEqual([400, 400]);
  });

  it('#34 validate: required keys have required=true and default null; passwords hidden', async () => {
    // Act
    const res = await api.http('PUT', '/connector-plugins/test-sink/config/validate', {
      body: sinkConfig({ name: 'v', 'secret.token': 'hunter2' }),
    });
    // Assess
    const find = (name: string) =>
      res.body.configs.find(
        (c: { definition: { name: string } | null }) => c.definition?.name === name,
      );
    expect(find('name').definition).toMatchObject({ required: true, default_value: null });
    expect(find('secret.token').value.value).toBe('[hidden]');
    expect(res.text).not.toContain('hunter2');
  });

  it('#35 plugins: connectors only by default, all kinds with connectorsOnly=false, 404 for Nope', async () => {
    // Act
    const connectors = await api.http('GET', '/connector-plugins');
    const all = await api.http('GET', '/connector-plugins?connectorsOnly=false');
    const nope = await api.http('GET', '/connector-plugins/Nope/config');
    // Assess
    const kinds = (list: { type: string }[]) => new Set(list.map((p) => p.type));
    expect(kinds(connectors.body)).toEqual(new Set(['source', 'sink']));
    expect(kinds(all.body)).toEqual(
      new Set(['source', 'sink', 'transformation', 'predicate', 'converter', 'header_converter']),
    );
    expect(nope.status).toBe(404);
  });

  it('#36 topics: {"x":{"topics":[…]}}, unknown names empty, reset 202; 403 when disabled', async () => {
    // Prepare
    const name = connectorName('topics');
    await api.store.topics.recordActiveTopic(name, 'orders');
    const disabled = await startTestServer({ topicTracking: { enabled: false } });
    try {
      // Act
      const topics = await api.http('GET', connectorPath(name, '/topics'));
      const unknown = await api.http('GET', connectorPath('ghost', '/topics'));
      const reset = await api.http('PUT', connectorPath(name, '/topics/reset'));
      const after = await api.http('GET', connectorPath(name, '/topics'));
      const forbidden = await disabled.http('GET', connectorPath(name, '/topics'));
      // Assess
      expect(topics.body).toEqual({ [name]: { topics: ['orders'] } });
      expect(unknown.body).toEqual({ ghost: { topics: [] } });
      expect(reset.status).toBe(202);
      expect(after.body[name].topics).toEqual([]);
      expect(forbidden.status).toBe(403);
    } finally {
      await disabled.close();
    }
  });

  it('#37 loggers: {} 400, LOUD 404, cluster scope 204, worker scope 200 with a list', async () => {
    // Act
    const empty = await api.http('PUT', '/admin/loggers/a.b', { body: {} });
    const loud = await api.http('PUT', '/admin/loggers/a.b', { body: { level: 'LOUD' } });
    const cluster = await api.http('PUT', '/admin/loggers/a.b?scope=cluster', {
      body: { level: 'DEBUG' },
    });
    const worker = await api.http('PUT', '/admin/loggers/a.b', { body: { level: 'WARN' } });
    const read = await api.http('GET', '/admin/loggers/a.b');
    const list = await api.http('GET', '/admin/loggers');
    // Assess
    expect([empty.status, loud.status, cluster.status, worker.status]).toEqual([
      400, 404, 204, 200,
    ]);
    expect(worker.body).toEqual(['a.b']);
    expect(read.body.level).toBe('WARN');
    expect(Object.keys(list.body)).toEqual(expect.arrayContaining(['root', 'a.b']));
  });

  it('#38 GET /health answers healthy', async () => {
    // Act
    const res = await api.http('GET', '/health');
    // Assess
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('healthy');
  });

  it('answers 400 for malformed JSON, wrong types, a missing config, lone surrogates', async () => {
    // Act
    const statuses = await Promise.all(
      [
        '{"name":',
        '"just a string"',
        '{"name":"x","config":[]}',
        '{"name":"x","config":{"a":{"b":1}}}',
        '{"name":"x"}',
        '{"name":"\\udc00","config":{}}',
      ].map(async (body) => (await api.http('POST', '/connectors', { body })).status),
    );
    // Assess
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400]);
  });

  it('answers 415 for a form body and 413 for a body over 1 MiB, streamed', async () => {
    // Prepare
    const big = 'x'.repeat(3 * 1024 * 1024);
    // Act
    const form = await api.http('POST', '/connectors', {
      body: 'name=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    const tooLarge = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${api.url}/connectors`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8');
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        // The server may close the socket while the client still writes.
        if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
      });
      req.end(big);
    });
    // Assess
    expect(form.status).toBe(415);
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body).error_code).toBe(413);
  });

  it('requires credentials when configured and refuses a public address without them', async () => {
    // Prepare
    const secured = await startTestServer({ auth: { bearerToken: 't0ken' } });
    try {
      // Act
      const anonymous = await secured.http('GET', '/connectors');
      const wrong = await secured.http('GET', '/connectors', {
        headers: { Authorization: 'Bearer nope' },
      });
      const right = await secured.http('GET', '/connectors', {
        headers: { Authorization: 'Bearer t0ken' },
      });
      const publicStart = startApiServer({
        host: '0.0.0.0',
        port: 0,
        handler: async () => ({ statusCode: 200, body: '' }),
      });
      // Assess
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({
        error_code: 401,
        message: 'User cannot access the resource.',
      });
      expect(wrong.status).toBe(401);
      expect(right.status).toBe(200);
      await expect(publicStart).rejects.toThrow(/without credentials/);
    } finally {
      await secured.close();
    }
  });

  it('accepts basic auth', async () => {
    // Prepare
    const secured = await startTestServer({
      auth: { basic: { username: 'admin', password: 'pw' } },
    });
    try {
      // Act
      const res = await secured.http('GET', '/', {
        headers: { Authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}` },
      });
      const bad = await secured.http('GET', '/', {
        headers: { Authorization: `Basic ${Buffer.from('admin:no').toString('base64')}` },
      });
      // Assess
      expect(res.status).toBe(200);
      expect(bad.status).toBe(401);
      expect(bad.headers.get('www-authenticate')).toMatch(/^Basic/);
    } finally {
      await secured.close();
    }
  });

  it('keeps an encoded "/" from an API Gateway event behind a stage', async () => {
    // Prepare
    const { router } = testApi();
    await router.handle({
      method: 'PUT',
      path: '/connectors/a%2Fb/config',
      body: JSON.stringify(sinkConfig()),
    });
    const event = {
      resource: '/{proxy+}',
      path: '/connectors/a/b',
      httpMethod: 'GET',
      headers: {},
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: { proxy: 'connectors/a/b' },
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { path: '/prod/connectors/a%2Fb', stage: 'prod', requestId: 'r-1' },
    } as unknown as APIGatewayProxyEvent;
    // Act
    const result = await handleProxyEvent(router, event);
    // Assess
    expect(rawPathOf(event)).toBe('/connectors/a%2Fb');
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).name).toBe('a/b');
    expect(result.headers?.['X-Request-Id']).toBe('r-1');
  });
});
