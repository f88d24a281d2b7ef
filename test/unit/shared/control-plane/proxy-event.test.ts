import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { rawPathOf, toHttpRequest } from '../../../../functions/api/proxy-event.js';
import { isLoopback } from '../../../../local/api-server.js';

function event(overrides: Partial<APIGatewayProxyEvent>): APIGatewayProxyEvent {
  return {
    resource: '/{proxy+}',
    path: '/',
    httpMethod: 'GET',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {} as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}

const context = (path: string, stage = 'prod') =>
  ({ path, stage, requestId: 'r' }) as unknown as APIGatewayProxyEvent['requestContext'];

describe('rawPathOf', () => {
  it.each([
    [
      'an encoded path equal to the sent one',
      '/connectors/a%2Fb',
      '/connectors/a%2Fb',
      '/connectors/a%2Fb',
    ],
    [
      'the stage prefix removed',
      '/connectors/a%2Fb',
      '/prod/connectors/a%2Fb',
      '/connectors/a%2Fb',
    ],
    [
      'a decoded path, encoded one sent',
      '/connectors/a/b',
      '/prod/connectors/a%2Fb',
      '/connectors/a%2Fb',
    ],
    ['a custom domain base path', '/connectors/x', '/api/v1/connectors/x', '/connectors/x'],
    ['no match: the event path', '/connectors/x', '/elsewhere', '/connectors/x'],
  ])('keeps %s', (_case, path, sent, expected) => {
    // Act
    const raw = rawPathOf(event({ path, requestContext: context(sent) }));
    // Assess
    expect(raw).toBe(expected);
  });
});

describe('toHttpRequest', () => {
  it('decodes a base64 body and keeps every query value', () => {
    // Prepare
    const e = event({
      httpMethod: 'POST',
      path: '/connectors',
      body: Buffer.from('{"a":1}').toString('base64'),
      isBase64Encoded: true,
      queryStringParameters: { expand: 'info' },
      multiValueQueryStringParameters: { expand: ['status', 'info'] },
      requestContext: context('/prod/connectors'),
    });
    // Act
    const request = toHttpRequest(e);
    // Assess
    expect(request).toMatchObject({
      method: 'POST',
      path: '/connectors',
      body: '{"a":1}',
      query: { expand: ['status', 'info'] },
      requestId: 'r',
    });
  });
});

describe('isLoopback', () => {
  it('tells loopback addresses from public ones', () => {
    // Act
    const results = ['127.0.0.1', 'localhost', '::1', '0.0.0.0', '::', '10.0.0.5'].map(isLoopback);
    // Assess
    expect(results).toEqual([true, true, true, false, false, false]);
  });
});
