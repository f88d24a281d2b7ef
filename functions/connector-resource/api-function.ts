import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ApiCall, ApiRequest } from './connector-requests.js';

/**
 * The control plane reached by invoking the api function directly with the API Gateway proxy
 * event a REST client's request would become (payload v1, resource `/{proxy+}`): the same
 * handler, router and validation as `curl`, with IAM's `lambda:InvokeFunction` as the
 * authorization instead of the REST API's. No network path to the API is needed, and the api
 * function may sit in a VPC without NAT.
 */

/** The proxy event of `request`, as API Gateway's REST API would deliver it. */
export function proxyEventOf(request: ApiRequest, requestId: string): APIGatewayProxyEvent {
  const body = request.body === undefined ? null : JSON.stringify(request.body);
  return {
    resource: '/{proxy+}',
    path: request.path,
    httpMethod: request.method,
    headers: body === null ? {} : { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { proxy: request.path.slice(1) },
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      path: request.path,
      httpMethod: request.method,
      requestId,
      resourcePath: '/{proxy+}',
    } as APIGatewayProxyEvent['requestContext'],
  };
}

export interface ApiFunctionOptions {
  readonly client: LambdaClient;
  readonly functionName: string;
  /** Correlates the api function's log lines with this invocation's. */
  readonly requestId: string;
  /** Epoch ms: a request still unanswered then is abandoned (the response must still be sent). */
  readonly deadline: number;
}

/** {@link ApiCall} through a synchronous invocation of the api function. */
export function apiFunctionCall(options: ApiFunctionOptions): ApiCall {
  return async (request) => {
    const output = await options.client.send(
      new InvokeCommand({
        FunctionName: options.functionName,
        InvocationType: 'RequestResponse',
        Payload: new TextEncoder().encode(JSON.stringify(proxyEventOf(request, options.requestId))),
      }),
      { abortSignal: AbortSignal.timeout(Math.max(1_000, options.deadline - Date.now())) },
    );
    const text = new TextDecoder().decode(output.Payload ?? new Uint8Array());
    if (output.FunctionError !== undefined) {
      const error = (() => {
        try {
          return (JSON.parse(text) as { errorMessage?: string }).errorMessage;
        } catch {
          return undefined;
        }
      })();
      throw new Error(
        `the api function failed (${output.FunctionError}) on ${request.method} ${request.path}: ${error ?? text}`,
      );
    }
    const result = JSON.parse(text) as APIGatewayProxyResult;
    const body = result.isBase64Encoded
      ? Buffer.from(result.body, 'base64').toString('utf8')
      : result.body;
    return { status: result.statusCode, body };
  };
}
