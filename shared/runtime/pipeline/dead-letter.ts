/**
 * The dead letter queue (Connect's `DeadLetterQueueReporter`): a failed record, as it entered
 * the pipeline, written to `errors.deadletterqueue.topic.name`, optionally with headers
 * describing the failure.
 *
 * Sink records go to the DLQ with their original bytes: key, value, headers and timestamp
 * exactly as consumed.
 *
 * Source records (Connect has no DLQ for sources; we do) have no original bytes: their key,
 * value and header values are written as UTF-8 JSON, as the JSON converter with
 * `schemas.enable=false` would write them (see {@link toJsonValue}); a `null` key or value is
 * written as `null` (no bytes), not as the text `null`. The record's timestamp is kept.
 *
 * Context headers (`errors.deadletterqueue.context.headers.enable=true`) are appended after the
 * original headers; every value is UTF-8 text, numbers in decimal as Connect writes them:
 * - `__connect.errors.topic`: the consumed record's topic; for a source record, the topic it
 *   was polled for.
 * - `__connect.errors.partition`, `__connect.errors.offset`: the consumed record's partition
 *   and offset (`"3"`, `"1042"`); for a source record, its source partition and source offset
 *   as JSON (`{"file":"a.txt"}`, `{"line":42}`), each left out when `null`.
 * - `__connect.errors.connector.name`, `__connect.errors.task.id` (`"0"`).
 * - `__connect.errors.stage` (`VALUE_CONVERTER`), `__connect.errors.class.name` (the class
 *   that failed, e.g. the converter's class).
 * - `__connect.errors.exception.class.name` (`DataError`), `__connect.errors.exception.message`,
 *   `__connect.errors.exception.stacktrace` (see {@link describeError}).
 */
import type { SourceRecord } from '../../connect/records.js';
import type { OutgoingRecord, RecordHeader } from '../../ports/kafka.js';
import type { Logger } from '../../ports/logger.js';
import { describeError, type ErrorReporter, toJsonValue } from './error-reporter.js';
import type { ConnectorTaskId, ErrorHandlingMetrics, ProcessingContext } from './error-stage.js';

const PREFIX = '__connect.errors.';

/** Names of the context headers, as Connect names them. */
export const DeadLetterHeaders = Object.freeze({
  PREFIX,
  ORIGINAL_TOPIC: `${PREFIX}topic`,
  ORIGINAL_PARTITION: `${PREFIX}partition`,
  ORIGINAL_OFFSET: `${PREFIX}offset`,
  CONNECTOR_NAME: `${PREFIX}connector.name`,
  TASK_ID: `${PREFIX}task.id`,
  STAGE: `${PREFIX}stage`,
  EXECUTING_CLASS: `${PREFIX}class.name`,
  EXCEPTION: `${PREFIX}exception.class.name`,
  EXCEPTION_MESSAGE: `${PREFIX}exception.message`,
  EXCEPTION_STACK_TRACE: `${PREFIX}exception.stacktrace`,
} as const);

/**
 * Where dead letter records go. Resolves once the records are written (or, inside a Kafka
 * transaction, accepted into it); rejects when they could not be. The caller of the error
 * handler decides whether it is transactional (source tasks) or not (sink tasks).
 */
export interface DeadLetterSink {
  send(records: readonly OutgoingRecord[]): Promise<void>;
}

/** A sink that only keeps records, for callers that send them later (in a transaction). */
export interface CollectingDeadLetterSink extends DeadLetterSink {
  /** Returns the records kept since the last call, and forgets them. */
  drain(): OutgoingRecord[];
}

/** A {@link CollectingDeadLetterSink}. */
export function collectingDeadLetterSink(): CollectingDeadLetterSink {
  let kept: OutgoingRecord[] = [];
  return {
    send: async (records) => {
      kept.push(...records);
    },
    drain: () => {
      const out = kept;
      kept = [];
      return out;
    },
  };
}

/** Settings of the dead letter queue. */
export interface DeadLetterOptions {
  /** `errors.deadletterqueue.topic.name`; surrounding blanks are ignored. */
  readonly topic: string;
  /** `errors.deadletterqueue.context.headers.enable`. */
  readonly contextHeadersEnable: boolean;
  readonly taskId: ConnectorTaskId;
}

const encoder = new TextEncoder();

function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

function jsonBytes(value: unknown): Uint8Array | null {
  return value === null || value === undefined ? null : utf8(JSON.stringify(toJsonValue(value)));
}

