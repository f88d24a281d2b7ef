import type { SourceRecord } from '../../connect/records.js';
import type { RecordMetadata } from '../../connect/source.js';
import type { OutgoingRecord, ProducerTransaction } from '../../ports/kafka.js';
import type { CommittedSourceOffsets } from '../../ports/offset-store.js';
import {
  type CommittedTransaction,
  SourceTransaction,
  type TransactionScope,
} from './source-transaction.js';

export interface SourceCommitterOptions {
  readonly scope: TransactionScope;
  /** Begins a Kafka transaction on the task's producer (one open at a time). */
  readonly begin: () => Promise<ProducerTransaction>;
  /** The recovered committed offsets the first transaction builds on. */
  readonly committed: CommittedSourceOffsets;
  /** Buffered records that trigger a send before the commit (1 = send every poll at once). */
  readonly flushAt: number;
  /**
   * `SourceTask.commitRecord`, called for each record of a transaction once its offsets were
   * promoted; absent when the task does not implement it.
   */
  readonly commitRecord?: (record: SourceRecord, metadata: RecordMetadata | null) => Promise<void>;
}

/**
 * The task's transactions, one after another (docs/exactly-once-source.md, step 5). The
 * promotion of a committed transaction runs while the next one is filled and sent: the next
 * transaction's `pending` is written only once the promotion resolved (`settle`), since a
 * pending entry replaces the one before it.
 */
export class SourceCommitter {
  #open: SourceTransaction | undefined;
  #openedAt = 0;
  /** The transaction being committed (aborted if the commit fails before its outcome is known). */
  #committing: SourceTransaction | undefined;
  #committed: CommittedSourceOffsets;
  #promoting: CommittedTransaction | undefined;
  #transactions = 0;
  readonly #commitMs: number[] = [];

  constructor(private readonly options: SourceCommitterOptions) {
    this.#committed = options.committed;
  }

  /** The offsets of the last transaction committed in Kafka (its promotion may still run). */
  get committed(): CommittedSourceOffsets {
    return this.#committed;
  }

  get transactions(): number {
    return this.#transactions;
  }

  /** How long each commit took (offset records, marker, pending, commit), in ms. */
  get commitMs(): readonly number[] {
    return this.#commitMs;
  }

  get isOpen(): boolean {
    return this.#open !== undefined;
  }

  /** When the open transaction began (on the scope's clock). */
  get openedAt(): number {
    return this.#openedAt;
  }

  /** Begins a transaction unless one is open. */
  async open(): Promise<SourceTransaction> {
    if (this.#open === undefined) {
      const { scope, begin, flushAt } = this.options;
      this.#open = new SourceTransaction(scope, await begin(), this.#committed, flushAt);
      this.#openedAt = scope.now();
    }
    return this.#open;
  }

  /** Adds a processed poll batch to the open transaction (beginning one if needed). */
  async send(
    polled: readonly SourceRecord[],
    produced: readonly (OutgoingRecord | null)[],
    deadLetters: readonly OutgoingRecord[],
  ): Promise<void> {
    await (await this.open()).send(polled, produced, deadLetters);
  }

  /** Commits the open transaction, if any, and starts its promotion. */
  async commit(): Promise<void> {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    if (open.isEmpty) {
      await open.abort();
      return;
    }
    const now = this.options.scope.now;
    const started = now();
    this.#committing = open;
    const done = await open.commit(() => this.settle());
    this.#committing = undefined;
    this.#commitMs.push(now() - started);
    this.#transactions += 1;
    this.#committed = done.committed;
    this.#promoting = done;
  }

  /**
   * Waits for the last commit's promotion (rejecting with its failure), then reports its
   * records to `commitRecord`.
   */
  async settle(): Promise<void> {
    const promoting = this.#promoting;
    if (promoting === undefined) return;
    this.#promoting = undefined;
    await promoting.promoted;
    const { commitRecord } = this.options;
    if (commitRecord === undefined) return;
    for (const { record, metadata } of promoting.acknowledged()) {
      await commitRecord(record, metadata);
    }
  }

  /**
   * After a failure: the transaction that is open or was being committed (the caller aborts it
   * or drops the producer), after letting an in-flight promotion finish either way.
   */
  async unwind(): Promise<SourceTransaction | undefined> {
    const open = this.#committing ?? this.#open;
    this.#committing = undefined;
    this.#open = undefined;
    const promoting = this.#promoting;
    this.#promoting = undefined;
    await promoting?.promoted.catch(() => undefined);
    return open;
  }
}
