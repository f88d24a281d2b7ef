import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { parseEsmEvent } from '../../shared/adapters/lambda/esm-event.js';
import { addLogContext } from '../../shared/adapters/logging/log-context.js';
import { LOGGERS, type LoggerFactory } from '../../shared/ports/logger.js';
import type { Metering } from '../../shared/runtime/metering/metering.js';
import {
  runSinkInvocation,
  type SinkFunctionDeps,
  type SinkRunSummary,
} from '../../shared/runtime/sink/sink-task-runner.js';
import { composition } from '../_compose.js';
import {
  type FunctionHandler,
  inLogContext,
  invocation,
  invocationOf,
  workerIdOf,
} from '../_middleware/invocation.js';
import { metered } from '../_middleware/metering.js';

/** What the handler needs: the sink runtime, the loggers and the metering (the engine has them). */
export interface SinkTaskServices {
  readonly sink: SinkFunctionDeps;
  readonly loggers: LoggerFactory;
  /** @default none: the invocation is not metered */
  readonly metering?: Metering;
}

/**
 * One batch of Lambda's Kafka event source mapping: the connector comes from the function alias
 * the mapping invoked (`context.invokedFunctionArn`), the batch is written by the sink runtime,
 * and a failure is thrown so the mapping redelivers the batch.
 */
export function sinkTaskHandler(
  services: () => SinkTaskServices,
): FunctionHandler<unknown, SinkRunSummary> {
  const run = async (event: unknown, context: Context): Promise<SinkRunSummary> => {
    const { deadline, logger } = invocationOf(context);
    const { sink } = services();
    const connector = await sink.aliases.connectorOfArn(context.invokedFunctionArn);
    addLogContext({ connector });
    const summary = await runSinkInvocation(sink, {
      connector,
      records: () => parseEsmEvent(event),
      deadline,
      workerId: workerIdOf(context),
    });
    logger.info('sink batch written', { ...summary });
    return summary;
  };
  return metered(
    'sink-task',
    () => services().metering,
    middy(inLogContext(run)).use(
      invocation({ logger: LOGGERS.sink, loggers: () => services().loggers }),
    ),
  );
}

export const handler = sinkTaskHandler(() => composition().engine);
