import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Engine } from '../../shared/engine/engine.js';
import { LOGGERS } from '../../shared/ports/logger.js';
import { composition } from '../_compose.js';
import { type FunctionHandler, inLogContext, invocation } from '../_middleware/invocation.js';
import { metered } from '../_middleware/metering.js';
import { handleProxyEvent } from './proxy-event.js';

/** How long a response may wait for the enumerator nudges of its request. */
const NUDGE_WAIT_MS = 2_000;

/**
 * Waits, after each request, for the enumerator nudges it started, so the container is not
 * frozen with an invocation half sent.
 */
function waitForNudges(engine: () => Engine): MiddlewareObj<APIGatewayProxyEvent> {
  const wait = async () => {
    await engine().service.waitForNudges(NUDGE_WAIT_MS);
  };
  return { name: 'wait-for-nudges', after: wait, onError: wait };
}

/** The Kafka Connect REST API behind API Gateway (REST API, proxy integration on `/{proxy+}`). */
export function apiHandler(
  engine: () => Engine,
): FunctionHandler<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return metered(
    'api',
    () => engine().metering,
    middy(
      inLogContext(
        (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> =>
          handleProxyEvent(engine().router, event),
      ),
    )
      .use(invocation({ logger: LOGGERS.rest, loggers: () => engine().loggers }))
      .use(waitForNudges(engine)),
  );
}

export const handler = apiHandler(() => composition().engine);
