import type { SourcePartitionOffset, SourceRecord } from '../../connect/records.js';
import type { RecordMetadata } from '../../connect/source.js';
import type {
  OutgoingRecord,
  ProducerTransaction,
  TopicPartitionOffset,
} from '../../ports/kafka.js';
import type { LeaseFence, TaskRef } from '../../ports/lease-store.js';
import type { CommittedSourceOffsets, OffsetStore } from '../../ports/offset-store.js';
import type { SourceEnvelope } from '../pipeline/record-envelope.js';
import { mergeOffsets, offsetRecord, sourcePartitionKey } from './offsets-topic.js';

/** The protocol steps a test can stop an invocation at (a simulated crash or a stall). */
export type SourceCheckpoint =
  | 'before-send'
  | 'after-send'
  | 'after-pending'
  | 'after-commit'
  | 'after-promote';

export interface TransactionScope {
  readonly ref: TaskRef;
  readonly fence: LeaseFence;
  readonly connector: string;
  readonly offsetsTopic: string;
  readonly offsets: OffsetStore;
  readonly checkpoint: (point: SourceCheckpoint) => Promise<void>;
  readonly now: () => number;
}

/**
 * A transaction committed in Kafka whose pending offsets are not promoted yet: the next
 * transaction's pending write promotes them, or a promotion of their own does.
 */
export interface CommittedTransaction {
  /** The offsets the promotion makes committed (the next transaction builds on them). */
  readonly committed: CommittedSourceOffsets;
  /** Each polled record with where it landed (`null` when it produced nothing). */
  acknowledged(): { record: SourceRecord; metadata: RecordMetadata | null }[];
}

/**
 * Whether `a` and `b` have the same own keys with the same primitive values (then their
 * canonical JSON is the same). False for nested values: the caller computes the key instead.
 */
function sameFlatObject(
  a: Readonly<Record<string, unknown>>,
  b: Readonly<Record<string, unknown>>,
): boolean {
  if (a === b) return true;
  let keys = 0;
  for (const key in a) {
    const value = a[key];
    if (typeof value === 'object' && value !== null) return false;
    if (b[key] !== value || !Object.hasOwn(a, key) || !Object.hasOwn(b, key)) return false;
    keys += 1;
  }
  for (const _ in b) keys -= 1;
  return keys === 0;
}

/**
 * One Kafka transaction of a source task (steps 2 to 6 of docs/exactly-once-source.md): the
 * records of one or more polls, then Kafka Connect offset records for every source partition
 * they advanced, `pending` in the state store, the commit, the promotion.
 */
export class SourceTransaction {
  /** Every polled record the transaction took, in its envelope. */
  readonly #envelopes: SourceEnvelope[] = [];
  /** The envelopes whose records (outgoing and dead letters) are not sent yet. */
  #buffer: SourceEnvelope[] = [];
  /** How many records #buffer holds. */
  #buffered = 0;
  /** The last record of each source partition, by partition key. */
  readonly #latest: Map<string, SourceRecord>;
  #lastPartition: Readonly<Record<string, unknown>> | undefined;
  #lastKey = '';
  #recordCount = 0;
  #deadLetterCount = 0;

  constructor(
    private readonly scope: TransactionScope,
    private readonly tx: ProducerTransaction,
    private readonly committed: CommittedSourceOffsets,
    /** Buffered records that trigger a send before the commit (1 = send every poll at once). */
    private readonly flushAt = 5_000,
    /** Source partitions an aborted transaction advanced: this one commits their offsets. */
    carried?: ReadonlyMap<string, SourceRecord>,
  ) {
    this.#latest = new Map(carried);
  }

  /** The last record of each source partition this transaction advanced, by partition key. */
  get advanced(): ReadonlyMap<string, SourceRecord> {
    return this.#latest;
  }

  /** Of {@link size}, the dead letters. */
  get deadLetters(): number {
    return this.#deadLetterCount;
  }

  /** Records sent (produced or dead-lettered) so far. */
  get size(): number {
    return this.#recordCount;
  }

  /** Whether committing would change anything (records sent or offsets advanced). */
  get isEmpty(): boolean {
    return this.#recordCount === 0 && this.#latest.size === 0;
  }

