import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  connectorName,
  runTasks,
  sinkConfig,
  sourceConfig,
} from '../../unit/shared/control-plane/fixtures.js';
import {
  assertWellFormed,
  requestArbitrary,
} from '../../unit/shared/control-plane/openapi-arbitraries.js';
import { startTestServer, type TestServer } from './support.js';

/**
 * The property of the unit fuzz test, through the HTTP server and the DynamoDB adapter on
 * dynalite, where item and key size limits apply: no 5xx, every error body `{"error_code": status, "message": …}`.
 */
describe('REST API over HTTP and DynamoDB (property)', () => {
  let api: TestServer;
  const names = [connectorName('fz-sink'), connectorName('fz-source'), `${connectorName('fz')}/x`];
  beforeAll(async () => {
    api = await startTestServer();
    const [sink, source, slash] = names as [string, string, string];
    await api.http('POST', '/connectors', { body: { name: sink, config: sinkConfig() } });
    await runTasks(api.store, sink, 2, ['RUNNING', 'FAILED']);
    await api.http('POST', '/connectors', { body: { name: source, config: sourceConfig() } });
    await api.http('POST', '/connectors', {
      body: { name: slash, config: sinkConfig(), initial_state: 'STOPPED' },
    });
  });
  afterAll(async () => {
    await api.close();
  });

  it('never answers 5xx and always answers well-formed errors', async () => {
    await fc.assert(
      fc.asyncProperty(requestArbitrary([...names, 'ghost']), async (request) => {
        const query = new URLSearchParams();
        for (const [key, values] of Object.entries(request.query)) {
          for (const value of values) query.append(key, value);
        }
        const search = query.size === 0 ? '' : `?${query}`;
        const response = await fetch(`${api.url}${request.path}${search}`, {
          method: request.method,
          headers: request.body === undefined ? {} : { 'Content-Type': 'application/json' },
          ...(request.body === undefined || request.method === 'GET' || request.method === 'HEAD'
            ? {}
            : { body: request.body }),
        });
        const text = await response.text();
        assertWellFormed(request, {
          status: response.status,
          headers: Object.fromEntries(
            [...response.headers].map(([k, v]) => [k === 'content-type' ? 'Content-Type' : k, v]),
          ),
          ...(text === '' ? {} : { body: text }),
        });
      }),
      { numRuns: 300 },
    );
  });
});
