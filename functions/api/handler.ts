import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Engine } from '../../shared/engine/engine.js';
import { LOGGERS } from '../../shared/ports/logger.js';
import { composition } from '../_compose.js';
import { type FunctionHandler, invocation } from '../_middleware/invocation.js';
import { handleProxyEvent } from './proxy-event.js';

/** How long a response may wait for the enumerator nudges of its request. */
const NUDGE_WAIT_MS = 2_000;

/**
 * Waits, after each request, for the enumerator nudges it started, so the container is not
 * frozen with an invocation half sent.
 */
function settleNudges(engine: () => Engine): MiddlewareObj<APIGatewayProxyEvent> {
  const settle = async () => {
    await engine().service.settleNudges(NUDGE_WAIT_MS);
  };
  return { name: 'settle-nudges', after: settle, onError: settle };
}

/** The Kafka Connect REST API behind API Gateway (REST API, proxy integration on `/{proxy+}`). */
export function apiHandler(
  engine: () => Engine,
): FunctionHandler<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return middy(
    (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> =>
      handleProxyEvent(engine().router, event),
  )
    .use(invocation({ logger: LOGGERS.rest, loggers: () => engine().loggers }))
    .use(settleNudges(engine));
}

export const handler = apiHandler(() => composition().engine);