/** The stand-in for a source record's original bytes (see the module notes). */
export function sourceRecordBytes(record: SourceRecord): {
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: RecordHeader[];
} {
  return {
    key: jsonBytes(record.key),
    value: jsonBytes(record.value),
    headers: [...record.headers].map((h) => ({ key: h.key, value: jsonBytes(h.value) })),
  };
}

function contextHeaders(context: ProcessingContext, taskId: ConnectorTaskId): RecordHeader[] {
  const H = DeadLetterHeaders;
  const headers: RecordHeader[] = [];
  const add = (key: string, value: string) => headers.push({ key, value: utf8(value) });
  const original = context.original;
  if (original?.kind === 'consumed') {
    add(H.ORIGINAL_TOPIC, original.record.topic);
    add(H.ORIGINAL_PARTITION, String(original.record.partition));
    add(H.ORIGINAL_OFFSET, String(original.record.offset));
  } else if (original?.kind === 'source') {
    const { topic, sourcePartition, sourceOffset } = original.record;
    add(H.ORIGINAL_TOPIC, topic);
    if (sourcePartition !== null)
      add(H.ORIGINAL_PARTITION, JSON.stringify(toJsonValue(sourcePartition)));
    if (sourceOffset !== null) add(H.ORIGINAL_OFFSET, JSON.stringify(toJsonValue(sourceOffset)));
  }
  add(H.CONNECTOR_NAME, taskId.connector);
  add(H.TASK_ID, String(taskId.task));
  add(H.STAGE, String(context.stage));
  add(H.EXECUTING_CLASS, String(context.className));
  if (context.failed) {
    const error = describeError(context.error);
    add(H.EXCEPTION, error.className);
    add(H.EXCEPTION_MESSAGE, error.message);
    add(H.EXCEPTION_STACK_TRACE, error.stackTrace);
  }
  return headers;
}

/**
 * The dead letter record for the failure `context` describes (see the module notes), or `null`
 * when the context holds no original record. The partition is left to the producer.
 */
export function buildDeadLetterRecord(
  context: ProcessingContext,
  options: DeadLetterOptions,
): OutgoingRecord | null {
  const original = context.original;
  if (original === null) return null;
  const base =
    original.kind === 'consumed'
      ? {
          key: original.record.key,
          value: original.record.value,
          headers: [...original.record.headers],
          timestamp: original.record.timestamp,
        }
      : { ...sourceRecordBytes(original.record), timestamp: original.record.timestamp };
  const headers = options.contextHeadersEnable
    ? [...base.headers, ...contextHeaders(context, options.taskId)]
    : base.headers;
  const { timestamp } = base;
  return {
    topic: options.topic.trim(),
    key: base.key,
    value: base.value,
    headers,
    ...(typeof timestamp === 'number' && timestamp >= 0 ? { timestamp } : {}),
  };
}

/** Settings and dependencies of a {@link DeadLetterQueueReporter}. */
export interface DeadLetterQueueReporterOptions extends DeadLetterOptions {
  readonly sink: DeadLetterSink;
  readonly metrics: ErrorHandlingMetrics;
  /** Told when a record cannot be sent. */
  readonly logger?: Logger;
}

/**
 * Sends each tolerated failure's record to the dead letter queue through the injected sink.
 * Counts `deadLetterQueueProduceRequests` per report and `deadLetterQueueProduceFailures` when
 * there is no original record to send (as Connect) or the sink rejects. Unlike Connect, a
 * rejected send rejects the report, so the caller never skips a record that reached neither its
 * destination nor the DLQ. Does nothing when the topic is blank.
 */
export class DeadLetterQueueReporter implements ErrorReporter {
  readonly reportsUntolerated = false;
  readonly #options: DeadLetterQueueReporterOptions;

  constructor(options: DeadLetterQueueReporterOptions) {
    this.#options = options;
  }

  async report(context: ProcessingContext): Promise<void> {
    const { sink, metrics, logger } = this.#options;
    const topic = this.#options.topic.trim();
    if (topic === '') return;
    metrics.deadLetterQueueProduceRequests++;
    const record = buildDeadLetterRecord(context, this.#options);
    if (record === null) {
      metrics.deadLetterQueueProduceFailures++;
      return;
    }
    try {
      await sink.send([record]);
    } catch (error) {
      metrics.deadLetterQueueProduceFailures++;
      logger?.error(`Could not produce message to dead letter queue. topic=${topic}`, { error });
      throw error;
    }
  }
}
