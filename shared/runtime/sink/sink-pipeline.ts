/**
 * The per-record path of a sink task (Connect's `WorkerSinkTask.convertAndTransformRecord`):
 * key, value and header converters, then the `transforms` chain, each run by the
 * retry-with-tolerance operator; and the errant record reporter a task calls from `put`.
 */
import type { ParsedSinkConnectorConfig } from '../../connect/connector-config.js';
import { Headers } from '../../connect/headers.js';
import type { PluginRegistry } from '../../connect/plugin.js';
import { SinkRecord } from '../../connect/records.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import { createConverterSet } from '../converter-set.js';
import type { DeadLetterSink } from '../dead-letter.js';
import type { ErrorHandlingMetrics } from '../error-stage.js';
import { type ConsumedRecord, ProcessingContext } from '../error-stage.js';
import { createTaskErrorHandler, transformationClassOf } from '../pipeline-support.js';
import { buildTransformationChain } from '../transformation-chain.js';

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

  return {
    metrics,
    errantReporting:
      deadLetterQueueEnabled || config.errors.logEnable || config.errors.tolerance === 'all',

    async process(consumed: ConsumedRecord): Promise<SinkPipelineResult> {
      const context = ProcessingContext.forConsumed(consumed);
      const { topic } = consumed;
      const raw = rawHeaders(consumed);
      const key = await operator.execute(
        'KEY_CONVERTER',
        converters.keyClass,
        () => converters.key.toConnectData(topic, raw, consumed.key),
        context,
      );
      if (key.failed) return failed();
      const value = await operator.execute(
        'VALUE_CONVERTER',
        converters.valueClass,
        () => converters.value.toConnectData(topic, raw, consumed.value),
        context,
      );
      if (value.failed) return failed();
      const headers = await operator.execute(
        'HEADER_CONVERTER',
        converters.headerClass,
        () => {
          const out = new Headers();
          for (const h of consumed.headers) {
            const converted = converters.header.toConnectHeader(topic, h.key, h.value);
            out.add(h.key, converted.value, converted.schema);
          }
          return out;
        },
        context,
      );
      if (headers.failed) return failed();
      const record = new SinkRecord({
        topic,
        kafkaPartition: consumed.partition,
        kafkaOffset: consumed.offset,
        keySchema: key.value.schema,
        key: key.value.value,
        valueSchema: value.value.schema,
        value: value.value.value,
        timestamp:
          consumed.timestampType === 'NoTimestampType' ? null : (consumed.timestamp ?? null),
        timestampType: consumed.timestampType ?? 'NoTimestampType',
        headers: headers.value,
      });
      const transformed = await operator.execute(
        'TRANSFORMATION',
        transformationClassOf,
        () => chain.apply(record),
        context,
      );
      if (transformed.failed) return failed();
      return transformed.value === null
        ? { kind: 'filtered' }
        : { kind: 'put', record: transformed.value };
    },

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
