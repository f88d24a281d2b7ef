import type { ParsedSourceConnectorConfig } from '../../connect/connector-config.js';
import type { PluginRegistry } from '../../connect/plugin.js';
import type { SourceRecord } from '../../connect/records.js';
import type { Clock } from '../../ports/clock.js';
import type { OutgoingRecord, RecordHeader } from '../../ports/kafka.js';
import type { Logger } from '../../ports/logger.js';
import { createConverterSet } from '../converter-set.js';
import { collectingDeadLetterSink } from '../dead-letter.js';
import { ProcessingContext } from '../error-stage.js';
import { createErrorHandler, errorHandlingSettingsOf } from '../error-tolerance.js';
import { buildTransformationChain, TransformationError } from '../transformation-chain.js';
import type { PipelineResult, SourceRecordPipeline } from './pipeline.js';

export interface SourcePipelineDeps {
  readonly plugins: PluginRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * The source record path under Kafka Connect's error handling: the `transforms` chain, then the
 * key, value and header converters, each run by the retry-with-tolerance operator. A
 * transformation returning null drops the record; a failure that `errors.tolerance=all`
 * tolerates skips it, and with a dead letter queue configured its dead-letter record joins the
 * task's transaction. An untolerated failure throws (the task fails).
 */
export function buildSourcePipeline(
  config: ParsedSourceConnectorConfig,
  task: number,
  deps: SourcePipelineDeps,
): SourceRecordPipeline {
  const chain = buildTransformationChain<SourceRecord>(config.originals, deps.plugins);
  const converters = createConverterSet(config, deps.plugins);
  const deadLetters = collectingDeadLetterSink();
  const { operator } = createErrorHandler(errorHandlingSettingsOf(config), {
    taskId: { connector: config.name, task },
    logger: deps.logger,
    clock: deps.clock,
    sleep: deps.sleep,
    deadLetterSink: deadLetters,
  });
  const transformClass = (error: unknown) =>
    error instanceof TransformationError ? error.className : 'TransformationChain';
  const skipped = (): PipelineResult => ({ kind: 'skip', deadLetters: deadLetters.drain() });

  return {
    async process(record: SourceRecord): Promise<PipelineResult> {
      const context = ProcessingContext.forSource(record);
      const transformed = await operator.execute(
        'TRANSFORMATION',
        transformClass,
        () => chain.apply(record),
        context,
      );
      if (transformed.failed) return skipped();
      if (transformed.value === null) return { kind: 'skip', deadLetters: [] };
      const out = transformed.value;
      const { topic, headers } = out;
      const key = await operator.execute(
        'KEY_CONVERTER',
        converters.keyClass,
        () => converters.key.fromConnectData(topic, headers, out.keySchema, out.key),
        context,
      );
      if (key.failed) return skipped();
      const value = await operator.execute(
        'VALUE_CONVERTER',
        converters.valueClass,
        () => converters.value.fromConnectData(topic, headers, out.valueSchema, out.value),
        context,
      );
      if (value.failed) return skipped();
      const convertedHeaders = await operator.execute(
        'HEADER_CONVERTER',
        converters.headerClass,
        () => {
          const list: RecordHeader[] = [];
          for (const header of headers) {
            list.push({
              key: header.key,
              value: converters.header.fromConnectHeader(
                topic,
                header.key,
                header.schema,
                header.value,
              ),
            });
          }
          return list;
        },
        context,
      );
      if (convertedHeaders.failed) return skipped();
      const produced: OutgoingRecord = {
        topic,
        key: key.value,
        value: value.value,
        headers: convertedHeaders.value,
        ...(out.kafkaPartition === null ? {} : { partition: out.kafkaPartition }),
        ...(out.timestamp === null ? {} : { timestamp: out.timestamp }),
      };
      return { kind: 'produce', record: produced };
    },
    close() {
      operator.stop();
      chain.close();
    },
  };
}
