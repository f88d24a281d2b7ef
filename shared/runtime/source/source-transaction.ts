import type { SourcePartitionOffset, SourceRecord } from '../../connect/records.js';
import type { RecordMetadata } from '../../connect/source.js';
import type {
  OutgoingRecord,
  ProducerTransaction,
  TopicPartitionOffset,
} from '../../ports/kafka.js';
import type { Fence, TaskRef } from '../../ports/lease-store.js';
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
  readonly fence: Fence;
  readonly connector: string;
  readonly offsetsTopic: string;
  readonly markerGroup: string;
  readonly offsets: OffsetStore;
  readonly checkpoint: (point: SourceCheckpoint) => Promise<void>;
  readonly now: () => number;
}

interface Sent {
  readonly record: SourceRecord;
  readonly position: TopicPartitionOffset | undefined;
}

/**
 * One Kafka transaction of a source task (steps 2 to 6 of docs/exactly-once-source.md): the
 * records of one or more polls, then Kafka Connect offset records for every source partition
 * they advanced, the commit marker, `pending` in the state store, the commit, the promotion.
 */
export class SourceTransaction {
  readonly #sent: Sent[] = [];
  readonly #buffer: { record: OutgoingRecord; sent: number }[] = [];
  readonly #latest = new Map<string, SourcePartitionOffset>();
  #firstPosition: TopicPartitionOffset | undefined;
  #recordCount = 0;

  constructor(
    private readonly scope: TransactionScope,
    private readonly tx: ProducerTransaction,
    private readonly committed: CommittedSourceOffsets,
    /** Buffered records that trigger a send before the commit (1 = send every poll at once). */
    private readonly flushAt = 5_000,
  ) {}

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
    polled.forEach((record, i) => {
      const outgoing = produced[i] ?? null;
      this.#sent.push({ record, position: undefined });
      if (outgoing !== null) this.#buffer.push({ record: outgoing, sent: this.#sent.length - 1 });
      if (record.sourcePartition !== null && record.sourceOffset !== null) {
        const entry = { partition: record.sourcePartition, offset: record.sourceOffset };
        this.#latest.set(sourcePartitionKey(entry.partition), entry);
      }
    });
    for (const record of deadLetters) this.#buffer.push({ record, sent: -1 });
    this.#recordCount += produced.filter((r) => r !== null).length + deadLetters.length;
    if (this.#buffer.length >= this.flushAt) await this.#flush([]);
  }

  /** Sends the buffered records followed by `extra`; returns the positions of `extra`. */
  async #flush(extra: readonly OutgoingRecord[]): Promise<TopicPartitionOffset[]> {
    const buffered = this.#buffer.splice(0);
    if (buffered.length === 0 && extra.length === 0) return [];
    await this.scope.checkpoint('before-send');
    const positions = await this.tx.send([...buffered.map((b) => b.record), ...extra]);
    buffered.forEach((b, i) => {
      const position = positions[i];
      this.#firstPosition ??= position;
      const sent = this.#sent[b.sent];
      if (sent !== undefined) this.#sent[b.sent] = { record: sent.record, position };
    });
    await this.scope.checkpoint('after-send');
    return positions.slice(buffered.length);
  }

  /**
   * Writes the offset records and the marker, records `pending`, commits and promotes. Returns
   * the new committed offsets and each sent record's metadata (for `SourceTask.commitRecord`).
   */
  async commit(): Promise<{
    committed: CommittedSourceOffsets;
    acknowledged: { record: SourceRecord; metadata: RecordMetadata | null }[];
  }> {
    const { scope } = this;
    const seq = this.committed.seq + 1;
    const advanced = [...this.#latest.values()];
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
    // The marker and `pending` are independent; both must be in place before the commit.
    await Promise.all([
      this.tx.sendOffsets(scope.markerGroup, [
        { topic: scope.offsetsTopic, partition: 0, offset: seq },
      ]),
      scope.offsets.writePendingSourceOffsets(
        scope.ref,
        {
          seq,
          offsets,
          positions:
            probe === undefined
              ? []
              : [{ topic: probe.topic, partition: probe.partition, offset: String(probe.offset) }],
        },
        scope.fence,
      ),
    ]);
    await scope.checkpoint('after-pending');
    await this.tx.commit();
    await scope.checkpoint('after-commit');
    const committed = await scope.offsets.promotePendingSourceOffsets(scope.ref, seq, scope.fence);
    await scope.checkpoint('after-promote');
    return {
      committed,
      acknowledged: this.#sent.map(({ record, position }) => ({
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
      })),
    };
  }

  async abort(): Promise<void> {
    await this.tx.abort();
  }
}
