import type { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyEvent, CloudFormationCustomResourceResponse } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handleProxyEvent } from '../../../../functions/api/proxy-event.js';
import { apiFunctionCall } from '../../../../functions/connector-resource/api-function.js';
import {
  MAX_RESPONSE_BYTES,
  responseBody,
} from '../../../../functions/connector-resource/cfn-response.js';
import { connectorResourceHandler } from '../../../../functions/connector-resource/handler.js';
import { localLambdaContext } from '../../../../local/esm/lambda-context.js';
import type { HttpRequest, Router } from '../../../../shared/control-plane/router.js';
import { silentLoggers } from '../../../../shared/ports/logger.js';
import { createEvent } from './cfn-events.js';

const EVENT = createEvent('orders');

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('responseBody', () => {
  it('answers CloudFormation with the whole reason when it fits', () => {
    const body = responseBody(EVENT, { status: 'FAILED', physicalResourceId: 'x', reason: 'bad' });
    expect(body).toEqual({
      Status: 'FAILED',
      Reason: 'bad',
      PhysicalResourceId: 'x',
      StackId: EVENT.StackId,
      RequestId: 'request-1',
      LogicalResourceId: 'Orders',
    });
  });

  it("cuts a long reason at a character boundary to CloudFormation's 4,096-byte limit", () => {
    // Prepare: multi-byte characters and newlines, which JSON escaping lengthens.
    const reason = `${'Invalid value é for configuration x\n'.repeat(400)}END`;
    // Act
    const body = responseBody(EVENT, { status: 'FAILED', physicalResourceId: 'x', reason });
    // Assess
    expect(bytes(body)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    expect(bytes(body)).toBeGreaterThan(MAX_RESPONSE_BYTES - 64);
    const cut = body.Status === 'FAILED' ? body.Reason : '';
    expect(cut.endsWith(' … (truncated)')).toBe(true);
    expect(reason.startsWith(cut.slice(0, -' … (truncated)'.length))).toBe(true);
  });
});

describe('connectorResourceHandler', () => {
  it("sends the outcome to the request's response URL, FAILED with the API's message", async () => {
    // Prepare
    const sent: { url: string; body: CloudFormationCustomResourceResponse }[] = [];
    const handler = connectorResourceHandler({
      api: () => async () => ({
        status: 400,
        body: JSON.stringify({ error_code: 400, message: 'Missing required configuration' }),
      }),
      loggers: silentLoggers,
      respond: async (url, body) => {
        sent.push({ url, body });
      },
    });
    // Act
    await handler(EVENT, localLambdaContext({ functionName: 'handler', timeoutMs: 120_000 }));
    // Assess
    expect(sent).toEqual([
      {
        url: EVENT.ResponseURL,
        body: expect.objectContaining({
          Status: 'FAILED',
          Reason:
            'Kafka Connect REST API answered 400 to POST /connectors: Missing required configuration',
        }),
      },
    ]);
  });
});

/** A LambdaClient whose Invoke runs `answer` on the payload, recording the commands. */
function fakeLambda(
  answer: (event: APIGatewayProxyEvent) => Promise<{ Payload: Uint8Array; FunctionError?: string }>,
) {
  const commands: InvokeCommand[] = [];
  const client = {
    send: async (command: InvokeCommand) => {
      commands.push(command);
      const payload = new TextDecoder().decode(command.input.Payload as Uint8Array);
      return answer(JSON.parse(payload) as APIGatewayProxyEvent);
    },
  } as unknown as LambdaClient;
  return { client, commands };
}

describe('apiFunctionCall', () => {
  it('invokes the api function synchronously with the proxy event the router reads back', async () => {
    // Prepare: a router that echoes the request it got.
    const seen: HttpRequest[] = [];
    const router = {
      handle: async (request: HttpRequest) => {
        seen.push(request);
        return { status: 201, headers: {}, body: '{"name":"a/b"}' };
      },
    } as unknown as Router;
    const { client, commands } = fakeLambda(async (event) => ({
      Payload: new TextEncoder().encode(JSON.stringify(await handleProxyEvent(router, event))),
    }));
    const call = apiFunctionCall({
      client,
      functionName: 'api-fn',
      requestId: 'r-1',
      deadline: Date.now() + 30_000,
    });
    // Act
    const response = await call({
      method: 'PUT',
      path: '/connectors/a%2Fb/config',
      body: { x: '1' },
    });
    // Assess
    expect(response).toEqual({ status: 201, body: '{"name":"a/b"}' });
    expect(commands[0]?.input).toMatchObject({
      FunctionName: 'api-fn',
      InvocationType: 'RequestResponse',
    });
    expect(seen).toEqual([
      expect.objectContaining({
        method: 'PUT',
        path: '/connectors/a%2Fb/config',
        body: '{"x":"1"}',
        requestId: 'r-1',
      }),
    ]);
  });

  it("throws the function's error message when the api function fails", async () => {
    const { client } = fakeLambda(async () => ({
      FunctionError: 'Unhandled',
      Payload: new TextEncoder().encode(JSON.stringify({ errorMessage: 'Task timed out' })),
    }));
    const call = apiFunctionCall({
      client,
      functionName: 'api-fn',
      requestId: 'r',
      deadline: Date.now() + 5_000,
    });
    await expect(call({ method: 'DELETE', path: '/connectors/a' })).rejects.toThrow(
      'the api function failed (Unhandled) on DELETE /connectors/a: Task timed out',
    );
  });
});
