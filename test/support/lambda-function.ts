import type { APIGatewayProxyEvent } from 'aws-lambda';
import { inject } from 'vitest';
import { uniqueName } from './services.js';

/** An API Gateway proxy event (REST API, `/{proxy+}` on stage `prod`), as the api function gets it. */
export function proxyEvent(method: string, path: string, body?: unknown): APIGatewayProxyEvent {
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

/**
 * The environment the CDK app gives the functions, pointed at the test broker and dynalite, for
 * `functions/_compose.ts` to read (`Object.assign(process.env, functionEnvironment(table, ...))`).
 */
export function functionEnvironment(
  table: string,
  overrides: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return {
    STATE_TABLE: table,
    KAFKA_BROKERS: inject('kafkaBrokers').join(','),
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: 'us-east-1',
    LOG_LEVEL: 'error',
    ...overrides,
  };
}
