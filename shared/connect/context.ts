/**
 * The contexts the runtime hands to connectors and tasks (Kafka Connect's
 * `ConnectorContext`, `SourceTaskContext`, `SinkTaskContext`, `OffsetStorageReader`,
 * `TransactionContext`, `ErrantRecordReporter`). Plugins call them; only the runtime
 * implements them.
 */
import type {
  SinkRecord,
  SourceOffset,
  SourcePartition,
  SourcePartitionOffset,
  SourceRecord,
  TopicPartition,
} from './records.js';

/** Given to a connector in `start`; valid until `stop` returns. */
export interface ConnectorContext {
  /**
   * Asks the runtime to call `taskConfigs` again and reconfigure the tasks (e.g. the set of
   * tables changed). Returns at once; the enumerator acts on its next run.
   */
  requestTaskReconfiguration(): void;
  /** Reports an unrecoverable error: the connector is marked FAILED with `error`. */
  raiseError(error: Error): void;
}

/** Reads the committed offsets of source partitions (the last durably committed ones). */
export interface OffsetStorageReader {
  /** The committed offset of `partition`, or `null` when none has been committed. */
  offset(partition: SourcePartition): Promise<SourceOffset | null>;
  /** The committed offsets of `partitions`, one entry per partition, in the same order. */
  offsets(partitions: readonly SourcePartition[]): Promise<SourcePartitionOffset[]>;
}

/**
 * Lets a source task define its own transaction boundaries, available only when the
 * connector runs with exactly-once support and `transaction.boundary=connector`.
 * Requests take effect after the current `poll` batch has been dispatched.
 */
export interface TransactionContext {
  /**
   * Commits the current transaction after the current batch (no `record`), or right after
   * `record` has been dispatched (`record` must be one this task returned from `poll`).
   */
  commitTransaction(record?: SourceRecord): void;
  /**
   * Aborts the current transaction after the current batch, or right after `record`; the
   * aborted records are dropped (never redelivered by the runtime). As in Kafka Connect, their
   * source offsets are still committed, so they are not polled again; a task whose data should
   * be reprocessed throws instead.
   */
  abortTransaction(record?: SourceRecord): void;
}

/** The units a plugin metric can have (CloudWatch's names). */
export type PluginMetricUnit = 'Count' | 'Bytes' | 'Milliseconds' | 'Seconds' | 'None';

/**
 * A task's own metrics (Kafka Connect's `PluginMetrics`, KIP-877), published by the runtime with
 * the task's metrics when the invocation ends, under the same dimensions (CloudWatch
 * `ServerlessConnect/<stack>`, `{Connector}`; see docs/metrics.md).
 */
export interface PluginMetrics {
  /**
   * Sets gauge `name` to `value`; the last value set in an invocation is published. `name`:
   * letters, digits and underscores, not one of the runtime's own metric names (such a gauge is
   * dropped). Non-finite values are dropped.
   */
  gauge(name: string, value: number, unit?: PluginMetricUnit): void;
}

/** Given to a source task in `start`; valid until `stop` returns. */
export interface SourceTaskContext {
  /** The task's configuration, as given to `start` (read-only). */
  configs(): Readonly<Record<string, string>>;
  /** Committed offsets, to resume from in `start` (or later). */
  readonly offsetStorageReader: OffsetStorageReader;
  /**
   * `null` unless exactly-once support is enabled and `transaction.boundary=connector`
   * (Connect returns `null` in the same cases).
   */
  readonly transactionContext: TransactionContext | null;
  /** The task's own metrics. */
  pluginMetrics(): PluginMetrics;
}

/** Sends a record that failed in `put` to the dead letter queue and/or the error log. */
export interface ErrantRecordReporter {
  /**
   * Reports `record` as failed with `error`. Resolves once the report is durable (the DLQ
   * write acknowledged). Rejects when the error tolerance is `none`: the task then fails.
   * The task must not commit the record's offset before the returned promise resolves or rejects.
   */
  report(record: SinkRecord, error: Error): Promise<void>;
}

/**
 * Given to a sink task in `start`; valid until `stop` returns. Partition positions belong to
 * the Lambda event source mapping, so `offset`, `pause` and `resume` are requests the runtime
 * honours where the mapping allows (documented per runtime), not guarantees.
 */
export interface SinkTaskContext {
  /** The task's configuration, as given to `start` (read-only). */
  configs(): Readonly<Record<string, string>>;
  /** Asks to consume `partition` from `offset` next (e.g. the last offset the sink stored). */
  offset(partition: TopicPartition, offset: number): void;
  /** Asks `put` to be retried after `timeoutMs` when it throws a RetriableError. */
  timeout(timeoutMs: number): void;
  /** The partitions currently assigned to this task (those of the current batch). */
  assignment(): TopicPartition[];
  /** Asks not to receive records of `partitions` until `resume`. */
  pause(...partitions: TopicPartition[]): void;
  resume(...partitions: TopicPartition[]): void;
  /** Asks for a commit (`preCommit`) as soon as possible, i.e. at the end of the batch. */
  requestCommit(): void;
  /** `null` when no error reporting is configured (`errors.tolerance=none`, no DLQ, no log). */
  readonly errantRecordReporter: ErrantRecordReporter | null;
}
