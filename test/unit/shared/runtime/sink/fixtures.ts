/** A sink runtime over the memory state store and the recording sink, for the runner's tests. */
import {
  createMemoryStateStore,
  type MemoryStateStore,
} from '../../../../../shared/adapters/memory/memory-state-store.js';
import type { MetricValue } from '../../../../../shared/ports/metrics.js';
import { type EsmSourceRecord, toEsmEvent } from '../../../../../shared/runtime/sink/esm-event.js';
import { SinkTaskCache } from '../../../../../shared/runtime/sink/sink-task-cache.js';
import {
  runSinkInvocation,
  type SinkRunSummary,
  type SinkRuntimeDeps,
} from '../../../../../shared/runtime/sink/sink-task-runner.js';
import { TASK_PARTITIONS_KEY } from '../../../../../shared/runtime/task/task-split.js';
import {
  RECORDING_SINK_CLASS,
  RECORDING_SYSTEM_CONFIG,
  type RecordingSystem,
  recordingSinkRegistry,
  recordingSystem,
} from '../../../../support/recording-sink.js';
import { fakeTime, recordingLogger, recordingSink } from '../pipeline/error-handling-fakes.js';

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
  readonly deps?: Partial<SinkRuntimeDeps>;
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
  const dlq = recordingSink();
  const metrics: { dimensions: Record<string, string>; values: Record<string, MetricValue> }[] = [];
  const deps: SinkRuntimeDeps = {
    store,
    plugins: recordingSinkRegistry(),
    clock: time.clock,
    sleep: time.sleep,
    logger,
    tasks: new SinkTaskCache({ logger }),
    deadLetters: dlq,
    metrics: { publish: (dimensions, values) => metrics.push({ dimensions, values }) },
    random: () => 0.5,
    ...options.deps,
  };
  const run = (e: unknown, deadlineInMs = 60_000): Promise<SinkRunSummary> =>
    runSinkInvocation(deps, {
      connector: name,
      event: e,
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
    deps,
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
