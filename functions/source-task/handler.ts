import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { parseSourceTaskEvent } from '../../shared/adapters/lambda/events.js';
import { addLogContext } from '../../shared/adapters/logging/log-context.js';
import { LOGGERS, type LoggerFactory } from '../../shared/ports/logger.js';
import type { Metering } from '../../shared/runtime/metering/metering.js';
import {
  runSourceInvocation,
  type SourceRunResult,
  type SourceRuntimeDeps,
} from '../../shared/runtime/source/source-task-runner.js';
import { composition } from '../_compose.js';
import {
  type FunctionHandler,
  inLogContext,
  invocation,
  invocationOf,
  workerIdOf,
} from '../_middleware/invocation.js';
import { metered } from '../_middleware/metering.js';

/** What the handler needs: the source runtime, the loggers and the metering (the engine has them). */
export interface SourceTaskServices {
  readonly source: SourceRuntimeDeps;
  readonly loggers: LoggerFactory;
  /** @default none: the invocation is not metered */
  readonly metering?: Metering;
}

/** The invocation's result, with the error as its message. */
export type SourceTaskResult = Omit<SourceRunResult, 'error'> & { error?: string };

/**
 * One bounded invocation of a source task (`{"connector", "task", "generation"}`, invoked
 * asynchronously by the enumerator) until the deadline; its status and offsets live in the state
 * store.
 */
export function sourceTaskHandler(
  services: () => SourceTaskServices,
): FunctionHandler<unknown, SourceTaskResult> {
  const run = async (event: unknown, context: Context): Promise<SourceTaskResult> => {
    const { deadline, logger } = invocationOf(context);
    const { connector, task, generation, idleStreak } = parseSourceTaskEvent(event);
    addLogContext({ connector, task });
    const { error, ...result } = await runSourceInvocation(services().source, {
      connector,
      task,
      generation,
      owner: context.awsRequestId,
      workerId: workerIdOf(context),
      deadline,
      ...(idleStreak === undefined ? {} : { idleStreak }),
    });
    logger.info('source task invocation ended', {
      connector,
      task,
      ...result,
      ...(error === undefined ? {} : { error }),
    });
    return error === undefined ? result : { ...result, error: error.message };
  };
  return metered(
    'source-task',
    () => services().metering,
    middy(inLogContext(run)).use(
      invocation({ logger: LOGGERS.source, loggers: () => services().loggers }),
    ),
  );
}

export const handler = sourceTaskHandler(() => composition().engine);
