/**
 * A sink task's record path (Connect's `WorkerSinkTask.convertAndTransformRecord`): the stage
 * table below, run by {@link RecordPipeline}; and the errant record reporter a task calls from
 * `put`. A transformation returning null filters the record; a failure that
 * `errors.tolerance=all` tolerates skips it (logged, and dead-lettered with its original bytes
 * when a DLQ topic is set). An untolerated failure rejects (the task fails).
 */

import type { ParsedSinkConnectorConfig } from '../../config/connector-config.js';
import { isPromiseLike } from '../../connect/converter.js';
import { EMPTY_HEADERS, Headers, type ReadonlyHeaders } from '../../connect/headers.js';
import type { PluginRegistry } from '../../connect/plugin.js';
import type { SinkRecord } from '../../connect/records.js';
import { NULL_SCHEMA_AND_VALUE, type SchemaAndValue } from '../../connect/schema.js';
import type { Clock } from '../../ports/clock.js';
import type { ConsumedRecord } from '../../ports/kafka.js';
import type { Logger } from '../../ports/logger.js';
import { type ConverterSet, createConverterSet } from './converter-set.js';
import type { DeadLetterSink } from './dead-letter.js';
import { type ErrorHandlingMetrics, ProcessingContext } from './error-stage.js';
import { createTaskErrorHandler } from './error-tolerance.js';
import { InternalSinkRecord, type SinkEnvelope } from './record-envelope.js';
import { DROP, type PipelineStage, RecordPipeline } from './record-pipeline.js';
import { buildTransformationChain, transformationClassOf } from './transformation-chain.js';

/** A sink task's record path. Calls to `process` must not overlap. */
export interface SinkRecordPipeline {
  /**
   * Runs each envelope's consumed record through the stages, in turn, and sets its `outcome`
   * and, for `put`, its `record`. Rejects when a failure is not tolerated.
   */
  process(envelopes: readonly SinkEnvelope[]): Promise<void>;
  /**
   * Whether tasks get an errant record reporter: a DLQ topic is set, `errors.log.enable` is
   * true, or `errors.tolerance=all`.
   */
  readonly errantReporting: boolean;
  /**
   * Reports a record the task could not write (`ErrantRecordReporter.report`): stage TASK_PUT,
   * class `taskClass`. A record the pipeline made (or a `newRecord` copy of one) carries its
   * consumed original; one the task built itself is serialised with the connector's converters,
   * as Connect does. Resolves `true` when it went to the DLQ; rejects under
   * `errors.tolerance=none`.
   */
  reportErrant(record: SinkRecord, error: Error, taskClass: string): Promise<boolean>;
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

/** A consumed record on its way through the stages. */
interface SinkWork {
  readonly original: ConsumedRecord;
  /** The consumed headers as converters read them (bytes, no schema). */
  readonly raw: Headers;
  key: SchemaAndValue;
  value: SchemaAndValue;
  headers: ReadonlyHeaders;
  /** Built from the converted parts, then as transformed. */
  record: InternalSinkRecord | null;
}

/** The raw headers of a consumed record, as converters read them (bytes, no schema). */
function rawHeaders(record: ConsumedRecord): Headers {
  const headers = new Headers();
  for (const h of record.headers) headers.add(h.key, h.value);
  return headers.readOnly();
}

/** The record before transformations: the converted parts at the consumed coordinates. */
function sinkRecordOf({ original, key, value, headers }: SinkWork): InternalSinkRecord {
  return new InternalSinkRecord(
    {
      topic: original.topic,
      kafkaPartition: original.partition,
      kafkaOffset: original.offset,
      keySchema: key.schema,
      key: key.value,
      valueSchema: value.schema,
      value: value.value,
      timestamp: original.timestampType === 'NoTimestampType' ? null : (original.timestamp ?? null),
      timestampType: original.timestampType ?? 'NoTimestampType',
      headers,
    },
    original,
  );
}

/** A record the task built itself, serialised with the connector's converters (as Connect). */
async function consumedOf(record: SinkRecord, converters: ConverterSet): Promise<ConsumedRecord> {
  const { topic, headers } = record;
  return {
    topic: record.originalTopic,
    partition: record.originalKafkaPartition,
    offset: record.originalKafkaOffset,
    timestamp: record.timestamp,
    timestampType: record.timestampType,
    key: await converters.key.fromConnectData(topic, headers, record.keySchema, record.key),
    value: await converters.value.fromConnectData(topic, headers, record.valueSchema, record.value),
    headers: [...headers].map((h) => ({
      key: h.key,
      value: converters.header.fromConnectHeader(topic, h.key, h.schema, h.value),
    })),
  };
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

  const stages: PipelineStage<SinkWork>[] = [
    {
      stage: 'KEY_CONVERTER',
      class: converters.keyClass,
      run: (work) => {
        const { topic, key } = work.original;
        const converted = converters.key.toConnectData(topic, work.raw, key);
        if (!isPromiseLike(converted)) {
          work.key = converted;
          return undefined;
        }
        return converted.then((resolved) => {
          work.key = resolved;
          return undefined;
        });
      },
    },
    {
      stage: 'VALUE_CONVERTER',
      class: converters.valueClass,
      run: (work) => {
        const { topic, value } = work.original;
        const converted = converters.value.toConnectData(topic, work.raw, value);
        if (!isPromiseLike(converted)) {
          work.value = converted;
          return undefined;
        }
        return converted.then((resolved) => {
          work.value = resolved;
          return undefined;
        });
      },
    },
    {
      stage: 'HEADER_CONVERTER',
      class: converters.headerClass,
      run: (work) => {
        const { topic, headers } = work.original;
        const converted = new Headers();
        for (const { key, value } of headers) {
          const header = converters.header.toConnectHeader(topic, key, value);
          converted.add(key, header.value, header.schema);
        }
        work.headers = converted;
        return undefined;
      },
    },
    {
      stage: 'TRANSFORMATION',
      class: transformationClassOf,
      run: (work) => {
        work.record ??= sinkRecordOf(work);
        const transformed = chain.apply(work.record);
        if (transformed === null) return DROP;
        work.record = InternalSinkRecord.carrying(transformed, work.original);
        return undefined;
      },
    },
  ];

  const pipeline = new RecordPipeline<SinkEnvelope, SinkWork>({
    stages,
    operator,
    begin: ({ original }) => ({
      original,
      raw: rawHeaders(original),
      key: NULL_SCHEMA_AND_VALUE,
      value: NULL_SCHEMA_AND_VALUE,
      headers: EMPTY_HEADERS,
      record: null,
    }),
    contextOf: (work) => ProcessingContext.forConsumed(work.original),
    end: (envelope, work, outcome) => {
      if (outcome === 'passed') {
        envelope.outcome = 'put';
        envelope.record = work.record;
      } else if (outcome === 'dropped') envelope.outcome = 'filtered';
      else {
        envelope.outcome = 'failed';
        envelope.deadLettered = deadLetterQueueEnabled;
      }
    },
  });

  return {
    metrics,
    errantReporting:
      deadLetterQueueEnabled || config.errors.logEnable || config.errors.tolerance === 'all',

    process: (envelopes) => pipeline.process(envelopes),

    async reportErrant(record, error, taskClass) {
      const original =
        record instanceof InternalSinkRecord
          ? record.consumed
          : await consumedOf(record, converters);
      const context = ProcessingContext.forConsumed(original);
      await operator.executeFailed('TASK_PUT', taskClass, error, context);
      return deadLetterQueueEnabled;
    },

    close() {
      operator.stop();
      chain.close();
    },
  };
}
