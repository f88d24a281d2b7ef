/**
 * The per-record path of a sink task (Connect's `WorkerSinkTask.convertAndTransformRecord`):
 * key, value and header converters, then the `transforms` chain, each run by the
 * retry-with-tolerance operator; and the errant record reporter a task calls from `put`.
 *
 * Converters and transformations are synchronous, so a record runs through them directly; only
 * when a stage throws does the record continue under the operator, from that stage, with the
 * error as the stage's first attempt (retries, tolerance and reporting exactly as if the operator
 * had run every stage: on success the operator only returns the value). The source pipeline
 * runs on RecordPipeline (record-pipeline.ts).
 */
import type { ParsedSinkConnectorConfig } from '../../config/connector-config.js';
import { IllegalStateError } from '../../connect/errors.js';
import { Headers } from '../../connect/headers.js';
import type { PluginRegistry } from '../../connect/plugin.js';
import { SinkRecord } from '../../connect/records.js';
import type { SchemaAndValue } from '../../connect/schema.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import { createConverterSet } from '../pipeline/converter-set.js';
import type { DeadLetterSink } from '../pipeline/dead-letter.js';
import type { ErrorHandlingMetrics } from '../pipeline/error-stage.js';
import { type ConsumedRecord, ProcessingContext } from '../pipeline/error-stage.js';
import { createTaskErrorHandler } from '../pipeline/error-tolerance.js';
import { eachInTurn, resumeUnderOperator } from '../pipeline/pipeline-support.js';
import {
  buildTransformationChain,
  transformationClassOf,
} from '../pipeline/transformation-chain.js';

/** What became of one consumed record. */
export type SinkPipelineResult =
  /** Converted and transformed: give it to `put`. */
  | { readonly kind: 'put'; readonly record: SinkRecord }
  /** A transformation dropped it (returned null). */
  | { readonly kind: 'filtered' }
  /** It failed and `errors.tolerance=all` skips it; `deadLettered` when it went to the DLQ. */
  | { readonly kind: 'failed'; readonly deadLettered: boolean };

/**
 * A sink task's record path. `process` throws when a failure is not tolerated (the task fails);
 * calls are sequential.
 */
export interface SinkRecordPipeline {
  process(record: ConsumedRecord): Promise<SinkPipelineResult>;
  /** `process` of each record in turn (one promise for the batch; the same results). */
  processBatch(records: readonly ConsumedRecord[]): Promise<SinkPipelineResult[]>;
  /**
   * Whether tasks get an errant record reporter: a DLQ topic is set, `errors.log.enable` is
   * true, or `errors.tolerance=all`.
   */
  readonly errantReporting: boolean;
  /**
   * Reports a record the task could not write (`ErrantRecordReporter.report`): stage TASK_PUT,
   * class `taskClass`. `consumed` is the record as consumed; when unknown (the task built the
   * record itself), the record is serialised again with the connector's converters, as Connect
   * does. Resolves `true` when the record went to the DLQ; rejects under `errors.tolerance=none`.
   */
  reportErrant(
    record: SinkRecord,
    error: Error,
    taskClass: string,
    consumed: ConsumedRecord | undefined,
  ): Promise<boolean>;
  /** The task's error-handling counters (Connect's task-error-metrics). */
  readonly metrics: ErrorHandlingMetrics;
  close(): void;
}

export interface SinkPipelineDeps {
  readonly plugins: PluginRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random?: () => number;
  /** Required when the connector sets `errors.deadletterqueue.topic.name`. */
  readonly deadLetters?: DeadLetterSink;
}

const KEY = 0;
const VALUE = 1;
const HEADERS = 2;
const TRANSFORM = 3;

/** What the stages before the failing one produced. */
interface Progress {
  key?: SchemaAndValue;
  value?: SchemaAndValue;
  headers?: Headers;
}

const filtered: SinkPipelineResult = { kind: 'filtered' };

/** The record `put` gets before transformations. */
function sinkRecordOf(
  consumed: ConsumedRecord,
  key: SchemaAndValue,
  value: SchemaAndValue,
  headers: Headers,
): SinkRecord {
  return new SinkRecord({
    topic: consumed.topic,
    kafkaPartition: consumed.partition,
    kafkaOffset: consumed.offset,
    keySchema: key.schema,
    key: key.value,
    valueSchema: value.schema,
    value: value.value,
    timestamp: consumed.timestampType === 'NoTimestampType' ? null : (consumed.timestamp ?? null),
    timestampType: consumed.timestampType ?? 'NoTimestampType',
    headers,
  });
}

/** The raw headers of a consumed record, as converters read them (bytes, no schema). */
function rawHeaders(record: ConsumedRecord): Headers {
  const headers = new Headers();
  for (const h of record.headers) headers.add(h.key, h.value);
  return headers.readOnly();
}

/**
 * Builds the record path of task `task` of the sink connector `config`. Throws ConfigError for
 * an unknown converter or transformation, IllegalStateError when a DLQ topic is set without
 * `deps.deadLetters`.
 */
