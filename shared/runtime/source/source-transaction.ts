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
  readonly #latest = new Map<string, SourcePartitionOffset>();
  #firstPosition: TopicPartitionOffset | undefined;
  #recordCount = 0;

  constructor(
    private readonly scope: TransactionScope,
    private readonly tx: ProducerTransaction,
    private readonly committed: CommittedSourceOffsets,
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
   * Sends one poll's results. `outgoing[i]` belongs to `polled[i]`'s position; a polled record
   * that produced nothing (dropped, dead-lettered) still advances its source offset.
   */
  async send(
    polled: readonly SourceRecord[],
    produced: readonly (OutgoingRecord | null)[],
    deadLetters: readonly OutgoingRecord[],
  ): Promise<void> {
    await this.scope.checkpoint('before-send');
    const outgoing = [...produced.filter((r): r is OutgoingRecord => r !== null), ...deadLetters];
    const positions = await this.tx.send(outgoing);
    this.#firstPosition ??= positions[0];
    this.#recordCount += outgoing.length;
    let next = 0;
    polled.forEach((record, i) => {
      const position = produced[i] === null ? undefined : positions[next++];
      this.#sent.push({ record, position });
      if (record.sourcePartition !== null && record.sourceOffset !== null) {
        const entry = { partition: record.sourcePartition, offset: record.sourceOffset };
        this.#latest.set(sourcePartitionKey(entry.partition), entry);
      }
    });
    await this.scope.checkpoint('after-send');
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
    const offsetPositions = await this.tx.send(
      advanced.map((entry) => offsetRecord(scope.offsetsTopic, scope.connector, entry)),
    );
    await this.tx.sendOffsets(scope.markerGroup, [
      { topic: scope.offsetsTopic, partition: 0, offset: seq },
    ]);
    const probe = offsetPositions[0] ?? this.#firstPosition;
    const offsets = mergeOffsets(this.committed.offsets, advanced);
    await scope.offsets.writePendingSourceOffsets(
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
    );
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
