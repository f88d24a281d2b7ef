import { LambdaClient } from '@aws-sdk/client-lambda';
import middy from '@middy/core';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { jsonLogger } from '../../shared/adapters/logging/json-logger.js';
import { LOGGERS, type LoggerFactory } from '../../shared/ports/logger.js';
import { type ConnectorResourceEnv, readConnectorResourceEnv } from '../_env.js';
import { type FunctionHandler, invocation, invocationOf } from '../_middleware/invocation.js';
import { apiFunctionCall } from './api-function.js';
import { responseBody, sendResponse } from './cfn-response.js';
import { type ApiCall, applyConnectorEvent } from './connector-requests.js';

export interface ConnectorResourceDeps {
  /** The control plane for one invocation, given its request id and deadline. */
  readonly api: (invocation: { requestId: string; deadline: number }) => ApiCall;
  readonly loggers: LoggerFactory;
  /** @default sendResponse (PUT to the pre-signed URL) */
  readonly respond?: typeof sendResponse;
}

/**
 * The CDK `Connector` construct's custom resource (infra/lib/connector.ts): each CloudFormation
 * request becomes Kafka Connect REST calls through the api function
 * (`connector-requests.ts`), and the outcome is sent to CloudFormation, a failure with Connect's
 * message as its reason. It always answers, so a stack never waits for a lost response.
 */
export function connectorResourceHandler(
  deps: ConnectorResourceDeps,
): FunctionHandler<CloudFormationCustomResourceEvent, void> {
  const respond = deps.respond ?? sendResponse;
  return middy(async (event: CloudFormationCustomResourceEvent, context: Context) => {
    const { deadline, logger } = invocationOf(context);
    const api = deps.api({ requestId: context.awsRequestId, deadline });
    const outcome = await applyConnectorEvent(event, api);
    const fields = {
      requestType: event.RequestType,
      logicalResourceId: event.LogicalResourceId,
      connector: outcome.physicalResourceId,
    };
    if (outcome.status === 'FAILED') logger.warn(outcome.reason, fields);
    else logger.info('connector resource applied', fields);
    await respond(event.ResponseURL, responseBody(event, outcome));
  }).use(invocation({ logger: LOGGERS.connectorResource, loggers: () => deps.loggers }));
}

let env: ConnectorResourceEnv | undefined;
let lambda: LambdaClient | undefined;
const settings = () => {
  env ??= readConnectorResourceEnv();
  return env;
};

export const handler = connectorResourceHandler({
  api:
    ({ requestId, deadline }) =>
    (request) => {
      const { apiFunction, region } = settings();
      if (apiFunction === undefined) {
        throw new Error('Missing required environment variable API_FUNCTION');
      }
      lambda ??= new LambdaClient({ region });
      const call = apiFunctionCall({
        client: lambda,
        functionName: apiFunction,
        requestId,
        deadline,
      });
      return call(request);
    },
  loggers: (name, context = {}) => jsonLogger(settings().logLevel, { logger: name, ...context }),
});
