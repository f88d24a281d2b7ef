import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { ConfigError } from '../../shared/connect/errors.js';
import {
  runSourceInvocation,
  type SourceRunResult,
} from '../../shared/runtime/source/source-task-runner.js';
import { composition } from '../_compose.js';

/** The enumerator's asynchronous invocation of one source task. */
export interface SourceTaskEvent {
  readonly connector: string;
  readonly task: number;
  readonly generation: number;
}

/** Time kept back from the Lambda timeout for the final commit and the lease release. */
const safetyMarginMs = 10_000;

export function parseSourceTaskEvent(event: unknown): SourceTaskEvent {
  const e = (event ?? {}) as Record<string, unknown>;
  const ok =
    typeof e.connector === 'string' &&
    e.connector.length > 0 &&
    Number.isInteger(e.task) &&
    (e.task as number) >= 0 &&
    Number.isInteger(e.generation) &&
    (e.generation as number) >= 0;
  if (!ok) {
    throw new ConfigError(
      'A source-task event needs {"connector": <name>, "task": <int >= 0>, "generation": <int >= 0>}',
    );
  }
  return {
    connector: e.connector as string,
    task: e.task as number,
    generation: e.generation as number,
  };
}

/** Runs one bounded invocation of a source task; its status and offsets live in the state store. */
export async function sourceTask(
  event: unknown,
  context: Context,
): Promise<Omit<SourceRunResult, 'error'> & { error?: string }> {
  const { connector, task, generation } = parseSourceTaskEvent(event);
  const { source, logger } = composition();
  const deadline =
    Date.now() + Math.max(1_000, context.getRemainingTimeInMillis() - safetyMarginMs);
  const { error, ...result } = await runSourceInvocation(source, {
    connector,
    task,
    generation,
    owner: context.awsRequestId,
    workerId: context.logStreamName || context.functionName,
    deadline,
  });
  logger.info('source task invocation ended', {
    connector,
    task,
    ...result,
    ...(error ? { error } : {}),
  });
  return error === undefined ? result : { ...result, error: error.message };
}

export const handler = middy(sourceTask);
