/**
 * A simulated sink worker (Kafka Connect's `WorkerSinkTask`, as our sink runner drives a task
 * per event source mapping batch): it delivers batches, skipping records below the offsets it
 * committed (redeliveries), calls `preCommit` after each and records what it returns, and can
 * lose that commit (a crash between the task's write and the offset write), crash the task
 * instance, or redeliver a batch. At the end it redelivers what was never committed until
 * every offset is.
 */
import type { SinkConnector, SinkRecord, SinkTask, TopicPartition } from '../connect/index.js';
import { ensure, mustNotThrow } from './check.js';
import { KitSinkTaskContext, RecordingConnectorContext } from './contexts.js';
import type { ConnectorConfig, SinkConnectorSubject } from './subjects.js';

const keyOf = (tp: TopicPartition) => `${tp.topic}-${tp.partition}`;
const recordKey = (r: SinkRecord) => `${r.originalTopic}-${r.originalKafkaPartition}`;
/** Redelivery rounds at the end before the kit gives up on uncommitted offsets. */
const FINISH_ROUNDS = 5;

export class SinkWorker {
  readonly #connector: SinkConnector;
  readonly #config: ConnectorConfig;
  /** The runtime's stored offsets: the next offset to deliver per partition. */
  readonly committed = new Map<string, number>();
  #task: {
    task: SinkTask;
    context: KitSinkTaskContext;
    opened: Map<string, TopicPartition>;
    put: Map<string, number>;
  } | null = null;

  private constructor(connector: SinkConnector, config: ConnectorConfig) {
    this.#connector = connector;
    this.#config = config;
  }

  /** Starts the connector with `config` and takes its first task config. */
  static async start(connector: SinkConnector, config: ConnectorConfig): Promise<SinkWorker> {
    await mustNotThrow('connector start', () =>
      connector.start(config, new RecordingConnectorContext()),
    );
    const [taskConfig] = await mustNotThrow('taskConfigs(1)', () => connector.taskConfigs(1));
    ensure(taskConfig !== undefined, () => 'taskConfigs(1) returned no config');
    return new SinkWorker(connector, taskConfig);
  }

  async #current() {
    if (this.#task === null) {
      const task = this.#connector.createTask();
      const context = new KitSinkTaskContext(this.#config);
      await mustNotThrow('task start', () => task.start(this.#config, context));
      this.#task = { task, context, opened: new Map(), put: new Map() };
    }
    return this.#task;
  }

  /**
   * One batch: skip what is committed, `open` new partitions, `put`, `preCommit`. With
   * `loseCommit` the offsets preCommit returns are not stored (the invocation crashed after
   * the task wrote), so the records will be delivered again.
   */
  async deliver(records: readonly SinkRecord[], loseCommit = false): Promise<void> {
    const batch = records.filter(
      (r) => r.originalKafkaOffset >= (this.committed.get(recordKey(r)) ?? 0),
    );
    if (batch.length === 0) return;
    const current = await this.#current();
    const fresh = new Map<string, TopicPartition>();
    for (const r of batch) {
      const tp = { topic: r.originalTopic, partition: r.originalKafkaPartition };
      if (!current.opened.has(keyOf(tp))) fresh.set(keyOf(tp), tp);
    }
    if (fresh.size > 0) {
      for (const [k, tp] of fresh) current.opened.set(k, tp);
      current.context.assign([...current.opened.values()]);
      await current.task.open([...fresh.values()]);
    }
    await current.task.put(batch);
    for (const r of batch) current.put.set(recordKey(r), r.originalKafkaOffset + 1);
    const given = new Map(current.put);
    const returned = await current.task.preCommit(given);
    for (const [k, offset] of returned) {
      const limit = given.get(k);
      ensure(
        limit !== undefined && offset <= limit,
        () => `preCommit returned ${k}=${offset}, above the current offset ${limit ?? '(none)'}`,
      );
      if (!loseCommit) this.committed.set(k, Math.max(this.committed.get(k) ?? 0, offset));
    }
  }

  /** The task instance is lost without `close` or `stop` (a crashed invocation). */
  crash(): void {
    this.#task = null;
  }

  /** Closes the partitions and stops the task (an orderly end). */
  async stopTask(): Promise<void> {
    const current = this.#task;
    if (current === null) return;
    this.#task = null;
    await current.task.close([...current.opened.values()]);
    await current.task.stop();
  }

  /**
   * Redelivers what is not committed, restarting the task between rounds, until every
   * partition is committed to `end`; then stops the task and the connector.
   */
  async finish(stream: readonly SinkRecord[], end: ReadonlyMap<string, number>): Promise<void> {
    const behind = () => [...end].filter(([k, o]) => (this.committed.get(k) ?? 0) < o);
    for (let round = 0; round < FINISH_ROUNDS && behind().length > 0; round++) {
      await this.deliver(stream);
      if (behind().length > 0) await this.stopTask();
    }
    const left = behind();
    ensure(
      left.length === 0,
      () =>
        `preCommit never committed all offsets after ${FINISH_ROUNDS} redeliveries: ${left
          .map(([k, o]) => `${k} at ${this.committed.get(k) ?? 0} of ${o}`)
          .join(', ')}`,
    );
    await this.stopTask();
    await mustNotThrow('connector stop', () => this.#connector.stop());
  }
}

/** The records of `subject.topicPartitions`, interleaved by offset, and each partition's end. */
export function sinkStream(subject: SinkConnectorSubject): {
  stream: SinkRecord[];
  end: Map<string, number>;
} {
  const n = subject.recordsPerPartition ?? 12;
  const stream: SinkRecord[] = [];
  for (let offset = 0; offset < n; offset++) {
    for (const tp of subject.topicPartitions) stream.push(subject.record(tp, offset));
  }
  return { stream, end: new Map(subject.topicPartitions.map((tp) => [keyOf(tp), n])) };
}

/** The index of the first record of `stream` not committed by `worker`. */
export function resumeIndex(stream: readonly SinkRecord[], worker: SinkWorker): number {
  const i = stream.findIndex(
    (r) => r.originalKafkaOffset >= (worker.committed.get(recordKey(r)) ?? 0),
  );
  return i < 0 ? stream.length : i;
}
