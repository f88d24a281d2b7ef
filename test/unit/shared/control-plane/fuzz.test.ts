import fc from 'fast-check';
import { describe, it } from 'vitest';
import type { HttpRequest } from '../../../../shared/control-plane/router.js';
import { call, runTasks, sinkConfig, sourceConfig, testApi } from './fixtures.js';
import { assertWellFormed, type FuzzRequest, requestArbitrary } from './openapi-arbitraries.js';

function toHttpRequest({ body, ...rest }: FuzzRequest): HttpRequest {
  return {
    ...rest,
    headers: { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body }),
  };
}

const NAMES = ['fz-sink', 'fz-source', 'fz/slash', 'ghost'];

/** A fresh API with a running sink (2 tasks, one FAILED), a source and a name with "/". */
async function seeded() {
  const api = testApi();
  await call(api.router, 'POST', '/connectors', {
    body: { name: 'fz-sink', config: sinkConfig() },
  });
  await runTasks(api.store, 'fz-sink', 2, ['RUNNING', 'FAILED']);
  await call(api.router, 'POST', '/connectors', {
    body: { name: 'fz-source', config: sourceConfig() },
  });
  await call(api.router, 'POST', '/connectors', {
    body: { name: 'fz/slash', config: sinkConfig(), initial_state: 'STOPPED' },
  });
  return api;
}

describe('REST surface (property)', () => {
  it('never answers 5xx and always answers well-formed errors, request by request', async () => {
    // Prepare
    const api = await seeded();
    // Act + Assess
    await fc.assert(
      fc.asyncProperty(requestArbitrary(NAMES), async (request) => {
        const response = await api.router.handle(toHttpRequest(request));
        assertWellFormed(request, response);
      }),
      { numRuns: 1500 },
    );
  });

  it('stays well-formed over sequences of requests against evolving state', async () => {
    // Act + Assess
    await fc.assert(
      fc.asyncProperty(
        fc.array(requestArbitrary(NAMES), { minLength: 5, maxLength: 25 }),
        async (requests) => {
          const api = await seeded();
          for (const request of requests) {
            const response = await api.router.handle(toHttpRequest(request));
            assertWellFormed(request, response);
          }
        },
      ),
      { numRuns: 120 },
    );
  });
});
