import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHandler } from '../../../functions/api/handler.js';
import { startApiServer } from '../../../local/api-server.js';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { openApiDocument } from '../../../shared/control-plane/openapi.js';
import type { Clock } from '../../../shared/ports/clock.js';
import { DEFAULT_PRICES } from '../../../shared/runtime/metering/prices.js';
import { UsageScopes } from '../../../shared/runtime/metering/usage-scopes.js';
import { testEngine } from '../../support/engine.js';
import { testPlugins } from '../../support/plugin-modules.js';
import { testDynamo, uniqueName } from '../../support/services.js';
import {
  RecordingTrigger,
  sinkConfig,
  testSinkDescriptor,
} from '../../unit/shared/control-plane/fixtures.js';

/** The clock stands still: every metered call is billed Lambda's minimum, 1 ms (at 512 MB). */
const NOW = Date.parse('2026-12-11T12:30:00Z');
const clock: Clock = { now: () => NOW };

/**
 * `GET /connectors/{c}/cost` and `GET /connectors?expand=cost` (our extension) over HTTP: the
 * api function's handler, metered, on the local API server, the state on dynalite.
 */
describe('REST API: cost (serverless-connect extension)', () => {
  let url: string;
  let close: () => Promise<void>;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  const http = async (method: string, path: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${url}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
    });
    return { status: response.status, body: await response.json().catch(() => undefined) };
  };

  beforeAll(async () => {
    const client = testDynamo();
    const tableName = uniqueName('cost');
    await ensureTable(client, tableName);
    const usage = new UsageScopes(clock);
    const store = createDynamoDbStateStore({ client, tableName, clock, usage });
    const built = await testEngine({
      store,
      usage,
      clock,
      pluginModules: testPlugins(testSinkDescriptor),
      reconcile: new RecordingTrigger(),
    });
    const server = await startApiServer({
      host: '127.0.0.1',
      port: 0,
      handler: apiHandler(() => built.engine),
    });
    url = server.url;
    close = async () => {
      await server.close();
      await built.close();
      client.destroy();
    };
  });

  afterAll(async () => {
    await close?.();
  });

  it('reports the calls made about a connector, and its share of the others, priced by line', async () => {
    // Prepare: one call naming no connector (the create) and one about a connector that does
    // not exist go to the shared line; two status reads are the connector's.
    const created = await http('POST', '/connectors', {
      name: 'orders',
      config: sinkConfig(),
    });
    await http('GET', '/connectors/orders/status');
    await http('GET', '/connectors/orders/status');
    const ghost = await http('GET', '/connectors/ghost/status');
    // Act
    const { status, body } = await http('GET', '/connectors/orders/cost');
    // Assess: 2 own + 2 shared calls (1 connector shares the shared line), 1 ms x 512 MB each
    expect([created.status, ghost.status, status]).toEqual([201, 404, 200]);
    const mtd = body.month_to_date;
    expect(body).toMatchObject({
      name: 'orders',
      currency: 'USD',
      as_of: '2026-12-11T12:30:00.000Z',
      prices: DEFAULT_PRICES,
      shared: { connectors: 1 },
    });
    expect(mtd.usage).toMatchObject({ invocations: 4, api_calls: 4, lambda_gb_seconds: 0.002 });
    expect(mtd.lines.api_gateway).toBeCloseTo(4 * 3.5e-6, 15);
    expect(mtd.lines.lambda_requests).toBeCloseTo(4 * 0.2e-6, 15);
    expect(mtd.lines.lambda_compute).toBeCloseTo(0.002 * 0.0000133334, 15);
    // The state store's units as dynalite reported them, at the on-demand prices
    expect(mtd.usage.dynamodb_requests).toBeGreaterThan(0);
    expect(mtd.lines.dynamodb).toBeCloseTo(
      mtd.usage.dynamodb_read_units * 0.125e-6 + mtd.usage.dynamodb_write_units * 0.625e-6,
      15,
    );
    const lines = Object.values(mtd.lines) as number[];
    expect(mtd.total_dollars).toBeCloseTo(
      lines.reduce((a, b) => a + b, 0),
      15,
    );
    expect(mtd.records).toEqual({ in: 0, out: 0, moved: 0 });
    expect(mtd.dollars_per_million_records).toBeNull();
    expect(body.last_24_hours.usage.api_calls).toBe(4);
    expect(mtd.msk_connect.mcus).toBe(1);
  });

  it('adds cost to each connector with expand=cost, beside status and info', async () => {
    // Act: the cost read above was a call about orders too
    const { status, body } = await http('GET', '/connectors?expand=cost&expand=info');
    // Assess
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['orders']);
    expect(body.orders.info.name).toBe('orders');
    expect(body.orders.cost).toMatchObject({ name: 'orders', currency: 'USD' });
    expect(body.orders.cost.month_to_date.usage.api_calls).toBe(5);
  });

  it("answers 404 with Connect's error body for an unknown connector", async () => {
    // Act
    const { status, body } = await http('GET', '/connectors/nope/cost');
    // Assess
    expect(status).toBe(404);
    expect(body).toEqual({ error_code: 404, message: 'Connector nope not found' });
  });

  it('is described in the OpenAPI document as our extension, not Apache Kafka Connect’s', async () => {
    // Act
    const { body } = await http('GET', '/openapi.json');
    // Assess
    const operation = body.paths['/connectors/{connector}/cost'].get;
    expect(operation['x-serverless-connect-extension']).toBe(true);
    expect(operation.description).toContain('not part of the Apache Kafka Connect REST API');
    expect(body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });
});
