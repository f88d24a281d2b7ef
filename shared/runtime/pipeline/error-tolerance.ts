/**
 * Error handling for a task (Connect's `errors.*` settings): the entry point. Reads the settings
 * from a connector config and builds the {@link RetryWithToleranceOperator} with its log and
 * dead letter queue reporters. The parts live in `error-stage.ts` (vocabulary, context,
 * metrics), `retry-with-tolerance.ts` (retries and tolerance), `error-reporter.ts` (the log) and
 * `dead-letter.ts` (the DLQ); this module re-exports them.
 */

import {
  type ConnectorKind,
  type DeadLetterQueueConfig,
  type ErrorHandlingConfig,
  type ParsedConnectorConfig,
  parseConnectorConfig,
} from '../../config/connector-config.js';
import type { ConfigProps } from '../../connect/config-def.js';
import { IllegalStateError } from '../../connect/errors.js';
import type { TopicSpec } from '../../ports/kafka.js';
import type { Logger } from '../../ports/logger.js';
import { DeadLetterQueueReporter, type DeadLetterSink } from './dead-letter.js';
import { type ErrorReporter, LogReporter } from './error-reporter.js';
import {
  type ConnectorTaskId,
  createErrorHandlingMetrics,
  type ErrorHandlingMetrics,
} from './error-stage.js';
import { type RetryWithToleranceDeps, RetryWithToleranceOperator } from './retry-with-tolerance.js';

export * from './dead-letter.js';
export * from './error-reporter.js';
export * from './error-stage.js';
export * from './retry-with-tolerance.js';

/** Every `errors.*` setting of a connector. */
export interface ErrorHandlingSettings extends ErrorHandlingConfig {
  readonly deadLetterQueue: DeadLetterQueueConfig;
}

/** The error-handling settings of an already parsed connector config. */
export function errorHandlingSettingsOf(config: ParsedConnectorConfig): ErrorHandlingSettings {
  return { ...config.errors, deadLetterQueue: config.deadLetterQueue };
}

/**
 * Reads `errors.retry.timeout`, `errors.retry.delay.max.ms`, `errors.tolerance`,
 * `errors.log.enable`, `errors.log.include.messages` and `errors.deadletterqueue.*` from
 * connector `props` with Connect's defaults (0, 60000, none, false, false, no DLQ, 3, false).
 * The whole config is validated (through `parseConnectorConfig`): throws ConfigError naming the
 * first bad key.
 */
export function errorHandlingConfig(
  props: ConfigProps,
  kind: ConnectorKind,
): ErrorHandlingSettings {
  return errorHandlingSettingsOf(parseConnectorConfig(props, kind));
}

/** The dead letter topic to create when missing (1 partition, as Connect), or undefined when none. */
export function deadLetterTopicSpec(settings: ErrorHandlingSettings): TopicSpec | undefined {
  const topic = settings.deadLetterQueue.topicName?.trim() ?? '';
  if (topic === '') return undefined;
  return {
    topic,
    partitions: 1,
    replicationFactor: settings.deadLetterQueue.replicationFactor,
  };
}

/** What {@link createErrorHandler} needs besides the settings. */
export interface ErrorHandlerDeps extends RetryWithToleranceDeps {
  readonly taskId: ConnectorTaskId;
  readonly logger: Logger;
  /** Required when a DLQ topic is configured. */
  readonly deadLetterSink?: DeadLetterSink;
  /** @default fresh counters */
  readonly metrics?: ErrorHandlingMetrics;
}

/** A task's error handler and its counters. */
export interface ErrorHandler {
  readonly operator: RetryWithToleranceOperator;
  readonly metrics: ErrorHandlingMetrics;
  /** True when failures go to a dead letter queue. */
  readonly deadLetterQueueEnabled: boolean;
}

/**
 * Builds a task's error handler: the log reporter (active when `errors.log.enable`), then the
 * DLQ reporter when a DLQ topic is set, under one operator and one set of counters.
 * Throws IllegalStateError when a DLQ topic is set but `deps.deadLetterSink` is missing.
 *
 * @example
 * const { operator, metrics } = createErrorHandler(errorHandlingSettingsOf(config), {
 *   taskId: { connector: 'orders', task: 0 }, logger, clock: systemClock, sleep, deadLetterSink,
 * });
 */
export function createErrorHandler(
  settings: ErrorHandlingSettings,
  deps: ErrorHandlerDeps,
): ErrorHandler {
  const metrics = deps.metrics ?? createErrorHandlingMetrics();
  const reporters: ErrorReporter[] = [
    new LogReporter({
      taskId: deps.taskId,
      enabled: settings.logEnable,
      includeMessages: settings.logIncludeMessages,
      logger: deps.logger,
      metrics,
    }),
  ];
  const dlq = deadLetterTopicSpec(settings);
  if (dlq !== undefined) {
    if (deps.deadLetterSink === undefined) {
      throw new IllegalStateError(
        `errors.deadletterqueue.topic.name is set to '${dlq.topic}' but no dead letter sink was provided`,
      );
    }
    reporters.push(
      new DeadLetterQueueReporter({
        topic: dlq.topic,
        contextHeadersEnable: settings.deadLetterQueue.contextHeadersEnable,
        taskId: deps.taskId,
        sink: deps.deadLetterSink,
        metrics,
        logger: deps.logger,
      }),
    );
  }
  const operator = new RetryWithToleranceOperator(
    {
      retryTimeoutMs: settings.retryTimeoutMs,
      retryDelayMaxMs: settings.retryDelayMaxMs,
      tolerance: settings.tolerance,
      reporters,
      metrics,
    },
    { clock: deps.clock, sleep: deps.sleep, ...(deps.random ? { random: deps.random } : {}) },
  );
  return { operator, metrics, deadLetterQueueEnabled: dlq !== undefined };
}

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
