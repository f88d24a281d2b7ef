/**
 * Sink connectors and tasks (Kafka Connect's `SinkConnector` and `SinkTask`).
 *
 * Offsets per partition are `Map<string, number>` keyed by `topicPartitionKey(tp)`
 * (`'orders-3'`; parse back with `parseTopicPartitionKey`). As in Kafka, an offset is the
 * NEXT offset to consume: the last processed record's offset + 1.
 */
import { Connector, type Task } from './connector.js';
import type { SinkTaskContext } from './context.js';
import type { SinkRecord, TopicPartition } from './records.js';

/** Offsets by `topicPartitionKey`, each the next offset to consume. */
export type TopicPartitionOffsets = ReadonlyMap<string, number>;

/** The sink connector config key listing the topics to consume (comma-separated). */
export const TOPICS_CONFIG = 'topics';
/** The sink connector config key giving a regex of the topics to consume. */
export const TOPICS_REGEX_CONFIG = 'topics.regex';

/** A connector that writes Kafka records to an external system. See {@link Connector}. */
export abstract class SinkConnector extends Connector {
  abstract override createTask(): SinkTask;

  /**
   * Called before the runtime alters (`offset` set) or resets (`null`) the consumer offsets of
   * a STOPPED connector; keys are `topicPartitionKey`s. Throw a ConnectError to refuse.
   * Resolve `true` when the connector acknowledges the change, `false` (the default) when it
   * does not implement this (the runtime alters the offsets anyway).
   */
  async alterOffsets(
    _config: Readonly<Record<string, string>>,
    _offsets: ReadonlyMap<string, number | null>,
  ): Promise<boolean> {
    return false;
  }
}

/**
 * A task that writes records to an external system.
 *
 * Lifecycle (driven by the sink task runner, once per event-source batch):
 * 1. A fresh instance from `SinkConnector.createTask()` (a warm container may keep one across
 *    batches of the same task config and generation).
 * 2. `start(props, context)` once.
 * 3. `open(partitions)` with the partitions of the batch that this instance has not opened.
 * 4. `put(records)`: the converted and transformed records, ordered per partition. Calls
 *    never overlap.
 * 5. `preCommit(currentOffsets)` at the end of each batch; the returned offsets are the ones
 *    the runtime records as durable.
 * 6. `close(partitions)` when partitions are no longer assigned, then `stop()` once, last.
 *
 * Records given to `put` are shared with the runtime: never mutate them.
 */
export abstract class SinkTask implements Task {
  abstract version(): string;

  /** Starts the task; `props` is its task config, `context` valid until `stop` returns. */
  abstract start(props: Readonly<Record<string, string>>, context: SinkTaskContext): Promise<void>;

  /** Partitions now assigned to this task: set up writers for them. Default: nothing. */
  async open(_partitions: readonly TopicPartition[]): Promise<void> {}

  /**
   * Writes (or buffers) `records`. Throw a RetriableError to have the same batch retried
   * (after `context.timeout` if set); any other error fails the batch. Report single bad
   * records through `context.errantRecordReporter` instead of throwing.
   */
  abstract put(records: readonly SinkRecord[]): Promise<void>;

  /** Makes everything given to `put` so far durable. Default: nothing. */
  async flush(_currentOffsets: TopicPartitionOffsets): Promise<void> {}

  /**
   * The offsets safe to commit, given the offsets of everything `put` so far. The default
   * flushes and returns `currentOffsets`. Return fewer (or lower) offsets for data not yet
   * durable; never return offsets above the given ones. Do not mutate `currentOffsets`.
   */
  async preCommit(currentOffsets: TopicPartitionOffsets): Promise<TopicPartitionOffsets> {
    await this.flush(currentOffsets);
    return currentOffsets;
  }

  /** Partitions no longer assigned: flush and release their writers. Default: nothing. */
  async close(_partitions: readonly TopicPartition[]): Promise<void> {}

  /** Stops the task and releases its resources. */
  abstract stop(): Promise<void>;
}
