import type { SourcePartitionOffset, SourceRecord } from '../../connect/records.js';
import type { RecordMetadata } from '../../connect/source.js';
import type {
  OutgoingRecord,
  ProducerTransaction,
  TopicPartitionOffset,
} from '../../ports/kafka.js';
import type { LeaseFence, TaskRef } from '../../ports/lease-store.js';
import type { CommittedSourceOffsets, OffsetStore } from '../../ports/offset-store.js';
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
  readonly markerGroup: string;
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
 * they advanced, the commit marker, `pending` in the state store, the commit, the promotion.
 */
export class SourceTransaction {
  readonly #records: SourceRecord[] = [];
  readonly #positions: (TopicPartitionOffset | undefined)[] = [];
  /** Records to send, and the index in #records of each (-1 for a dead letter). */
  #buffer: OutgoingRecord[] = [];
  #bufferIndex: number[] = [];
  /** The last record of each source partition, by partition key. */
  readonly #latest: Map<string, SourceRecord>;
  #lastPartition: Readonly<Record<string, unknown>> | undefined;
  #lastKey = '';
  #firstPosition: TopicPartitionOffset | undefined;
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
   * Adds one poll's results. `produced[i]` belongs to `polled[i]`; a polled record that produced
   * nothing (dropped, dead-lettered) still advances its source offset. Records are buffered and
   * sent in one produce request with the offset records at commit (or when the buffer reaches
   * `flushAt` records, for long interval or connector transactions).
   */
  async send(
    polled: readonly SourceRecord[],
    produced: readonly (OutgoingRecord | null)[],
    deadLetters: readonly OutgoingRecord[],
  ): Promise<void> {
    for (let i = 0; i < polled.length; i += 1) {
      const record = polled[i] as SourceRecord;
      const index = this.#records.length;
      this.#records.push(record);
      this.#positions.push(undefined);
      const outgoing = produced[i] ?? null;
      if (outgoing !== null) {
        this.#buffer.push(outgoing);
        this.#bufferIndex.push(index);
        this.#recordCount += 1;
      }
      if (record.sourcePartition !== null && record.sourceOffset !== null) {
        this.#latest.set(this.#keyOf(record.sourcePartition), record);
      }
    }
    for (const record of deadLetters) {
      this.#buffer.push(record);
      this.#bufferIndex.push(-1);
    }
    this.#recordCount += deadLetters.length;
    this.#deadLetterCount += deadLetters.length;
    if (this.#buffer.length >= this.flushAt) await this.#flush([]);
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

  /** Sends the buffered records followed by `extra`; returns the positions of `extra`. */
  async #flush(extra: readonly OutgoingRecord[]): Promise<TopicPartitionOffset[]> {
    const buffered = this.#buffer;
    const indexes = this.#bufferIndex;
    this.#buffer = [];
    this.#bufferIndex = [];
    if (buffered.length === 0 && extra.length === 0) return [];
    await this.scope.checkpoint('before-send');
    for (const record of extra) buffered.push(record);
    const positions = await this.tx.send(buffered);
    for (let i = 0; i < indexes.length; i += 1) {
      const position = positions[i];
      this.#firstPosition ??= position;
      const index = indexes[i] as number;
      if (index >= 0) this.#positions[index] = position;
    }
    await this.scope.checkpoint('after-send');
    return positions.slice(indexes.length);
  }

  /**
   * Writes the offset records and the marker, records `pending` (in the same store write,
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
    const probe = offsetPositions[0] ?? this.#firstPosition;
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
    const writePending = async (): Promise<void> => {
      if (previous === undefined) {
        await scope.offsets.writePendingSourceOffsets(scope.ref, pending, scope.fence);
        return;
      }
      const { ref, fence } = scope;
      await scope.offsets.promoteAndWritePendingSourceOffsets(
        ref,
        previous.committed.seq,
        pending,
        fence,
      );
      onPromoted();
    };
    // The marker and `pending` are independent; both must be in place before the commit.
    await Promise.all([
      this.tx.sendOffsets(scope.markerGroup, [
        { topic: scope.offsetsTopic, partition: 0, offset: seq },
      ]),
      writePending(),
    ]);
    await scope.checkpoint('after-pending');
    await this.tx.commit();
    await scope.checkpoint('after-commit');
    return {
      committed: { seq, offsets },
      acknowledged: () =>
        this.#records.map((record, i) => {
          const position = this.#positions[i];
          return {
            record,
            metadata:
              position === undefined
                ? null
                : {
                    topic: position.topic,
                    partition: position.partition,
                    offset: position.offset,
                    timestamp: null,
                  },
          };
        }),
    };
  }

  async abort(): Promise<void> {
    await this.tx.abort();
  }
}
