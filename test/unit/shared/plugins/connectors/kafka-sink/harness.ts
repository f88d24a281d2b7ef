/**
 * Builds started Kafka sink tasks of an engine over {@link FakeKafka} (the sink as the engine
 * registers it), and the records they are given.
 */

import { createMemoryStateStore } from '../../../../../../shared/adapters/memory/memory-state-store.js';
import type {
  ErrantRecordReporter,
  SinkTaskContext,
} from '../../../../../../shared/connect/context.js';
import { Headers } from '../../../../../../shared/connect/headers.js';
import { SinkRecord } from '../../../../../../shared/connect/records.js';
import { type Schema, Schemas } from '../../../../../../shared/connect/schema.js';
import { createEngine, DEFAULT_ENGINE_SETTINGS } from '../../../../../../shared/engine/engine.js';
import { KAFKA_SINK_CLASS } from '../../../../../../shared/plugins/connectors/kafka-sink/descriptor.js';
import type { KafkaSinkConnector } from '../../../../../../shared/plugins/connectors/kafka-sink/kafka-sink-connector.js';
import type { KafkaSinkTask } from '../../../../../../shared/plugins/connectors/kafka-sink/kafka-sink-task.js';
import { FakeKafka } from '../../../../../support/fake-kafka.js';
import { recordingLogger } from '../../../runtime/pipeline/error-handling-fakes.js';

export const BYTES = 'org.apache.kafka.connect.converters.ByteArrayConverter';
export const JSON_CONVERTER = 'org.apache.kafka.connect.json.JsonConverter';
export const PREFIX = 'sc';
export const CONNECTOR = 'mirror';
export const GROUP = 'connect-mirror';

const encoder = new TextEncoder();
export const bytes = (text: string) => encoder.encode(text);

/** A mirror of `orders` (3 partitions) to `orders.replica`, byte for byte, with `overrides`. */
export function mirrorConfig(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    name: CONNECTOR,
    'connector.class': KAFKA_SINK_CLASS,
    topics: 'orders',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Connect's placeholder syntax
    'topic.rename.format': '${topic}.replica',
    'key.converter': BYTES,
    'value.converter': BYTES,
    'header.converter': BYTES,
    ...overrides,
  };
}

/** A context whose errant record reporter (when `reported` is given) collects reports. */
export function sinkContext(
  props: Record<string, string>,
  reported?: { record: SinkRecord; error: Error }[],
): SinkTaskContext {
  const reporter: ErrantRecordReporter | null =
    reported === undefined
      ? null
      : {
          report: async (record, error) => {
            reported.push({ record, error });
          },
        };
  return {
    configs: () => props,
    offset: () => {},
    timeout: () => {},
    assignment: () => [],
    pause: () => {},
    resume: () => {},
    requestCommit: () => {},
    errantRecordReporter: reporter,
  };
}

/**
 * One container: an engine over a fake cluster with `orders` (3 partitions), and the Kafka sink
 * it registered.
 */
export function container(kafka = new FakeKafka().topic('orders', 3)) {
  const logger = recordingLogger();
  const engine = createEngine(
    { store: createMemoryStateStore(), kafka: kafka.clients, loggers: () => logger },
    { ...DEFAULT_ENGINE_SETTINGS, transactionalIdPrefix: PREFIX },
  );
  const plugins = engine.plugins;
  const descriptor = plugins.resolve(KAFKA_SINK_CLASS, 'sink');
  const connector = () => descriptor.create() as KafkaSinkConnector;
  return { kafka, plugins, logger, descriptor, connector };
}

/** A started task of `config` in `box` (a new container by default). */
export async function startedTask(
  config: Record<string, string> = mirrorConfig(),
  box = container(),
  reported?: { record: SinkRecord; error: Error }[],
): Promise<{ task: KafkaSinkTask } & ReturnType<typeof container>> {
  const task = box.connector().createTask();
  await task.start(config, sinkContext(config, reported));
  return { task, ...box };
}

export interface RecordSpec {
  readonly topic?: string;
  readonly key?: unknown;
  readonly value?: unknown;
  readonly keySchema?: Schema | null;
  readonly valueSchema?: Schema | null;
  readonly headers?: readonly { key: string; value: unknown; schema?: Schema | null }[];
  readonly timestamp?: number | null;
}

/** A record of `orders-<partition>` at `offset`, as the ByteArrayConverter gives it by default. */
export function sinkRecord(partition: number, offset: number, spec: RecordSpec = {}): SinkRecord {
  const headers = new Headers();
  for (const h of spec.headers ?? [{ key: 'seq', value: bytes(String(offset)) }]) {
    headers.add(h.key, h.value, h.schema === undefined ? Schemas.OPTIONAL_BYTES : h.schema);
  }
  return new SinkRecord({
    topic: spec.topic ?? 'orders',
    kafkaPartition: partition,
    kafkaOffset: offset,
    keySchema: spec.keySchema === undefined ? Schemas.OPTIONAL_BYTES : spec.keySchema,
    key: spec.key === undefined ? bytes(`k${partition}-${offset}`) : spec.key,
    valueSchema: spec.valueSchema === undefined ? Schemas.OPTIONAL_BYTES : spec.valueSchema,
    value: spec.value === undefined ? bytes(`v${partition}-${offset}`) : spec.value,
    timestamp: spec.timestamp === undefined ? 1_700_000_000_000 + offset : spec.timestamp,
    timestampType: 'CreateTime',
    headers,
    originalTopic: 'orders',
  });
}

/** Records `from..to` (inclusive) of `orders-<partition>`. */
export function range(partition: number, from: number, to: number): SinkRecord[] {
  return Array.from({ length: to - from + 1 }, (_, i) => sinkRecord(partition, from + i));
}

/** The offsets the runner gives `preCommit`: per partition, the last record's offset + 1. */
export function nextOffsets(records: readonly SinkRecord[]): Map<string, number> {
  const next = new Map<string, number>();
  for (const r of records) {
    next.set(`${r.originalTopic}-${r.originalKafkaPartition}`, r.originalKafkaOffset + 1);
  }
  return next;
}

/** `put` then `preCommit`, as the runner does for one batch. */
export async function deliver(task: KafkaSinkTask, records: readonly SinkRecord[]) {
  await task.put(records);
  return task.preCommit(nextOffsets(records));
}

const decoder = new TextDecoder();
export const text = (b: Uint8Array | null | undefined) =>
  b === null || b === undefined ? null : decoder.decode(b);
