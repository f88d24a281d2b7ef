import middy from '@middy/core';
import { connectorOfItemKeys } from '../../shared/adapters/dynamodb/table-schema.js';
import { enumeratorRunScope } from '../../shared/adapters/lambda/events.js';
import type { Engine } from '../../shared/engine/engine.js';
import { enumerate } from '../../shared/engine/enumerate.js';
import { LOGGERS } from '../../shared/ports/logger.js';
import type { ConnectorReport } from '../../shared/runtime/enumerator/enumerator-types.js';
import { composition } from '../_compose.js';
import { type FunctionHandler, inLogContext, invocation } from '../_middleware/invocation.js';
import { metered } from '../_middleware/metering.js';

/**
 * One enumerator run: on the one-minute schedule (EventBridge), a nudge from the REST API
 * (`{"connector": name}`), the state table's stream (the connectors whose items changed), or an
 * S3 object-created notification (the S3 sources reading the object). Failures of single
 * connectors are in the reports, not thrown.
 */
export function enumeratorHandler(
  engine: () => Engine,
): FunctionHandler<unknown, { reports: ConnectorReport[] }> {
  return metered(
    'enumerator',
    () => engine().metering,
    middy(
      inLogContext(
        async (event: unknown): Promise<{ reports: ConnectorReport[] }> => ({
          reports: await enumerate(engine(), enumeratorRunScope(event, connectorOfItemKeys)),
        }),
      ),
    ).use(invocation({ logger: LOGGERS.enumerator, loggers: () => engine().loggers })),
  );
}

export const handler = enumeratorHandler(() => composition().engine);
