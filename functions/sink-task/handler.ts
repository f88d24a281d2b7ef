import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Logger } from '../../shared/ports/logger.js';
import {
  runSinkInvocation,
  type SinkFunctionDeps,
  type SinkRunSummary,
} from '../../shared/runtime/sink/sink-task-runner.js';
import { composition } from '../_compose.js';

/** Time kept back from the Lambda timeout for preCommit and the offset commits. */
const safetyMarginMs = 10_000;

/** What the handler needs from the container's composition. */
export interface SinkTaskServices {
  readonly sink: SinkFunctionDeps;
  readonly logger: Logger;
}

/**
 * The sink-task handler over `services`: the connector comes from the function alias the
 * mapping invoked (`context.invokedFunctionArn`), the batch is written by the sink runtime,
 * and any failure is thrown so the event source mapping redelivers the batch.
 */
export function createSinkTaskHandler(services: () => SinkTaskServices) {
  return async (event: unknown, context: Context): Promise<SinkRunSummary> => {
    const { sink, logger } = services();
    const connector = await sink.aliases.connectorOfArn(context.invokedFunctionArn);
    const deadline =
      Date.now() + Math.max(1_000, context.getRemainingTimeInMillis() - safetyMarginMs);
    try {
      const summary = await runSinkInvocation(sink, {
        connector,
        event,
        deadline,
        workerId: context.logStreamName || context.functionName,
      });
      logger.info('sink batch written', { ...summary });
      return summary;
    } catch (error) {
      logger.error('sink batch failed; the event source mapping redelivers it', {
        connector,
        error,
      });
      throw error;
    }
  };
}

export const handler = middy(createSinkTaskHandler(composition));
