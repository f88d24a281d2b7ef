/**
 * Pieces of the record pipeline that source and sink tasks share: the error handler a task
 * builds from its connector config, and the class a failed transformation chain is reported
 * under.
 */
import type { ParsedConnectorConfig } from '../connect/connector-config.js';
import type { Logger } from '../ports/logger.js';
import type { DeadLetterSink } from './dead-letter.js';
import {
  createErrorHandler,
  type ErrorHandler,
  errorHandlingSettingsOf,
} from './error-tolerance.js';
import type { RetryWithToleranceDeps } from './retry-with-tolerance.js';
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
