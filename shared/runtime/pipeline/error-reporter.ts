/**
 * Error reporters (Connect's `ErrorReporter` and `LogReporter`) and the renderings they share:
 * an error as class name, message and stack trace, and a source record as JSON.
 */

import { Buffer } from 'node:buffer';
import type { SourceRecord } from '../../connect/records.js';
import { Struct } from '../../connect/struct.js';
import type { ConsumedRecord } from '../../ports/kafka.js';
import type { Logger } from '../../ports/logger.js';
import {
  type ConnectorTaskId,
  type ErrorHandlingMetrics,
  type ProcessingContext,
  taskIdString,
} from './error-stage.js';

/** Receives failures from the error handler (the log, the dead letter queue). */
export interface ErrorReporter {
  /**
   * True when the reporter also receives failures that are NOT tolerated (the task fails right
   * after). The log reporter does; the dead letter queue reporter does not, since the record
   * will be processed again after the task restarts or the batch is redelivered.
   */
  readonly reportsUntolerated: boolean;
  /**
   * Reports the failure `context` describes (`context.failed` is true). Resolves once the report
   * is durable; rejects when it could not be made (the caller must then not skip the record).
   */
  report(context: ProcessingContext): Promise<void>;
}

/** An error as Connect's reporters describe it. */
export interface ErrorDescription {
  /** The class name: `DataError`, `TypeError`; `typeof` for thrown non-objects. */
  readonly className: string;
  /** The message; `String(value)` for thrown non-errors. */
  readonly message: string;
  /**
   * Like Java's `printStackTrace`: `<class>: <message>`, the frames, then each `cause` as
   * `Caused by: <class>: <message>` with its frames.
   */
  readonly stackTrace: string;
}

function classNameOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return typeof error;
  const ctor = (error as { constructor?: { name?: unknown } }).constructor;
  if (typeof ctor?.name === 'string' && ctor.name !== '') return ctor.name;
  return error instanceof Error ? error.name : 'Object';
}

/**
 * `<class>: <message>`, the class followed by the error's `name` when that differs (AWS SDK
 * errors carry their code there: `S3ServiceException (InternalError)`).
 */
function headerLine(error: unknown): string {
  const className = classNameOf(error);
  const name = error instanceof Error ? error.name : className;
  const label = name === className || name === '' ? className : `${className} (${name})`;
  const message = error instanceof Error ? error.message : String(error);
  return message === '' ? label : `${label}: ${message}`;
}

function frames(error: unknown): string[] {
  if (!(error instanceof Error) || typeof error.stack !== 'string') return [];
  return error.stack.split('\n').filter((line) => /^\s+at /.test(line));
}

/**
 * `error` and its causes on one line, for logs: `<class>: <message>; caused by <class>:
 * <message>…`, without stack frames (a trace holds those).
 *
 * @example
 * ```ts
 * errorSummary(new RetriableError('preCommit failed', { cause: new Error('500 InternalError') }));
 * // 'RetriableError: preCommit failed; caused by Error: 500 InternalError'
 * ```
 */
export function errorSummary(error: unknown): string {
  return causeChain(error).map(headerLine).join('; caused by ');
}

/** Describes `error` for logs and dead letter headers. */
export function describeError(error: unknown): ErrorDescription {
  const lines = causeChain(error).flatMap((current, i) => [
    (i === 0 ? '' : 'Caused by: ') + headerLine(current),
    ...frames(current),
  ]);
  return {
    className: classNameOf(error),
    message: error instanceof Error ? error.message : String(error),
    stackTrace: lines.join('\n'),
  };
}

/** `error` and its causes, outermost first; a cause seen before ends the chain. */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (!chain.includes(current)) {
    chain.push(current);
    if (!(current instanceof Error) || current.cause === undefined) break;
    current = current.cause;
  }
  return chain;
}

/**
 * A Connect value as plain JSON (schemaless, like the JSON converter with
 * `schemas.enable=false`): structs become objects (field defaults applied), maps with string
 * keys objects and other maps arrays of `[key, value]` pairs, bytes base64 strings, dates ISO
 * strings, decimals their exact decimal text, int64 bigints numbers when safe and decimal text
 * otherwise, non-finite numbers their text. `undefined` is `null`.
 */
export function toJsonValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    case 'object':
      return objectToJson(value);
    default:
      return String(value);
  }
}

