import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  APIGatewayProxyEvent,
  CloudFormationCustomResourceEvent,
  CloudFormationCustomResourceResponse,
} from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_FAILED } from '../../../functions/connector-resource/connector-requests.js';
import { localLambdaContext } from '../../../local/esm/lambda-context.js';
import {
  connectorPath,
  type E2eRuntime,
  eventually,
  startE2eRuntime,
  uniqueName,
} from '../e2e/support.js';

/**
 * The CDK Connector construct's custom resource against `npm start`'s runtime: the deployed
 * handler module (`functions/connector-resource/handler.ts`, composed from its environment)
 * receives CloudFormation's events; its Lambda client invokes the api function through a Lambda
 * Invoke API stand-in that hands each proxy event to the runtime's REST API, where it becomes
 * the same proxy event for the same api handler; its responses go to a pre-signed URL stand-in.
 */

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Lambda's `POST /2015-03-31/functions/{name}/invocations`, forwarding to the runtime's API. */
function lambdaInvokeStandIn(runtimeUrl: string, invoked: string[]): Server {
  return createServer(async (request, response) => {
    const name = /^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(request.url ?? '')?.[1];
    const event = JSON.parse(await readBody(request)) as APIGatewayProxyEvent;
    invoked.push(`${decodeURIComponent(name ?? '?')} ${event.httpMethod} ${event.path}`);
    const answer = await fetch(`${runtimeUrl}${event.path}`, {
      method: event.httpMethod,
      headers: event.headers as Record<string, string>,
      ...(event.body === null ? {} : { body: event.body }),
    });
    const result = { statusCode: answer.status, headers: {}, body: await answer.text() };
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify(result));
  });
}

describe('the Connector custom resource through the local runtime', { timeout: 120_000 }, () => {
  let e2e: E2eRuntime;
  let lambda: Server;
  let responses: Server;
  let responseUrl: string;
  const invoked: string[] = [];
  const answers = new Map<string, CloudFormationCustomResourceResponse>();
  let handler: typeof import('../../../functions/connector-resource/handler.js');

  beforeAll(async () => {
    e2e = await startE2eRuntime();
    lambda = lambdaInvokeStandIn(e2e.runtime.url, invoked);
    responses = createServer(async (request, response) => {
      answers.set(request.url ?? '', JSON.parse(await readBody(request)));
      response.writeHead(200).end();
    });
    responseUrl = await listen(responses);
    Object.assign(process.env, {
      API_FUNCTION: 'sc-api',
      AWS_ENDPOINT_URL_LAMBDA: await listen(lambda),
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      LOG_LEVEL: 'error',
    });
    handler = await import('../../../functions/connector-resource/handler.js');
  });

  afterAll(async () => {
    lambda?.close();
    responses?.close();
    await e2e?.close();
  });

  /** Sends one CloudFormation request to the handler and returns what it answered. */
  async function send(
    request: Record<string, unknown> & { RequestType: string },
  ): Promise<CloudFormationCustomResourceResponse> {
    const requestId = uniqueName('cfn');
    const event = {
      ServiceToken: 'arn:aws:lambda:eu-west-1:111122223333:function:connector-resource',
      ResponseURL: `${responseUrl}/${requestId}`,
      StackId: 'arn:aws:cloudformation:eu-west-1:111122223333:stack/connectors/1',
      RequestId: requestId,
      LogicalResourceId: 'Connector',
      ResourceType: 'Custom::KafkaConnector',
      ...request,
    } as unknown as CloudFormationCustomResourceEvent;
    const context = localLambdaContext({ functionName: 'connector-resource', timeoutMs: 120_000 });
    await handler.handler(event, context);
    const answer = answers.get(`/${requestId}`);
    if (answer === undefined) throw new Error('the handler sent no response');
    return answer;
  }

  const properties = (name: string, config: Record<string, string>, state = 'RUNNING') => ({
    ServiceToken: 'arn:aws:lambda:eu-west-1:111122223333:function:connector-resource',
    ConnectorName: name,
    Config: config,
    InitialState: state,
  });

  const datagen = (topic: string, extra: Record<string, string> = {}) => ({
    'connector.class': 'datagen',
    'kafka.topic': topic,
    'rate.per.second': '5',
    ...extra,
  });

  it('creates, updates and deletes a connector through the control plane', async () => {
    // Prepare
    const name = uniqueName('cfn-orders');
    const topic = uniqueName('cfn-topic');
    const created = properties(name, datagen(topic), 'PAUSED');
    const updated = properties(name, datagen(topic, { 'rate.per.second': '50' }), 'PAUSED');

    // Act: create
    const create = await send({ RequestType: 'Create', ResourceProperties: created });
    // Assess
    expect(create).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: name });
    expect((await e2e.http('GET', '/connectors')).body).toContain(name);
    expect((await e2e.http('GET', connectorPath(name, '/config'))).body).toEqual({
      ...datagen(topic),
      name,
    });
    const paused = await eventually(
      () => e2e.http('GET', connectorPath(name, '/status')),
      (res) => res.body?.connector?.state === 'PAUSED',
      30_000,
      'the connector PAUSED, its initial state',
    );
    expect(paused.body.connector.state).toBe('PAUSED');

    // Act: update
    const update = await send({
      RequestType: 'Update',
      PhysicalResourceId: name,
      ResourceProperties: updated,
      OldResourceProperties: created,
    });
    // Assess
    expect(update).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: name });
    expect((await e2e.http('GET', connectorPath(name, '/config'))).body).toMatchObject({
      'rate.per.second': '50',
    });
    expect((await e2e.http('GET', connectorPath(name, '/status'))).body.connector.state).toBe(
      'PAUSED',
    );

    // Act: delete, twice (CloudFormation may repeat a delete)
    const removed = await send({
      RequestType: 'Delete',
      PhysicalResourceId: name,
      ResourceProperties: updated,
    });
    const again = await send({
      RequestType: 'Delete',
      PhysicalResourceId: name,
      ResourceProperties: updated,
    });
    // Assess
    expect([removed.Status, again.Status]).toEqual(['SUCCESS', 'SUCCESS']);
    expect((await e2e.http('GET', connectorPath(name))).status).toBe(404);
    expect(invoked).toContain(`sc-api DELETE ${connectorPath(name)}`);
  });

  it("fails a bad config with Connect's validation message and creates nothing", async () => {
    // Prepare: datagen without its required kafka.topic.
    const name = uniqueName('cfn-bad');
    // Act
    const answer = await send({
      RequestType: 'Create',
      ResourceProperties: properties(name, { 'connector.class': 'datagen', 'tasks.max': '0' }),
    });
    // Assess
    expect(answer).toMatchObject({ Status: 'FAILED', PhysicalResourceId: CREATE_FAILED });
    const reason = answer.Status === 'FAILED' ? answer.Reason : '';
    expect(reason).toMatch(/^Kafka Connect REST API answered 400 to POST \/connectors: /);
    expect(reason).toContain('Missing required configuration "kafka.topic"');
    expect(reason).toContain('tasks.max');
    expect((await e2e.http('GET', '/connectors')).body).not.toContain(name);
  });
});
