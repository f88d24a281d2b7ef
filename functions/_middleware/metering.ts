import type { Context } from 'aws-lambda';
import type { MeteredFunction } from '../../shared/runtime/metering/invocation-meter.js';
import type { Metering } from '../../shared/runtime/metering/metering.js';
import type { FunctionHandler } from './invocation.js';

/** The function's configured memory in MB (`memoryLimitInMB`), 0 when the context has none. */
export function memoryOf(context: Context): number {
  const memory = Number.parseInt(context.memoryLimitInMB, 10);
  return Number.isFinite(memory) && memory > 0 ? memory : 0;
}

/**
 * `handler` metered as one invocation of `fn` (shared/runtime/metering/): its billed duration at
 * the context's memory, its requests, its Kafka traffic, written to the hourly usage sums when
 * it ends, however it ends. The outermost wrapper of a function's handler, so the middlewares'
 * work is metered too. Without a metering (`undefined`), the handler runs as is.
 *
 * @example
 * ```ts
 * export const handler = metered('sink-task', () => composition().engine.metering, middyHandler);
 * ```
 */
export function metered<TEvent, TResult>(
  fn: MeteredFunction,
  metering: () => Metering | undefined,
  handler: FunctionHandler<TEvent, TResult>,
): FunctionHandler<TEvent, TResult> {
  return (event, context) => {
    const meter = metering();
    if (meter === undefined) return handler(event, context);
    return meter.run({ function: fn, memoryMb: memoryOf(context) }, () => handler(event, context));
  };
}
