/**
 * A sink connector for runtime tests: its tasks write into an in-memory "external system" that
 * is idempotent by Kafka coordinates (a row per topic, partition and offset), and record every
 * lifecycle call. Tests look the system up by the `recording.system` config value, and can
 * inject a failure into the next `put`, replace `preCommit`, or act inside `put`.
 */
import { ConfigDef } from '../../shared/connect/config-def.js';
import type { ConnectorContext, SinkTaskContext } from '../../shared/connect/context.js';
import type { AnyPluginDescriptor } from '../../shared/connect/plugin.js';
import {
  type SinkRecord,
  type TopicPartition,
  topicPartitionKey,
} from '../../shared/connect/records.js';
import { SinkConnector, SinkTask, type TopicPartitionOffsets } from '../../shared/connect/sink.js';

export const RECORDING_SINK_CLASS = 'test.RecordingSinkConnector';
export const RECORDING_SYSTEM_CONFIG = 'recording.system';

/** The external system one or more recording tasks write to. */
export interface RecordingSystem {
  /** Durable rows: `topic-partition` → offset → the last record written there. */
  readonly rows: Map<string, Map<number, SinkRecord>>;
  /** Every `put` call's records, in call order. */
  readonly puts: SinkRecord[][];
  /** Records of each `put` that a `preCommit` followed (what the runtime then committed). */
  readonly committed: SinkRecord[];
  /** Lifecycle calls: `start:<task instance>`, `open:<tp,...>`, `put:<n>`, `preCommit`, `close:<tp,...>`, `stop`. */
  readonly calls: string[];
  /** The contexts tasks were started with. */
  readonly contexts: SinkTaskContext[];
  /**
   * Fails the next `put` once: records before the first record at or above `offset` of
   * `partition` are written, then `error` is thrown. Without `offset`, throws at once.
   */
  failNextPut?:
    | { readonly partition?: string; readonly offset?: number; readonly error: Error }
    | undefined;
  /** Replaces what `preCommit` returns (default: the offsets as given). */
  preCommit?: (current: TopicPartitionOffsets) => TopicPartitionOffsets;
  /** Runs inside `put` after the rows are written. */
  onPut?: (records: readonly SinkRecord[], context: SinkTaskContext) => Promise<void>;
}

const systems = new Map<string, RecordingSystem>();

/** The system named `name`, created empty on first use. */
export function recordingSystem(name: string): RecordingSystem {
  let system = systems.get(name);
  if (system === undefined) {
    system = { rows: new Map(), puts: [], committed: [], calls: [], contexts: [] };
    systems.set(name, system);
  }
  return system;
}

/** Offsets of `records` as `topic-partition@offset` strings (original coordinates). */
export function coordinatesOf(records: readonly SinkRecord[]): string[] {
  return records.map(
    (r) => `${r.originalTopic}-${r.originalKafkaPartition}@${r.originalKafkaOffset}`,
  );
}

let instances = 0;

class RecordingSinkTask extends SinkTask {
  #system: RecordingSystem | undefined;
  #context: SinkTaskContext | undefined;
  #batch: SinkRecord[] = [];
  readonly #instance = ++instances;

  version(): string {
    return '1';
  }

  #sys(): RecordingSystem {
    if (this.#system === undefined) throw new Error('recording sink task not started');
    return this.#system;
  }

  async start(props: Readonly<Record<string, string>>, context: SinkTaskContext): Promise<void> {
    const name = props[RECORDING_SYSTEM_CONFIG];
    if (name === undefined) throw new Error(`${RECORDING_SYSTEM_CONFIG} is required`);
    this.#system = recordingSystem(name);
    this.#context = context;
    this.#system.contexts.push(context);
    this.#system.calls.push(`start:${this.#instance}`);
  }

  override async open(partitions: readonly TopicPartition[]): Promise<void> {
    this.#sys().calls.push(`open:${partitions.map(topicPartitionKey).join(',')}`);
  }

  async put(records: readonly SinkRecord[]): Promise<void> {
    const system = this.#sys();
    system.calls.push(`put:${records.length}`);
    this.#batch = [];
    const failure = system.failNextPut;
    if (failure !== undefined && failure.offset === undefined) {
      system.failNextPut = undefined;
      throw failure.error;
    }
    for (const record of records) {
      const tp = `${record.originalTopic}-${record.originalKafkaPartition}`;
      if (
        failure?.offset !== undefined &&
        tp === failure.partition &&
        record.originalKafkaOffset >= failure.offset
      ) {
        system.failNextPut = undefined;
        throw failure.error;
      }
      const rows = system.rows.get(tp) ?? new Map<number, SinkRecord>();
      system.rows.set(tp, rows);
      rows.set(record.originalKafkaOffset, record);
      this.#batch.push(record);
    }
    if (system.onPut !== undefined && this.#context !== undefined) {
      await system.onPut(records, this.#context);
    }
    system.puts.push([...records]);
  }

  override async preCommit(current: TopicPartitionOffsets): Promise<TopicPartitionOffsets> {
    const system = this.#sys();
    system.calls.push('preCommit');
    system.committed.push(...this.#batch);
    this.#batch = [];
    return system.preCommit === undefined ? current : system.preCommit(current);
  }

  override async close(partitions: readonly TopicPartition[]): Promise<void> {
    this.#sys().calls.push(`close:${partitions.map(topicPartitionKey).join(',')}`);
  }

  async stop(): Promise<void> {
    this.#system?.calls.push('stop');
  }
}

class RecordingSinkConnector extends SinkConnector {
  #props: Readonly<Record<string, string>> = {};
  version(): string {
    return '1';
  }
  config(): ConfigDef {
    return new ConfigDef();
  }
  async start(props: Readonly<Record<string, string>>, _context: ConnectorContext): Promise<void> {
    this.#props = props;
  }
  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    return Array.from({ length: maxTasks }, () => ({ ...this.#props }));
  }
  async stop(): Promise<void> {}
  createTask(): SinkTask {
    return new RecordingSinkTask();
  }
}

export const recordingSinkDescriptor: AnyPluginDescriptor = {
  className: RECORDING_SINK_CLASS,
  aliases: ['recording-sink'],
  type: 'sink',
  version: '1',
  create: () => new RecordingSinkConnector(),
};