  /**
   * Adds polled records, each in its envelope with what the pipeline made of it: its outgoing
   * record, its dead letters. A record that produced nothing (dropped, dead-lettered) still
   * advances its source offset. Records are buffered and sent in one produce request with the
   * offset records at commit (or when the buffer reaches `flushAt` records, for long interval
   * or connector transactions).
   */
  async send(envelopes: readonly SourceEnvelope[]): Promise<void> {
    for (const envelope of envelopes) {
      this.#envelopes.push(envelope);
      const { original, outgoing, deadLetters } = envelope;
      const sends = (outgoing === null ? 0 : 1) + deadLetters.length;
      if (sends > 0) {
        this.#buffer.push(envelope);
        this.#buffered += sends;
        this.#recordCount += sends;
        this.#deadLetterCount += deadLetters.length;
      }
      if (original.sourcePartition !== null && original.sourceOffset !== null) {
        this.#latest.set(this.#keyOf(original.sourcePartition), original);
      }
    }
    if (this.#buffered >= this.flushAt) await this.#flush([]);
  }

  /**
   * The partition's key. Consecutive records of one source partition usually carry equal flat
   * partition objects (each record holds its own copy), so the last key is reused for them.
   */
  #keyOf(partition: SourcePartitionOffset['partition']): string {
    const last = this.#lastPartition;
    if (last === undefined || !sameFlatObject(partition, last)) {
      this.#lastPartition = partition;
      this.#lastKey = sourcePartitionKey(partition);
    }
    return this.#lastKey;
  }

  /**
   * Sends the buffered envelopes' records (each outgoing record followed by its dead letters)
   * then `extra`; notes where each outgoing record was written; returns the positions of `extra`.
   */
  async #flush(extra: readonly OutgoingRecord[]): Promise<TopicPartitionOffset[]> {
    const buffered = this.#buffer;
    const count = this.#buffered;
    this.#buffer = [];
    this.#buffered = 0;
    if (count === 0 && extra.length === 0) return [];
    await this.scope.checkpoint('before-send');
    const records: OutgoingRecord[] = new Array(count + extra.length);
    let next = 0;
    for (const { outgoing, deadLetters } of buffered) {
      if (outgoing !== null) records[next++] = outgoing;
      for (const record of deadLetters) records[next++] = record;
    }
    for (const record of extra) records[next++] = record;
    const positions = await this.tx.send(records);
    next = 0;
    for (const envelope of buffered) {
      if (envelope.outgoing !== null) envelope.written = positions[next++];
      next += envelope.deadLetters.length;
    }
    await this.scope.checkpoint('after-send');
    return positions.slice(count);
  }

  /**
   * Writes the offset records, records `pending` (in the same store write,
   * promotes `previous`, the transaction committed before this one, if it is still pending, then
   * calls `onPromoted`), and commits. Its own promotion is left to the caller.
   */
  async commit(
    previous: CommittedTransaction | undefined,
    onPromoted: () => void,
  ): Promise<CommittedTransaction> {
    const { scope } = this;
    const seq = this.committed.seq + 1;
    const advanced: SourcePartitionOffset[] = [];
    for (const record of this.#latest.values()) {
      if (record.sourcePartition === null) continue;
      advanced.push({ partition: record.sourcePartition, offset: record.sourceOffset });
    }
    const offsetPositions = await this.#flush(
      advanced.map((entry) => offsetRecord(scope.offsetsTopic, scope.connector, entry)),
    );
    // The probe: the first offset record, whose fate is the transaction's. A transaction that
    // advanced no source offsets has none; its pending changes no offsets and recovery discards
    // it without a probe.
    const probe = offsetPositions[0];
    // Each advanced entry is stamped, so a partition that moved between tasks resolves to the
    // entry advanced last (see SourceTaskContextImpl).
    const at = scope.now();
    const offsets = mergeOffsets(
      this.committed.offsets,
      advanced.map((entry) => ({ ...entry, at })),
    );
    const positions =
      probe === undefined
        ? []
        : [{ topic: probe.topic, partition: probe.partition, offset: String(probe.offset) }];
    const pending = { seq, offsets, positions };
    if (previous === undefined) {
      await scope.offsets.writePendingSourceOffsets(scope.ref, pending, scope.fence);
    } else {
      await scope.offsets.promoteAndWritePendingSourceOffsets(
        scope.ref,
        previous.committed.seq,
        pending,
        scope.fence,
      );
      onPromoted();
    }
    await scope.checkpoint('after-pending');
    await this.tx.commit();
    await scope.checkpoint('after-commit');
    return this.#committedAs({ seq, offsets });
  }

  /**
   * The committed view of this transaction. Built here, not in `commit`: a closure made there
   * would share `commit`'s scope, which holds `previous`, so every committed transaction would
   * keep the one before it (and its records) alive for the whole invocation.
   */
  #committedAs(committed: CommittedTransaction['committed']): CommittedTransaction {
    return {
      committed,
      acknowledged: () =>
        this.#envelopes.map(({ original, written }) => ({
          record: original,
          metadata:
            written === undefined
              ? null
              : {
                  topic: written.topic,
                  partition: written.partition,
                  offset: written.offset,
                  timestamp: null,
                },
        })),
    };
  }

  async abort(): Promise<void> {
    await this.tx.abort();
  }
}
