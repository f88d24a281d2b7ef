/**
 * The SinkTaskContext of the serverless runtime. Consumer positions belong to Lambda's Kafka
 * event source mapping, so what a Connect worker does with its consumer is, here:
 * - `offset(tp, o)`: rewinds are not supported; the request is recorded ({@link requestedOffsets})
 *   and logged as a warning. (To re-read data, stop the connector and alter its offsets.)
 * - `pause` / `resume`: logged as a warning and ignored; the mapping keeps delivering.
 * - `requestCommit`: nothing to do, every batch ends with `preCommit` and a commit.
 * - `timeout(ms)`: the wait before `put` is retried after a RetriableError (within the invocation).
 * - `assignment()`: the partitions of the current batch that this task owns.
 */
import type { ErrantRecordReporter, SinkTaskContext } from '../../connect/context.js';
import { type SinkRecord, type TopicPartition, topicPartitionKey } from '../../connect/records.js';
import type { TaskRef } from '../../ports/lease-store.js';
import type { Logger } from '../../ports/logger.js';
import type { SinkRecordPipeline } from '../pipeline/sink-pipeline.js';

/** What the context knows about the batch being written. */
export interface SinkBatchScope {
  readonly assignment: readonly TopicPartition[];
  /** Called after each errant record report that succeeded. */
  onErrant(record: SinkRecord, deadLettered: boolean): void;
}

export interface SinkTaskContextOptions {
  readonly ref: TaskRef;
  readonly config: Readonly<Record<string, string>>;
  readonly logger: Logger;
  readonly pipeline: Pick<SinkRecordPipeline, 'errantReporting' | 'reportErrant'>;
  /** The task's class name, reported as the executing class of errant records. */
  readonly taskClass: () => string;
}

export class SinkTaskContextImpl implements SinkTaskContext {
  readonly errantRecordReporter: ErrantRecordReporter | null;
  readonly #options: SinkTaskContextOptions;
  readonly #requested = new Map<string, number>();
  #timeoutMs: number | undefined;
  #batch: SinkBatchScope | undefined;

  constructor(options: SinkTaskContextOptions) {
    this.#options = options;
    this.errantRecordReporter = options.pipeline.errantReporting
      ? { report: (record, error) => this.#report(record, error) }
      : null;
  }

  configs(): Readonly<Record<string, string>> {
    return this.#options.config;
  }

  offset(partition: TopicPartition, offset: number): void {
    this.#requested.set(topicPartitionKey(partition), offset);
    this.#warn(
      `SinkTaskContext.offset(${topicPartitionKey(partition)}, ${offset}) is not supported: the ` +
        'Kafka event source mapping owns consumer positions. The request is ignored; stop the ' +
        'connector and alter its offsets to re-read data',
    );
  }

  timeout(timeoutMs: number): void {
    this.#timeoutMs = timeoutMs;
  }

  assignment(): TopicPartition[] {
    return [...(this.#batch?.assignment ?? [])];
  }

  pause(...partitions: TopicPartition[]): void {
    this.#warn(
      `SinkTaskContext.pause(${partitions.map(topicPartitionKey).join(', ')}) is ignored: the ` +
        'Kafka event source mapping keeps delivering; throw a RetriableError from put to hold back',
    );
  }

  resume(...partitions: TopicPartition[]): void {
    this.#warn(
      `SinkTaskContext.resume(${partitions.map(topicPartitionKey).join(', ')}) is ignored: ` +
        'partitions are never paused in this runtime',
    );
  }

  requestCommit(): void {
    // Every batch ends with preCommit and a commit of the returned offsets.
  }

  /** The last `timeout(ms)` the task asked for, when positive. */
  get retryTimeoutMs(): number | undefined {
    return this.#timeoutMs !== undefined && this.#timeoutMs > 0 ? this.#timeoutMs : undefined;
  }

  /** Rewinds the task asked for through `offset()` (not honoured), by `topic-partition`. */
  requestedOffsets(): ReadonlyMap<string, number> {
    return new Map(this.#requested);
  }

  /** Starts a batch: `assignment()` and the errant record reporter refer to it until `endBatch`. */
  beginBatch(scope: SinkBatchScope): void {
    this.#batch = scope;
  }

  endBatch(): void {
    this.#batch = undefined;
  }

  /** A record the pipeline made carries its consumed original (InternalSinkRecord) to the DLQ. */
  async #report(record: SinkRecord, error: Error): Promise<void> {
    const batch = this.#batch;
    const deadLettered = await this.#options.pipeline.reportErrant(
      record,
      error,
      this.#options.taskClass(),
    );
    batch?.onErrant(record, deadLettered);
  }

  #warn(message: string): void {
    this.#options.logger.warn(message, {
      connector: this.#options.ref.connector,
      task: this.#options.ref.task,
    });
  }
}
