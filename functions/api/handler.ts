import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ConnectService } from '../../shared/control-plane/connect-service.js';
import { createRouter, type Router } from '../../shared/control-plane/router.js';
import { systemClock } from '../../shared/ports/clock.js';
import { composition } from '../_compose.js';
import { handleProxyEvent } from './proxy-event.js';

/**
 * The Kafka Connect REST API behind API Gateway (REST API, proxy integration on `/{proxy+}`).
 * Environment beyond `_env.ts`: `KAFKA_CLUSTER_ID` (the `kafka_cluster_id` of `GET /`) and
 * `BUILD_COMMIT` (its `commit`), both optional.
 */
interface Api {
  readonly router: Router;
  readonly service: ConnectService;
}

let built: Api | undefined;

function build(): Api {
  const { env, store, plugins, logger, reconcile, kafka, admin } = composition();
  // Offsets requests right after a stop fence the stopped tasks themselves (stop-fencing.ts).
  const fencing = {
    kafka,
    admin,
    transactionalIdPrefix: env.transactionalIdPrefix,
    offsetsTopic: env.offsetsTopic,
  };
  const service = new ConnectService(
    { store, plugins, reconcile, clock: systemClock, logger, fencing },
    {
      kafkaClusterId: process.env.KAFKA_CLUSTER_ID?.trim() || 'unknown',
      commit: process.env.BUILD_COMMIT?.trim() || 'unknown',
      workerId: process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'serverless-connect',
      exactlyOnceSourceEnabled: env.exactlyOnceSource,
      topicTracking: env.topicTracking,
    },
  );
  return { service, router: createRouter(service, { logger, clock: systemClock }) };
}

/** How long a response may wait for the enumerator nudges of its request. */
const NUDGE_WAIT_MS = 2_000;

/** One API request; waits for the enumerator nudges it started before the container freezes. */
export async function api(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  built ??= build();
  try {
    return await handleProxyEvent(built.router, event);
  } finally {
    await built.service.settleNudges(NUDGE_WAIT_MS);
  }
}

export const handler = middy(api);
