import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { localLambdaContext } from '../../../local/esm/lambda-context.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { functionEnvironment, proxyEvent } from '../../support/lambda-function.js';
import { testDynamo, uniqueName } from '../../support/services.js';

/** `LOG_LEVEL_REFRESH_SECONDS` of this test: how long a level change may take to apply. */
const REFRESH_SECONDS = 5;

/**
 * The deployed composition (functions/_compose.ts `compose()`, env as the CDK app sets it) over
 * dynalite, its api handler invoked as Lambda does: `PUT /admin/loggers/...` changes what the
 * function logs within LOG_LEVEL_REFRESH_SECONDS, without a new container.
 */
describe('log levels in a deployed function', () => {
  const table = uniqueName('levels');
  let handler: typeof import('../../../functions/api/handler.js');
  let compose: typeof import('../../../functions/_compose.js');
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    await ensureTable(testDynamo(), table);
    Object.assign(
      process.env,
      functionEnvironment(table, {
        LOG_LEVEL: 'info',
        LOG_LEVEL_REFRESH_SECONDS: String(REFRESH_SECONDS),
      }),
    );
    const write = process.stdout.write.bind(process.stdout);
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk, ...rest) => {
      const text = String(chunk);
      if (text.startsWith('{"level"')) {
        lines.push(JSON.parse(text) as Record<string, unknown>);
        return true;
      }
      return write(chunk, ...(rest as []));
    });
    compose = await import('../../../functions/_compose.js');
    handler = await import('../../../functions/api/handler.js');
  });

  afterAll(async () => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    await compose.composition().close();
  });

  /** One GET /connectors, as a new invocation; the router's debug lines of it. */
  async function listConnectors(): Promise<Record<string, unknown>[]> {
    const context = localLambdaContext({ functionName: 'api', timeoutMs: 29_000 });
    const result = await handler.handler(proxyEvent('GET', '/connectors'), context);
    expect(result.statusCode).toBe(200);
    return lines.filter(
      (l) =>
        l.level === 'debug' && l.message === 'request' && l.awsRequestId === context.awsRequestId,
    );
  }

  async function setLevel(level: string): Promise<void> {
    const context = localLambdaContext({ functionName: 'api', timeoutMs: 29_000 });
    const result = await handler.handler(
      proxyEvent('PUT', '/admin/loggers/serverless-connect.rest', { level }),
      context,
    );
    expect(result.statusCode).toBe(200);
  }

  it('emits debug lines once the refresh interval has passed after PUT /admin/loggers, and stops after the reverse', async () => {
    // Prepare: the clock the function reads (Date) stands still unless the test moves it, so
    // what "within the interval" means does not depend on how busy the machine is.
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    const at = (seconds: number) => vi.setSystemTime(start + seconds * 1_000);
    // The container's first invocation reads the levels (none stored: LOG_LEVEL info).
    expect(await listConnectors()).toEqual([]);
    // Act: DEBUG through the API; within the interval the container keeps its levels...
    await setLevel('DEBUG');
    at(REFRESH_SECONDS - 1);
    expect(await listConnectors()).toEqual([]);
    // ...and the first invocation after it reads them again.
    at(REFRESH_SECONDS);
    const debug = await listConnectors();
    // Assess: debug lines, with the invocation's correlation fields.
    expect(debug).toEqual([
      expect.objectContaining({
        logger: 'serverless-connect.rest',
        function: 'api',
        awsRequestId: expect.any(String),
        method: 'GET',
      }),
    ]);

    // Act: back to INFO, seen one interval later.
    await setLevel('INFO');
    expect(await listConnectors()).toHaveLength(1);
    at(2 * REFRESH_SECONDS);
    // Assess
    expect(await listConnectors()).toEqual([]);
  });
});
