/**
 * The sink runtime of an engine over the memory state store, the fake Kafka cluster and the
 * recording sink, for the runner's tests: what a Lambda container gets, on a fake clock.
 */

import {
  type EsmSourceRecord,
  parseEsmEvent,
  toEsmEvent,
} from '../../../../../shared/adapters/lambda/esm-event.js';
import {
  createMemoryStateStore,
  type MemoryStateStore,
} from '../../../../../shared/adapters/memory/memory-state-store.js';
import { createEngine, DEFAULT_ENGINE_SETTINGS } from '../../../../../shared/engine/engine.js';
import type { MetricValue } from '../../../../../shared/ports/metrics.js';
import type { StateStore } from '../../../../../shared/ports/state-store.js';
import {
  runSinkInvocation,
  type SinkRunSummary,
} from '../../../../../shared/runtime/sink/sink-task-runner.js';
import { TASK_PARTITIONS_KEY } from '../../../../../shared/runtime/task/task-split.js';
import { FakeKafka } from '../../../../support/fake-kafka.js';
import { testPlugins } from '../../../../support/plugin-modules.js';
import {
  RECORDING_SINK_CLASS,
  RECORDING_SYSTEM_CONFIG,
  type RecordingSystem,
  recordingSinkDescriptor,
  recordingSystem,
} from '../../../../support/recording-sink.js';
import { fakeTime, recordingLogger } from '../pipeline/error-handling-fakes.js';

export const TOPIC = 'orders';
export const STRING_CONVERTER = 'org.apache.kafka.connect.storage.StringConverter';
const encoder = new TextEncoder();

/** Records `from..to` (inclusive) of `partition`: key `k<offset>`, value `v<offset>`. */
export function records(partition: number, from: number, to: number): EsmSourceRecord[] {
  return Array.from({ length: to - from + 1 }, (_, i) => ({
    topic: TOPIC,
    partition,
    offset: from + i,
    timestamp: 1_700_000_000_000 + from + i,
    key: encoder.encode(`k${from + i}`),
    value: encoder.encode(`v${from + i}`),
    headers: [],
  }));
}

/** One event of `parts` (each a list of raw records). */
export function event(...parts: EsmSourceRecord[][]) {
  return toEsmEvent(parts.flat());
}

let counter = 0;

export interface HarnessOptions {
  /** Extra connector config entries. */
  readonly config?: Record<string, string>;
  /** Task configs' extra entries, one per task; default one task owning orders-0 and orders-1. */
  readonly tasks?: Record<string, string>[];
  /** The state store the engine gets, from the memory one (a test's wrapper). */
  readonly store?: (memory: MemoryStateStore) => StateStore;
  /** Connect's `topic.tracking.enable`. @default true */
  readonly topicTracking?: boolean;
}

export async function harness(options: HarnessOptions = {}) {
  counter += 1;
  const name = `sink-${counter}`;
  const time = fakeTime();
  const store: MemoryStateStore = createMemoryStateStore({ clock: time.clock });
  const systemName = `${name}-${Date.now()}`;
  const system: RecordingSystem = recordingSystem(systemName);
  const config = {
    name,
    'connector.class': RECORDING_SINK_CLASS,
    topics: TOPIC,
    'key.converter': STRING_CONVERTER,
    'value.converter': STRING_CONVERTER,
    [RECORDING_SYSTEM_CONFIG]: systemName,
    ...options.config,
  };
  await store.configs.createConnector(name, config);
  const tasks = options.tasks ?? [{ [TASK_PARTITIONS_KEY]: `${TOPIC}-0,${TOPIC}-1` }];
  await store.configs.putTaskConfigs(
    name,
    tasks.map((t) => ({ [RECORDING_SYSTEM_CONFIG]: systemName, ...t })),
    0,
  );
  const logger = recordingLogger();
  const kafka = new FakeKafka();
  const metrics: { dimensions: Record<string, string>; values: Record<string, MetricValue> }[] = [];
  const engine = createEngine(
    {
      store: options.store?.(store) ?? store,
      kafka: kafka.clients,
      clock: time.clock,
      sleep: time.sleep,
      random: () => 0.5,
      loggers: () => logger,
      metrics: { publish: (dimensions, values) => metrics.push({ dimensions, values }) },
      pluginModules: testPlugins(recordingSinkDescriptor),
    },
    {
      ...DEFAULT_ENGINE_SETTINGS,
      topicTracking: { enabled: options.topicTracking ?? true, allowReset: true },
    },
  );
  const sink = engine.sink;
  /** The dead letter queue: what the engine's idempotent producers sent. */
  const dlq = { sent: kafka.sent };
  const run = (e: unknown, deadlineInMs = 60_000): Promise<SinkRunSummary> =>
    runSinkInvocation(sink, {
      connector: name,
      records: () => parseEsmEvent(e),
      deadline: time.now() + deadlineInMs,
      workerId: 'worker-1',
    });
  const stored = async () =>
    Object.fromEntries(
      (await store.offsets.getSinkOffsets(name)).map((o) => [
        `${o.topic}-${o.partition}`,
        o.nextOffset,
      ]),
    );
  return {
    name,
    store,
    time,
    system,
    engine,
    sink,
    kafka,
    logger,
    dlq,
    metrics,
    run,
    stored,
  };
}

/** The `topic-partition@offset` coordinates `records` stand for. */
export function ids(list: readonly { topic: string; partition: number; offset: number }[]) {
  return list.map((r) => `${r.topic}-${r.partition}@${r.offset}`);
}