function objectToJson(value: object): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Struct) {
    return Object.fromEntries(value.schema.fields.map((f) => [f.name, toJsonValue(value.get(f))]));
  }
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value instanceof Map) {
    const entries = [...value.entries()];
    if (entries.every(([k]) => typeof k === 'string')) {
      return Object.fromEntries(entries.map(([k, v]) => [k, toJsonValue(v)]));
    }
    return entries.map(([k, v]) => [toJsonValue(k), toJsonValue(v)]);
  }
  const toJson = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') return toJsonValue(toJson.call(value));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonValue(v)]));
}

/** Everything a source record holds, as JSON (see {@link toJsonValue}). */
export function sourceRecordJson(record: SourceRecord): Record<string, unknown> {
  return {
    topic: record.topic,
    kafkaPartition: record.kafkaPartition,
    sourcePartition: toJsonValue(record.sourcePartition),
    sourceOffset: toJsonValue(record.sourceOffset),
    keySchema: record.keySchema === null ? null : String(record.keySchema),
    key: toJsonValue(record.key),
    valueSchema: record.valueSchema === null ? null : String(record.valueSchema),
    value: toJsonValue(record.value),
    timestamp: record.timestamp,
    headers: [...record.headers].map((h) => ({ key: h.key, value: toJsonValue(h.value) })),
  };
}

function consumedRecordCoordinates(record: ConsumedRecord): Record<string, unknown> {
  const type = record.timestampType ?? 'NoTimestampType';
  const withTime = type === 'CreateTime' || type === 'LogAppendTime';
  return {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    ...(withTime ? { timestamp: record.timestamp ?? null, timestampType: type } : {}),
  };
}

function describeRecord(context: ProcessingContext): string {
  const original = context.original;
  if (original === null) return '';
  if (original.kind === 'source') {
    return `, where source record is = ${JSON.stringify(sourceRecordJson(original.record))}`;
  }
  const c = consumedRecordCoordinates(original.record);
  const time =
    'timestampType' in c ? `, timestamp=${c.timestamp}, timestampType=${c.timestampType}` : '';
  return (
    `, where consumed record is {topic='${c.topic}', partition=${c.partition}, ` +
    `offset=${c.offset}${time}}`
  );
}

/**
 * The log line Connect writes for a failure: `Error encountered in task <connector>-<task>.
 * Executing stage '<STAGE>' with class '<class>'.` With `includeMessages`, the record follows:
 * a consumed record's topic, partition, offset and timestamp (never its key, value or headers,
 * as in Connect), or a source record in full (as JSON).
 */
export function errorLogMessage(
  taskId: ConnectorTaskId,
  context: ProcessingContext,
  includeMessages: boolean,
): string {
  const record = includeMessages ? describeRecord(context) : '';
  return (
    `Error encountered in task ${taskIdString(taskId)}. Executing stage '${context.stage}' ` +
    `with class '${context.className}'${record}.`
  );
}

/** Settings of a {@link LogReporter}. */
export interface LogReporterOptions {
  readonly taskId: ConnectorTaskId;
  /** `errors.log.enable`. */
  readonly enabled: boolean;
  /** `errors.log.include.messages`. */
  readonly includeMessages: boolean;
  readonly logger: Logger;
  readonly metrics: ErrorHandlingMetrics;
}

/**
 * Writes each failure to the log at ERROR level (Connect's `LogReporter`), when
 * `errors.log.enable` is true. The line is {@link errorLogMessage}; its fields are the task,
 * stage, class, attempts and `error` (the thrown value), plus `record` only when
 * `errors.log.include.messages` is true (the same content as the message). Counts
 * `totalErrorsLogged`.
 */
export class LogReporter implements ErrorReporter {
  readonly reportsUntolerated = true;
  readonly #options: LogReporterOptions;

  constructor(options: LogReporterOptions) {
    this.#options = options;
  }

  async report(context: ProcessingContext): Promise<void> {
    const { enabled, includeMessages, taskId, logger, metrics } = this.#options;
    if (!enabled || !context.failed) return;
    const original = context.original;
    let record: Record<string, unknown> | undefined;
    if (includeMessages && original !== null) {
      record =
        original.kind === 'source'
          ? sourceRecordJson(original.record)
          : consumedRecordCoordinates(original.record);
    }
    logger.error(errorLogMessage(taskId, context, includeMessages), {
      connector: taskId.connector,
      task: taskId.task,
      stage: context.stage,
      className: context.className,
      attempt: context.attempt,
      error: context.error,
      ...(record === undefined ? {} : { record }),
    });
    metrics.totalErrorsLogged++;
  }
}
