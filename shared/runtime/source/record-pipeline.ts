import type { ParsedSourceConnectorConfig } from '../../config/connector-config.js';
import type { PluginRegistry } from '../../connect/plugin.js';
import type { SourceRecord } from '../../connect/records.js';
import type { Clock } from '../../ports/clock.js';
import type { OutgoingRecord, RecordHeader } from '../../ports/kafka.js';
import type { Logger } from '../../ports/logger.js';
import { createConverterSet } from '../pipeline/converter-set.js';
import { collectingDeadLetterSink } from '../pipeline/dead-letter.js';
import { ProcessingContext } from '../pipeline/error-stage.js';
import {
  createTaskErrorHandler,
  eachInTurn,
  resumeUnderOperator,
  transformationClassOf,
} from '../pipeline/pipeline-support.js';
import { buildTransformationChain } from '../pipeline/transformation-chain.js';
import type { PipelineResult, SourceRecordPipeline } from './pipeline.js';

export interface SourcePipelineDeps {
  readonly plugins: PluginRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly sleep: (ms: number) => Promise<void>;
}

/** The stages in order; a record's progress through them. */
const TRANSFORM = 0;
const KEY = 1;
const VALUE = 2;
const HEADERS = 3;

/** What the stages before the failing one produced (the failing stage resumes from it). */
interface Progress {
  out: SourceRecord;
  key: Uint8Array | null;
  value: Uint8Array | null;
}

const dropped: PipelineResult = Object.freeze({ kind: 'skip', deadLetters: Object.freeze([]) });

function outgoing(
  out: SourceRecord,
  key: Uint8Array | null,
  value: Uint8Array | null,
  headers: RecordHeader[],
): PipelineResult {
  const record: {
    topic: string;
    key: Uint8Array | null;
    value: Uint8Array | null;
    headers: RecordHeader[];
    partition?: number;
    timestamp?: number;
  } = { topic: out.topic, key, value, headers };
  if (out.kafkaPartition !== null) record.partition = out.kafkaPartition;
  if (out.timestamp !== null) record.timestamp = out.timestamp;
  return { kind: 'produce', record: record as OutgoingRecord };
}

/**
 * The source record path under Kafka Connect's error handling: the `transforms` chain, then the
 * key, value and header converters, each run by the retry-with-tolerance operator. A
 * transformation returning null drops the record; a failure that `errors.tolerance=all`
 * tolerates skips it, and with a dead letter queue configured its dead-letter record joins the
 * task's transaction. An untolerated failure throws (the task fails).
 *
 * Transformations and converters are synchronous, so a record runs through them directly; only
 * when a stage throws does the record continue under the operator, from that stage, with the
 * error as the stage's first attempt (retries, tolerance and reporting exactly as if the operator
 * had run every stage: on success the operator only returns the value). The retry window of a
 * failing stage starts after its first attempt rather than before it.
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
  const transformClass = transformationClassOf;
  const skipped = (): PipelineResult => ({ kind: 'skip', deadLetters: deadLetters.drain() });

  const convertKey = (out: SourceRecord) =>
    converters.key.fromConnectData(out.topic, out.headers, out.keySchema, out.key);
  const convertValue = (out: SourceRecord) =>
    converters.value.fromConnectData(out.topic, out.headers, out.valueSchema, out.value);
  const convertHeaders = (out: SourceRecord): RecordHeader[] => {
    const list: RecordHeader[] = [];
    for (const header of out.headers) {
      list.push({
        key: header.key,
        value: converters.header.fromConnectHeader(
          out.topic,
          header.key,
          header.schema,
          header.value,
        ),
      });
    }
    return list;
  };

  /** Continues `record` under the operator from stage `from`, whose first attempt threw `first`. */
  async function resume(
    record: SourceRecord,
    from: number,
    first: { readonly error: unknown } | undefined,
    progress: Progress,
  ): Promise<PipelineResult> {
    const context = ProcessingContext.forSource(record);
    const run = resumeUnderOperator(operator, context, first);
    let { out, key, value } = progress;
    if (from <= TRANSFORM) {
      const transformed = await run('TRANSFORMATION', transformClass, () => chain.apply(record));
      if (transformed.failed) return skipped();
      if (transformed.value === null) return dropped;
      out = transformed.value;
    }
    const current = out;
    if (from <= KEY) {
      const converted = await run('KEY_CONVERTER', converters.keyClass, () => convertKey(current));
      if (converted.failed) return skipped();
      key = converted.value;
    }
    if (from <= VALUE) {
      const converted = await run('VALUE_CONVERTER', converters.valueClass, () =>
        convertValue(current),
      );
      if (converted.failed) return skipped();
      value = converted.value;
    }
    const headers = await run('HEADER_CONVERTER', converters.headerClass, () =>
      convertHeaders(current),
    );
    if (headers.failed) return skipped();
    return outgoing(current, key, value, headers.value);
  }

  /** The record's result, synchronously unless a stage threw (then under the operator). */
  function processOne(record: SourceRecord): PipelineResult | Promise<PipelineResult> {
    let stage = TRANSFORM;
    const progress: Progress = { out: record, key: null, value: null };
    try {
      const out = chain.apply(record);
      if (out === null) return dropped;
      progress.out = out;
      stage = KEY;
      progress.key = convertKey(out);
      stage = VALUE;
      progress.value = convertValue(out);
      stage = HEADERS;
      return outgoing(out, progress.key, progress.value, convertHeaders(out));
    } catch (error) {
      return resume(record, stage, { error }, progress);
    }
  }

  return {
    async process(record: SourceRecord): Promise<PipelineResult> {
      return processOne(record);
    },
    // One record at a time: a failing record's dead letters are drained before the next.
    processBatch: (records) => eachInTurn(records, processOne),
    close() {
      operator.stop();
      chain.close();
    },
  };
}
