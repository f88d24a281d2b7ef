import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { withLogContext } from '../../shared/adapters/logging/log-context.js';
import { isRetriable } from '../../shared/connect/errors.js';
import type { LogFields, Logger, LoggerFactory, LoggerName } from '../../shared/ports/logger.js';

/** What {@link invocation} derives from the Lambda context of one invocation. */
export interface Invocation {
  /**
   * When the invocation's work must be done (epoch ms): Lambda's remaining time minus the
   * safety margin kept for the final commit and the lease release, at least one second.
   */
  readonly deadline: number;
  /** The function's logger with the invocation's correlation fields (request id, function). */
  readonly logger: Logger;
  /** The invocation's correlation fields, on every line written in {@link inLogContext}. */
  readonly logContext: LogFields;
}

/** A function's handler as Lambda (and the local runtime) calls it. */
export type FunctionHandler<TEvent, TResult> = (
  event: TEvent,
  context: Context,
) => Promise<TResult>;

const invocations = new WeakMap<Context, Invocation>();

/**
 * The invocation {@link invocation} set up for `context`.
 * @throws Error when the handler is not wrapped in the middleware.
 */
export function invocationOf(context: Context): Invocation {
  const found = invocations.get(context);
  if (found === undefined) throw new Error('the invocation middleware did not run');
  return found;
}

/** Time kept back from the Lambda timeout for the final commit and the lease release. */
export const SAFETY_MARGIN_MS = 10_000;

export interface InvocationOptions {
  /** The component the function's lines belong to. */
  readonly logger: LoggerName;
  /** The composition's logger factory (read when the first invocation arrives). */
  readonly loggers: () => LoggerFactory;
  /** Time kept back from the Lambda timeout. @default {@link SAFETY_MARGIN_MS} */
  readonly safetyMarginMs?: number;
}

/**
 * What every handler needs from its Lambda context, as a middy middleware (`before`): the log
 * levels brought up to date (`/admin/loggers`: at the container's first invocation, then when
 * the composition's refresh interval has passed; a failed read keeps the last levels and never
 * fails the invocation), the deadline, and a logger carrying the request id and function name.
 * `onError` logs a failed invocation (a warning when the error is retriable, else an error) and
 * lets the error through: the event source mapping or the asynchronous invoke retries, API
 * Gateway answers 502. Wrap the base handler in {@link inLogContext} so that every line the
 * invocation writes, through any logger, carries the request id and function name.
 *
 * @example
 * ```ts
 * export const handler = middy(
 *   inLogContext(async (event: unknown, context: Context) => {
 *     const { deadline, logger } = invocationOf(context);
 *     // ...
 *   }),
 * ).use(invocation({ logger: LOGGERS.source, loggers: () => composition().engine.loggers }));
 * ```
 */
export function invocation(
  options: InvocationOptions,
): MiddlewareObj<unknown, unknown, Error, Context> {
  const margin = options.safetyMarginMs ?? SAFETY_MARGIN_MS;
  return {
    name: 'invocation',
    before: async (request) => {
      const { context } = request;
      const loggers = options.loggers();
      await loggers.refresh?.().catch(() => undefined);
      const logContext = { function: context.functionName, awsRequestId: context.awsRequestId };
      invocations.set(context, {
        deadline: Date.now() + Math.max(1_000, context.getRemainingTimeInMillis() - margin),
        logger: loggers(options.logger, logContext),
        logContext,
      });
    },
    onError: (request) => {
      // A retriable failure is retried (the mapping redelivers, the async invoke retries) and
      // the runtime has logged it with its cause: a warning; any other is an error.
      const logger = invocations.get(request.context)?.logger;
      const log = isRetriable(request.error) ? logger?.warn : logger?.error;
      log?.('invocation failed', { error: request.error });
    },
  };
}

/**
 * `handler` run in its invocation's log context (shared/adapters/logging/log-context.ts): every
 * line it writes carries the function name and request id, plus what it adds (`addLogContext`:
 * connector, task). The base handler of a middy handler using {@link invocation}.
 */
export function inLogContext<TEvent, TResult>(
  handler: FunctionHandler<TEvent, TResult>,
): FunctionHandler<TEvent, TResult> {
  return (event, context) =>
    withLogContext(invocationOf(context).logContext, () => handler(event, context));
}

/** The worker id of an invocation: its log stream (one per container), else the function. */
export function workerIdOf(context: Context): string {
  return context.logStreamName || context.functionName;
}
