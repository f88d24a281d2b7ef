/**
 * A source task's record path (Connect's `AbstractWorkerSourceTask`: the transformation chain,
 * then `convertTransformedRecord`): the stage table below, run by {@link RecordPipeline}. A
 * transformation returning null drops the record; a failure that `errors.tolerance=all`
 * tolerates skips it, and with a dead letter queue configured its dead letter goes into the
 * envelope, to join the transaction that takes the record. An untolerated failure rejects (the
 * task fails).
 */
import type { ParsedSourceConnectorConfig } from '../../config/connector-config.js';
import { isPromiseLike } from '../../connect/converter.js';
import type { PluginRegistry } from '../../connect/plugin.js';
import type { SourceRecord } from '../../connect/records.js';
import type { Clock } from '../../ports/clock.js';
import type { OutgoingRecord, RecordHeader } from '../../ports/kafka.js';
import type { Logger } from '../../ports/logger.js';
import { createConverterSet } from './converter-set.js';
import { collectingDeadLetterSink } from './dead-letter.js';
import { ProcessingContext } from './error-stage.js';
import { createTaskErrorHandler } from './error-tolerance.js';
import type { SourceEnvelope } from './record-envelope.js';
import { DROP, type PipelineStage, RecordPipeline } from './record-pipeline.js';
import { buildTransformationChain, transformationClassOf } from './transformation-chain.js';

/**
 * The per-record path of a source task: transformations, then key, value and header
 * converters, under the connector's error-handling settings.
 */
export interface SourceRecordPipeline {
  /**
   * Runs each envelope's original through the stages, in turn, and sets its `outgoing` record
   * (dropped or skipped: `null`) and its `deadLetters`. Rejects when a failure is not tolerated.
   */
  process(envelopes: readonly SourceEnvelope[]): Promise<void>;
  close(): void;
}

export interface SourcePipelineDeps {
  readonly plugins: PluginRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly sleep: (ms: number) => Promise<void>;
}

/** A source record on its way through the stages. */
interface SourceWork {
  readonly original: SourceRecord;
  /** The record as transformed (the original until the transformation stage ran). */
  record: SourceRecord;
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: readonly RecordHeader[];
}

const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

/** The record to produce: the transformed record's topic, partition and timestamp, converted. */
function outgoingOf({ record, key, value, headers }: SourceWork): OutgoingRecord {
  const out: {
    topic: string;
    key: Uint8Array | null;
    value: Uint8Array | null;
    headers: readonly RecordHeader[];
    partition?: number;
    timestamp?: number;
  } = { topic: record.topic, key, value, headers };
  if (record.kafkaPartition !== null) out.partition = record.kafkaPartition;
  if (record.timestamp !== null) out.timestamp = record.timestamp;
  return out;
}

/**
 * Builds the record path of task `task` of the source connector `config`. Throws ConfigError
 * for an unknown converter or transformation.
 */
export function buildSourcePipeline(
  config: ParsedSourceConnectorConfig,
  task: number,
  deps: SourcePipelineDeps,
): SourceRecordPipeline {
  const chain = buildTransformationChain<SourceRecord>(config.originals, deps.plugins);
  const converters = createConverterSet(config, deps.plugins);
  const deadLetters = collectingDeadLetterSink();
  const { operator } = createTaskErrorHandler(config, task, deps, deadLetters);

  const stages: PipelineStage<SourceWork>[] = [
    {
      stage: 'TRANSFORMATION',
      class: transformationClassOf,
      run: (work) => {
        const transformed = chain.apply(work.record);
        if (transformed === null) return DROP;
        work.record = transformed;
        return undefined;
      },
    },
    {
      stage: 'KEY_CONVERTER',
      class: converters.keyClass,
      run: (work) => {
        const { topic, headers, keySchema, key } = work.record;
        const bytes = converters.key.fromConnectData(topic, headers, keySchema, key);
        if (!isPromiseLike(bytes)) {
          work.key = bytes;
          return undefined;
        }
        return bytes.then((resolved) => {
          work.key = resolved;
          return undefined;
        });
      },
    },
    {
      stage: 'VALUE_CONVERTER',
      class: converters.valueClass,
      run: (work) => {
        const { topic, headers, valueSchema, value } = work.record;
        const bytes = converters.value.fromConnectData(topic, headers, valueSchema, value);
        if (!isPromiseLike(bytes)) {
          work.value = bytes;
          return undefined;
        }
        return bytes.then((resolved) => {
          work.value = resolved;
          return undefined;
        });
      },
    },
    {
      stage: 'HEADER_CONVERTER',
      class: converters.headerClass,
      run: (work) => {
        const { topic, headers } = work.record;
        const converted: RecordHeader[] = [];
        for (const { key, schema, value } of headers) {
          converted.push({
            key,
            value: converters.header.fromConnectHeader(topic, key, schema, value),
          });
        }
        work.headers = converted;
        return undefined;
      },
    },
  ];

  const pipeline = new RecordPipeline<SourceEnvelope, SourceWork>({
    stages,
    operator,
    begin: ({ original }) => ({
      original,
      record: original,
      key: null,
      value: null,
      headers: NO_HEADERS,
    }),
    contextOf: (work) => ProcessingContext.forSource(work.original),
    end: (envelope, work, outcome) => {
      if (outcome === 'passed') envelope.outgoing = outgoingOf(work);
      // Records run one at a time: what the sink holds is this record's.
      else if (outcome === 'failed') envelope.deadLetters = deadLetters.drain();
    },
  });

  return {
    process: (envelopes) => pipeline.process(envelopes),
    close() {
      operator.stop();
      chain.close();
    },
  };
}
