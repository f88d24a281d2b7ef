import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localLambdaContext } from '../../../local/esm/lambda-context.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { testDynamo, uniqueName } from '../../support/services.js';

function proxyEvent(method: string, path: string, body?: unknown): APIGatewayProxyEvent {
  return {
    resource: '/{proxy+}',
    path,
    httpMethod: method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { proxy: path.slice(1) },
    stageVariables: null,
    body: body === undefined ? null : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      path: `/prod${path}`,
      stage: 'prod',
      requestId: uniqueName('req'),
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

/** A Lambda context of the API function. */
const apiContext = () => localLambdaContext({ functionName: 'api', timeoutMs: 29_000 });

/** The Lambda entry point, composed from the environment as in AWS, against dynalite. */
describe('functions/api handler', () => {
  const table = uniqueName('api');
  let handler: typeof import('../../../functions/api/handler.js');
  let compose: typeof import('../../../functions/_compose.js');

  beforeAll(async () => {
    await ensureTable(testDynamo(), table);
    Object.assign(process.env, {
      STATE_TABLE: table,
      KAFKA_BROKERS: inject('kafkaBrokers').join(','),
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'error',
      KAFKA_CLUSTER_ID: 'lambda-cluster',
    });
    compose = await import('../../../functions/_compose.js');
    handler = await import('../../../functions/api/handler.js');
  });

  afterAll(async () => {
    await compose.composition().close();
  });

  it('answers GET / with the cluster id from the environment', async () => {
    // Act
    const result = await handler.handler(proxyEvent('GET', '/'), apiContext());
    // Assess
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).kafka_cluster_id).toBe('lambda-cluster');
  });

  it('creates a connector named with "/" and reads its status through the stage path', async () => {
    // Prepare
    const name = `${uniqueName('team')}/orders`;
    const path = `/connectors/${encodeURIComponent(name)}`;
    // Act
    const created = await handler.handler(
      proxyEvent('POST', '/connectors', {
        name,
        config: { 'connector.class': 'datagen', 'kafka.topic': 'orders' },
      }),
      apiContext(),
    );
    const status = await handler.handler(proxyEvent('GET', `${path}/status`), apiContext());
    // Assess
    expect(created.statusCode).toBe(201);
    expect(created.headers?.Location).toBe(path);
    expect(status.statusCode).toBe(200);
    expect(JSON.parse(status.body)).toMatchObject({
      name,
      connector: { state: 'UNASSIGNED' },
      type: 'source',
    });
  });

  it('answers bad input with a 400 error body and the request id header', async () => {
    // Act
    const result = await handler.handler(
      proxyEvent('POST', '/connectors', '{not json'),
      apiContext(),
    );
    // Assess
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body).error_code).toBe(400);
    expect(result.headers?.['X-Request-Id']).toMatch(/^req-/);
  });
});
