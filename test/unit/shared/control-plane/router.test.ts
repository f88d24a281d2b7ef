import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../../../shared/control-plane/openapi.js';
import { call, sinkConfig, testApi } from './fixtures.js';

describe('Router', () => {
  it('answers an unknown route with 404 "HTTP 404 Not Found"', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'GET', '/nope');
    // Assess
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error_code: 404, message: 'HTTP 404 Not Found' });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'DELETE', '/connectors');
    // Assess
    expect(res.status).toBe(405);
    expect(res.headers.Allow).toBe('GET, POST');
    expect(res.body).toEqual({ error_code: 405, message: 'HTTP 405 Method Not Allowed' });
  });

  it('hides the worker-internal POST /connectors/{c}/tasks behind a 404', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const tasks = await call(router, 'POST', '/connectors/a/tasks');
    const fence = await call(router, 'PUT', '/connectors/a/fence');
    // Assess
    expect(tasks.status).toBe(404);
    expect(fence.status).toBe(404);
  });

  it('splits the raw path before decoding, so %2F stays inside a name', async () => {
    // Prepare
    const { router } = testApi();
    await call(router, 'PUT', '/connectors/a%2Fb/config', { body: sinkConfig() });
    // Act
    const encoded = await call(router, 'GET', '/connectors/a%2Fb');
    const raw = await call(router, 'GET', '/connectors/a/b');
    // Assess
    expect(encoded.body.name).toBe('a/b');
    expect(raw.status).toBe(404);
  });

  it('answers 400 for malformed percent-encoding and ignores one trailing slash', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const malformed = await call(router, 'GET', '/connectors/%E0%A4%A');
    const trailing = await call(router, 'GET', '/connectors/');
    // Assess
    expect(malformed.status).toBe(400);
    expect(trailing.status).toBe(200);
  });

  it.each([
    ['malformed JSON', '{"name": "a", '],
    ['a JSON array', '[1]'],
    ['an empty body', ''],
    ['a config that is a string', '{"name":"a","config":"x"}'],
    ['a config value that is an object', '{"name":"a","config":{"k":{"x":1}}}'],
    ['a missing config', '{"name":"a"}'],
    ['an unknown field', '{"name":"a","config":{},"extra":1}'],
    ['a name that is an object', '{"name":{},"config":{}}'],
    ['a lone surrogate', '{"name":"\\ud800","config":{}}'],
  ])('answers 400 for %s', async (_case, body) => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'POST', '/connectors', { body });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(400);
    expect(typeof res.body.message).toBe('string');
  });

  it('answers 413 for a body over 1 MiB and 415 for a non-JSON content type', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const big = await call(router, 'POST', '/connectors', { body: 'x'.repeat(1024 * 1024 + 1) });
    const form = await call(router, 'POST', '/connectors', {
      body: 'name=a',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    // Assess
    expect(big.status).toBe(413);
    expect(form.status).toBe(415);
  });

  it('answers 500 without internals for an unexpected error, and logs it with the request id', async () => {
    // Prepare
    const { router, store, logger } = testApi();
    store.configs.getConnector = async () => {
      throw new Error('DynamoDB said: arn:aws:dynamodb:secret-table');
    };
    // Act
    const response = await router.handle({
      method: 'GET',
      path: '/connectors/a',
      requestId: 'req-1',
    });
    // Assess
    expect(response.status).toBe(500);
    expect(response.body).toBe(
      '{"error_code":500,"message":"Internal server error (request id req-1)"}',
    );
    expect(response.headers['X-Request-Id']).toBe('req-1');
    const line = logger.lines.find((l) => l.level === 'error');
    expect(line?.fields?.requestId).toBe('req-1');
  });

  it('serves the OpenAPI description', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'GET', '/openapi.json');
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });
});

describe('openApiDocument', () => {
  it('lists exactly the routes and methods of the router', () => {
    // Prepare
    const { router } = testApi();
    const fromRouter = router.routes.map((r) => `${r.method} ${r.path}`).sort();
    // Act
    const fromDocument = Object.entries(openApiDocument.paths)
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((key) => ['get', 'put', 'post', 'patch', 'delete'].includes(key))
          .map((method) => `${method.toUpperCase()} ${path}`),
      )
      .sort();
    // Assess
    expect(fromDocument).toEqual(fromRouter);
  });

  it('resolves every $ref it uses', () => {
    // Prepare
    const text = JSON.stringify(openApiDocument);
    const refs = [...text.matchAll(/"\$ref":"#\/components\/(\w+)\/(\w+)"/g)];
    const components = openApiDocument.components as unknown as Record<
      string,
      Record<string, unknown>
    >;
    // Act
    const missing = refs.filter(
      ([, kind, name]) => components[kind ?? '']?.[name ?? ''] === undefined,
    );
    // Assess
    expect(refs.length).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });
});