export function buildSinkPipeline(
  config: ParsedSinkConnectorConfig,
  task: number,
  deps: SinkPipelineDeps,
): SinkRecordPipeline {
  const chain = buildTransformationChain<SinkRecord>(config.originals, deps.plugins);
  const converters = createConverterSet(config, deps.plugins);
  const { operator, metrics, deadLetterQueueEnabled } = createTaskErrorHandler(
    config,
    task,
    deps,
    deps.deadLetters,
  );
  const failed = (): SinkPipelineResult => ({
    kind: 'failed',
    deadLettered: deadLetterQueueEnabled,
  });

  const convertKey = (consumed: ConsumedRecord, raw: Headers) =>
    converters.key.toConnectData(consumed.topic, raw, consumed.key);
  const convertValue = (consumed: ConsumedRecord, raw: Headers) =>
    converters.value.toConnectData(consumed.topic, raw, consumed.value);
  const convertHeaders = (consumed: ConsumedRecord): Headers => {
    const out = new Headers();
    for (const h of consumed.headers) {
      const converted = converters.header.toConnectHeader(consumed.topic, h.key, h.value);
      out.add(h.key, converted.value, converted.schema);
    }
    return out;
  };
  const transformed = (out: SinkRecord | null): SinkPipelineResult =>
    out === null ? filtered : { kind: 'put', record: out };

  /** Continues `consumed` under the operator from stage `from`, whose first attempt threw. */
  async function resume(
    consumed: ConsumedRecord,
    raw: Headers,
    from: number,
    first: { readonly error: unknown },
    progress: Progress,
  ): Promise<SinkPipelineResult> {
    const context = ProcessingContext.forConsumed(consumed);
    const run = resumeUnderOperator(operator, context, first);
    let { key, value, headers } = progress;
    if (from <= KEY) {
      const converted = await run('KEY_CONVERTER', converters.keyClass, () =>
        convertKey(consumed, raw),
      );
      if (converted.failed) return failed();
      key = converted.value;
    }
    if (from <= VALUE) {
      const converted = await run('VALUE_CONVERTER', converters.valueClass, () =>
        convertValue(consumed, raw),
      );
      if (converted.failed) return failed();
      value = converted.value;
    }
    if (from <= HEADERS) {
      const converted = await run('HEADER_CONVERTER', converters.headerClass, () =>
        convertHeaders(consumed),
      );
      if (converted.failed) return failed();
      headers = converted.value;
    }
    if (key === undefined || value === undefined || headers === undefined) {
      throw new IllegalStateError(`stage ${from} resumed without the stages before it`);
    }
    const record = sinkRecordOf(consumed, key, value, headers);
    const out = await run('TRANSFORMATION', transformationClassOf, () => chain.apply(record));
    return out.failed ? failed() : transformed(out.value);
  }

  /** The record's result, synchronously unless a stage threw (then under the operator). */
  function processOne(consumed: ConsumedRecord): SinkPipelineResult | Promise<SinkPipelineResult> {
    const raw = rawHeaders(consumed);
    const progress: Progress = {};
    let stage = KEY;
    try {
      const key = convertKey(consumed, raw);
      progress.key = key;
      stage = VALUE;
      const value = convertValue(consumed, raw);
      progress.value = value;
      stage = HEADERS;
      const headers = convertHeaders(consumed);
      progress.headers = headers;
      stage = TRANSFORM;
      return transformed(chain.apply(sinkRecordOf(consumed, key, value, headers)));
    } catch (error) {
      return resume(consumed, raw, stage, { error }, progress);
    }
  }

  return {
    metrics,
    errantReporting:
      deadLetterQueueEnabled || config.errors.logEnable || config.errors.tolerance === 'all',

    async process(consumed: ConsumedRecord): Promise<SinkPipelineResult> {
      return processOne(consumed);
    },

    // One record at a time: a failing record is reported (and dead-lettered) before the next.
    processBatch: (records) => eachInTurn(records, processOne),

    async reportErrant(record, error, taskClass, consumed) {
      const original = consumed ?? {
        topic: record.originalTopic,
        partition: record.originalKafkaPartition,
        offset: record.originalKafkaOffset,
        timestamp: record.timestamp,
        timestampType: record.timestampType,
        key: converters.key.fromConnectData(
          record.topic,
          record.headers,
          record.keySchema,
          record.key,
        ),
        value: converters.value.fromConnectData(
          record.topic,
          record.headers,
          record.valueSchema,
          record.value,
        ),
        headers: [...record.headers].map((h) => ({
          key: h.key,
          value: converters.header.fromConnectHeader(record.topic, h.key, h.schema, h.value),
        })),
      };
      await operator.executeFailed(
        'TASK_PUT',
        taskClass,
        error,
        ProcessingContext.forConsumed(original),
      );
      return deadLetterQueueEnabled;
    },

    close() {
      operator.stop();
      chain.close();
    },
  };
}
