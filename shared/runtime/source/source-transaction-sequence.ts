import type { SourceRecord } from '../../connect/records.js';
import type { RecordMetadata } from '../../connect/source.js';
import type { ProducerTransaction } from '../../ports/kafka.js';
import type { CommittedSourceOffsets } from '../../ports/offset-store.js';
import type { SourceEnvelope } from '../pipeline/record-envelope.js';
import type { TaskActiveTopics } from '../task/active-topics.js';
import {
  type CommittedTransaction,
  SourceTransaction,
  type TransactionScope,
} from './source-transaction.js';

/** What an aborted transaction dropped. */
export interface DroppedRecords {
  /** Records that would have gone to their topics. */
  readonly produced: number;
  readonly deadLetters: number;
}

export interface SourceTransactionSequenceOptions {
  readonly scope: TransactionScope;
  /** Begins a Kafka transaction on the task's producer (one open at a time). */
  readonly begin: () => Promise<ProducerTransaction>;
  /** The recovered committed offsets the first transaction builds on. */
  readonly committed: CommittedSourceOffsets;
  /** Buffered records that trigger a send before the commit (1 = send every poll at once). */
  readonly flushAt: number;
  /**
   * Fold each promotion into the next transaction's pending write (one store write per
   * transaction). Off, each commit is promoted at once: for commits minutes apart (at least
   * once, every `offsetFlushIntervalMs`) folding saves next to nothing, and a pending entry left
   * by a crash costs a read of the offsets topic to settle.
   */
  readonly foldPromotions: boolean;
  /**
   * `SourceTask.commitRecord`, called for each record of a transaction once its offsets were
   * promoted; absent when the task does not implement it.
   */
  readonly commitRecord?: (record: SourceRecord, metadata: RecordMetadata | null) => Promise<void>;
  /**
   * The task's active topics (KIP-558); absent when topic tracking is off. The topics of the
   * records (not of dead letters, which Connect does not count) are recorded once written:
   * when their transaction commits, or at once when every send writes (`flushAt` 1).
   */
  readonly activeTopics?: TaskActiveTopics;
}

/**
 * The task's transactions, one after another (docs/exactly-once-source.md, step 5): it opens
 * each `SourceTransaction` (which does the commit itself: offset records, marker, pending write,
 * Kafka commit), keeps one open at a time, and links each to the one before it. A committed
 * transaction's pending offsets are promoted by the next committed transaction's pending write
 * (one store write per transaction), or by `promoteLastCommitted` when none follows; its records
 * go to `commitRecord` once it is promoted. An aborted transaction drops its records; a
 * transaction of offset records only commits its offsets.
 */
export class SourceTransactionSequence {
  #open: SourceTransaction | undefined;
  #openedAt = 0;
  /** The transaction being committed (aborted if the commit fails before its outcome is known). */
  #committing: SourceTransaction | undefined;
  #committed: CommittedSourceOffsets;
  /** What an aborted transaction advanced, for the next transaction to commit. */
  #carried: ReadonlyMap<string, SourceRecord> | undefined;
  /** Committed in Kafka, its pending offsets not promoted yet. */
  #unpromoted: CommittedTransaction | undefined;
  #transactions = 0;
  readonly #commitMs: number[] = [];
  /** Topics of the open transaction's records not recorded as active yet. */
  readonly #newTopics = new Set<string>();

  constructor(private readonly options: SourceTransactionSequenceOptions) {
    this.#committed = options.committed;
  }

  /** The offsets of the last transaction committed in Kafka (perhaps not promoted yet). */
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
      const carried = this.#carried;
      this.#carried = undefined;
      this.#open = new SourceTransaction(scope, await begin(), this.#committed, flushAt, carried);
      this.#openedAt = scope.now();
    }
    return this.#open;
  }

  /** Adds processed polled records to the open transaction (beginning one if needed). */
  async send(envelopes: readonly SourceEnvelope[]): Promise<void> {
    await (await this.open()).send(envelopes);
    const { activeTopics, flushAt } = this.options;
    if (activeTopics === undefined) return;
    for (const { outgoing } of envelopes) {
      if (outgoing !== null && activeTopics.isNew(outgoing.topic)) {
        this.#newTopics.add(outgoing.topic);
      }
    }
    if (flushAt <= 1) await this.#recordTopics();
  }

  /**
   * Commits the open transaction, if any, promoting the one before it in the same store write;
   * then reports the records of the one before it.
   */
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
    const previous = this.#unpromoted;
    let done: CommittedTransaction;
    try {
      done = await open.commit(previous, () => {
        this.#unpromoted = undefined;
      });
    } catch (error) {
      if (previous !== undefined && this.#unpromoted === undefined) {
        await this.#report(previous).catch(() => undefined);
      }
      throw error;
    }
    this.#committing = undefined;
    this.#commitMs.push(now() - started);
    this.#transactions += 1;
    this.#committed = done.committed;
    this.#unpromoted = done;
    await this.#recordTopics();
    if (previous !== undefined) await this.#report(previous);
    if (!this.options.foldPromotions) await this.promoteLastCommitted();
  }

  /**
   * Aborts the open transaction, if any (`TransactionContext.abortTransaction`): Kafka drops its
   * records and dead letters, and its records never reach `commitRecord`. As in Kafka Connect,
   * its source offsets are still committed, right away in a transaction of their own (offset
   * records only), so the dropped records are not polled again; that transaction promotes a
   * committed one before it as any commit does. Resolves what it dropped (records produced and
   * dead letters), `undefined` when no transaction was open. If the abort fails, `unwind` hands
   * the transaction back.
   */
  async abort(): Promise<DroppedRecords | undefined> {
    const open = this.#open;
    if (open === undefined) return undefined;
    this.#open = undefined;
    this.#committing = open;
    this.#newTopics.clear();
    await open.abort();
    this.#committing = undefined;
    if (open.advanced.size > 0) {
      this.#carried = open.advanced;
      await this.open();
      await this.commit();
    }
    return { produced: open.size - open.deadLetters, deadLetters: open.deadLetters };
  }

  /**
   * Promotes the last committed transaction if no later one did (then the `after-promote`
   * checkpoint), and reports its records to `commitRecord`.
   */
  async promoteLastCommitted(): Promise<void> {
    const unpromoted = this.#unpromoted;
    if (unpromoted === undefined) return;
    const { scope } = this.options;
    await scope.offsets.promotePendingSourceOffsets(
      scope.ref,
      unpromoted.committed.seq,
      scope.fence,
    );
    this.#unpromoted = undefined;
    await scope.checkpoint('after-promote');
    await this.#report(unpromoted);
  }

  /** Records the topics written since the last time as active (never rejects). */
  async #recordTopics(): Promise<void> {
    if (this.#newTopics.size === 0) return;
    const topics = [...this.#newTopics];
    this.#newTopics.clear();
    await this.options.activeTopics?.record(topics);
  }

  async #report(transaction: CommittedTransaction): Promise<void> {
    const { commitRecord } = this.options;
    if (commitRecord === undefined) return;
    for (const { record, metadata } of transaction.acknowledged()) {
      await commitRecord(record, metadata);
    }
  }

  /** After a failure: the transaction that is open or was being committed or aborted (the caller aborts it or drops the producer). */
  unwind(): SourceTransaction | undefined {
    const open = this.#committing ?? this.#open;
    this.#committing = undefined;
    this.#open = undefined;
    this.#newTopics.clear();
    return open;
  }
}
