/**
 * Pieces of the record pipeline that source and sink tasks share: the error handler a task
 * builds from its connector config, the class a failed transformation chain is reported under,
 * and the two halves of the direct path (stages run directly, the operator taking over from a
 * stage that throws).
 */
import type { ParsedConnectorConfig } from '../../config/connector-config.js';
import type { Logger } from '../../ports/logger.js';
import type { DeadLetterSink } from './dead-letter.js';
import type { ProcessingContext, Stage } from './error-stage.js';
import {
  createErrorHandler,
  type ErrorHandler,
  errorHandlingSettingsOf,
} from './error-tolerance.js';
import type {
  ExecutingClass,
  OperationResult,
  RetryWithToleranceDeps,
  RetryWithToleranceOperator,
} from './retry-with-tolerance.js';
import { TransformationError } from './transformation-chain.js';

/** What a task's error handler needs besides the connector config. */
export interface TaskErrorHandlerDeps extends RetryWithToleranceDeps {
  readonly logger: Logger;
}

/**
 * The error handler of task `task` of the connector `config` describes (`errors.*` settings,
 * the log reporter, and the dead letter queue reporter when a DLQ topic is set).
 * Throws IllegalStateError when a DLQ topic is set but `deadLetterSink` is missing.
 */
export function createTaskErrorHandler(
  config: ParsedConnectorConfig,
  task: number,
  deps: TaskErrorHandlerDeps,
  deadLetterSink?: DeadLetterSink,
): ErrorHandler {
  return createErrorHandler(errorHandlingSettingsOf(config), {
    taskId: { connector: config.name, task },
    logger: deps.logger,
    clock: deps.clock,
    sleep: deps.sleep,
    ...(deps.random === undefined ? {} : { random: deps.random }),
    ...(deadLetterSink === undefined ? {} : { deadLetterSink }),
  });
}

/**
 * The class reported when the transformation chain fails: the failing transformation's class
 * (`TransformationError.className`), or `TransformationChain` when the chain itself failed.
 */
export function transformationClassOf(error: unknown): string {
  return error instanceof TransformationError ? error.className : 'TransformationChain';
}

/**
 * Runs a record's remaining stages under `operator` after its direct run threw `first`: the
 * first stage run this way gets `first` as its first attempt's failure (so retries, tolerance
 * and reporting go as if the operator had run it), the later ones run normally.
 */
export function resumeUnderOperator(
  operator: RetryWithToleranceOperator,
  context: ProcessingContext,
  first: { readonly error: unknown } | undefined,
): <V>(stage: Stage, className: ExecutingClass, operation: () => V) => Promise<OperationResult<V>> {
  let pending = first;
  return (stage, className, operation) =>
    operator.execute(
      stage,
      className,
      () => {
        const error = pending;
        pending = undefined;
        if (error !== undefined) throw error.error;
        return operation();
      },
      context,
    );
}

/**
 * `one(item)` for each item in turn, awaiting only the results that are promises (a record on
 * the direct path costs no turn of the event loop); the results, in order.
 */
export async function eachInTurn<T, R>(
  items: readonly T[],
  one: (item: T) => R | Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  for (let i = 0; i < items.length; i += 1) {
    const result = one(items[i] as T);
    results[i] = result instanceof Promise ? await result : result;
  }
  return results;
}
