import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** The Lambda context the stand-in passes to the sink-task handler (Lambda's own type). */
export type LambdaLikeContext = Context;

/**
 * The functions' memory in MB as the CDK app deploys them by default (`DEFAULT_SIZES` in
 * infra/lib/functions.ts; a unit test keeps the two equal): the local contexts' `memoryLimitInMB`,
 * which the metering prices local invocations at.
 */
export const LOCAL_FUNCTION_MEMORY_MB = {
  api: 512,
  enumerator: 512,
  'source-task': 1024,
  'sink-task': 1024,
} as const satisfies Readonly<Record<string, number>>;

/** Name of the function the mappings invoke, as in the deployed stack. */
export const SINK_TASK_FUNCTION = 'sink-task';

/** The ARN a mapping invokes the sink-task function through: the connector's alias. */
export function invokedFunctionArn(
  alias: string | undefined,
  functionName = SINK_TASK_FUNCTION,
): string {
  const qualifier = alias === undefined ? '' : `:${alias}`;
  return `arn:aws:lambda:local:000000000000:function:${functionName}${qualifier}`;
}

export interface LocalContextOptions {
  /**
   * The alias the invocation goes through (the last segment of `invokedFunctionArn`).
   * @default none: the unqualified function
   */
  readonly alias?: string;
  /** The invocation's time budget (the function timeout), in ms. */
  readonly timeoutMs: number;
  /** The clock `getRemainingTimeInMillis` counts down against. @default Date.now */
  readonly now?: () => number;
  /** @default a random UUID */
  readonly requestId?: string;
  /** @default 'sink-task' */
  readonly functionName?: string;
  /** `memoryLimitInMB`. @default the function's in {@link LOCAL_FUNCTION_MEMORY_MB}, else 1024 */
  readonly memoryMb?: number;
}

/**
 * A Lambda context for one local invocation of any of the four functions: a fresh request id,
 * the (alias-qualified) ARN, and a
 * real `getRemainingTimeInMillis` counting down from `timeoutMs` (never below 0). The
 * deprecated callback methods throw: handlers here are async.
 */
export function localLambdaContext(options: LocalContextOptions): LambdaLikeContext {
  const now = options.now ?? Date.now;
  const functionName = options.functionName ?? SINK_TASK_FUNCTION;
  const deadline = now() + options.timeoutMs;
  const unsupported = () => {
    throw new Error('callback-style completion is not supported; return a promise');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: invokedFunctionArn(options.alias, functionName),
    memoryLimitInMB: String(
      options.memoryMb ??
        (LOCAL_FUNCTION_MEMORY_MB as Readonly<Record<string, number>>)[functionName] ??
        1024,
    ),
    awsRequestId: options.requestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${options.alias ?? functionName}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}
