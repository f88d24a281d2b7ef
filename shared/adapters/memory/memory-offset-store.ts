import type { SourcePartitionOffset } from '../../connect/records.js';
import { knownSourcePartitions, nextAdminSourceOffsets } from '../../ports/admin-source-offsets.js';
import type { Clock } from '../../ports/clock.js';
import { MAX_ITEM_BYTES } from '../../ports/config-store.js';
import {
  ConnectorNotFoundError,
  ConnectorNotStoppedError,
  ItemTooLargeError,
  NoPendingOffsetsError,
  StaleVersionError,
} from '../../ports/errors.js';
import type { LeaseFence, TaskRef } from '../../ports/lease-store.js';
import {
  ADMIN_OFFSETS_TASK,
  type CommittedSourceOffsets,
  KAFKA_OFFSETS_TASK,
  type KafkaSourceOffsets,
  type OffsetStore,
  type PendingSourceOffsets,
  type SinkOffset,
  type SinkOffsetAlteration,
  type SourceOffsetAlteration,
  type TaskSourceOffsets,
} from '../../ports/offset-store.js';
import { assertLeaseFence } from './lease-fence.js';
import { type ConnectorItems, compareNames, copy, jsonBytes, type MemoryDb } from './memory-db.js';

/** OffsetStore in memory; the admin entry is the task record {@link ADMIN_OFFSETS_TASK}. */
export class MemoryOffsetStore implements OffsetStore {
  readonly #db: MemoryDb;
  readonly #clock: Clock;

  constructor(db: MemoryDb, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  async getSourceOffsets(ref: TaskRef): Promise<TaskSourceOffsets> {
    const record = this.#db.peek(ref.connector)?.taskRecords.get(ref.task);
    return {
      ...ref,
      ...(record?.committed === undefined ? {} : { committed: copy(record.committed) }),
      ...(record?.pending === undefined ? {} : { pending: copy(record.pending) }),
    };
  }

  async listSourceOffsets(connector: string): Promise<TaskSourceOffsets[]> {
    const tasks = [...(this.#db.peek(connector)?.taskRecords.entries() ?? [])]
      .filter(([, record]) => record.committed !== undefined || record.pending !== undefined)
      .map(([task]) => task)
      .sort((a, b) => a - b);
    return Promise.all(tasks.map((task) => this.getSourceOffsets({ connector, task })));
  }

  async writePendingSourceOffsets(
    ref: TaskRef,
    pending: PendingSourceOffsets,
    fence: LeaseFence,
  ): Promise<void> {
    const record = this.#db.peek(ref.connector)?.taskRecords.get(ref.task);
    assertLeaseFence(record, ref.connector, ref.task, fence);
    const committedSeq = record.committed?.seq;
    if (committedSeq !== undefined && committedSeq >= pending.seq) {
      throw new StaleVersionError(
        `source offsets of ${ref.connector}-${ref.task}`,
        pending.seq - 1,
        committedSeq,
      );
    }
    record.pending = copy(pending);
  }

  async promotePendingSourceOffsets(
    ref: TaskRef,
    seq: number,
    fence: LeaseFence,
  ): Promise<CommittedSourceOffsets> {
    return this.#promote(ref, seq, fence);
  }

  #promote(ref: TaskRef, seq: number, fence: LeaseFence): CommittedSourceOffsets {
    const record = this.#db.peek(ref.connector)?.taskRecords.get(ref.task);
    assertLeaseFence(record, ref.connector, ref.task, fence);
    const { pending, committed } = record;
    if (pending === undefined) {
      throw new NoPendingOffsetsError(ref.connector, ref.task, seq, 'nothing is pending');
    }
    if (pending.seq !== seq) {
      throw new NoPendingOffsetsError(
        ref.connector,
        ref.task,
        seq,
        `pending is seq ${pending.seq}`,
      );
    }
    if (committed !== undefined && committed.seq >= pending.seq) {
      throw new NoPendingOffsetsError(
        ref.connector,
        ref.task,
        seq,
        `committed is already at seq ${committed.seq}`,
      );
    }
    record.committed = { seq: pending.seq, offsets: pending.offsets };
    delete record.pending;
    return copy(record.committed);
  }

  async promoteAndWritePendingSourceOffsets(
    ref: TaskRef,
    promoteSeq: number,
    pending: PendingSourceOffsets,
    fence: LeaseFence,
  ): Promise<CommittedSourceOffsets> {
    const record = this.#db.peek(ref.connector)?.taskRecords.get(ref.task);
    assertLeaseFence(record, ref.connector, ref.task, fence);
    if (pending.seq <= promoteSeq) {
      throw new StaleVersionError(
        `source offsets of ${ref.connector}-${ref.task}`,
        pending.seq - 1,
        promoteSeq,
      );
    }
    const committed = this.#promote(ref, promoteSeq, fence);
    record.pending = copy(pending);
    return committed;
  }

  async discardPendingSourceOffsets(
    ref: TaskRef,
    seq: number,
    fence: LeaseFence,
  ): Promise<boolean> {
    const record = this.#db.peek(ref.connector)?.taskRecords.get(ref.task);
    assertLeaseFence(record, ref.connector, ref.task, fence);
    if (record.pending?.seq !== seq) return false;
    delete record.pending;
    return true;
  }

  async promoteOrDiscardRevokedPendingSourceOffsets(
    ref: TaskRef,
    seq: number,
    revokedEpoch: number,
    outcome: 'committed' | 'aborted',
  ): Promise<boolean> {
    const record = this.#db.peek(ref.connector)?.taskRecords.get(ref.task);
    const pending = record?.pending;
    // As the DynamoDB condition: unleased (no owner) at exactly the revoked epoch, `seq` pending.
    if (
      record === undefined ||
      record.lease !== undefined ||
      record.epoch !== revokedEpoch ||
      pending?.seq !== seq
    ) {
      return false;
    }
    if (outcome === 'committed') {
      if (record.committed !== undefined && record.committed.seq >= seq) return false;
      record.committed = { seq: pending.seq, offsets: pending.offsets };
    }
    delete record.pending;
    return true;
  }

  async commitSinkOffset(connector: string, offset: SinkOffset): Promise<boolean> {
    const offsets = this.#db.items(connector).sinkOffsets;
    const key = sinkKey(offset);
    const current = offsets.get(key);
    if (current !== undefined && current.nextOffset >= offset.nextOffset) return false;
    offsets.set(key, {
      topic: offset.topic,
      partition: offset.partition,
      nextOffset: offset.nextOffset,
    });
    return true;
  }

  async getSinkOffsets(connector: string): Promise<SinkOffset[]> {
    return sinkOffsetsOf(this.#db.peek(connector));
  }

  async alterSinkOffsets(
    connector: string,
    changes: readonly SinkOffsetAlteration[],
  ): Promise<void> {
    const offsets = this.#stopped(connector).sinkOffsets;
    for (const change of changes) {
      if (change.nextOffset === null) offsets.delete(sinkKey(change));
      else {
        offsets.set(sinkKey(change), {
          topic: change.topic,
          partition: change.partition,
          nextOffset: change.nextOffset,
        });
      }
    }
  }

  async resetSinkOffsets(connector: string): Promise<void> {
    this.#stopped(connector).sinkOffsets.clear();
  }

  async alterSourceOffsets(
    connector: string,
    changes: readonly SourceOffsetAlteration[],
  ): Promise<void> {
    this.#stopped(connector);
    this.#writeAdmin(connector, () => changes);
  }

  async resetSourceOffsets(connector: string): Promise<void> {
    this.#stopped(connector);
    this.#writeAdmin(connector, (all) =>
      knownSourcePartitions(all).map((partition) => ({ partition, offset: null })),
    );
  }

  /** Synchronous from read to write, so atomic (no seq race to lose in memory). */
  #writeAdmin(
    connector: string,
    changesOf: (all: readonly TaskSourceOffsets[]) => readonly SourcePartitionOffset[],
  ): void {
    const records = this.#db.items(connector).taskRecords;
    const all = [...records.entries()]
      .sort(([a], [b]) => a - b)
      .map(([task, record]) => ({
        connector,
        task,
        ...(record.committed === undefined ? {} : { committed: record.committed }),
        ...(record.pending === undefined ? {} : { pending: record.pending }),
      }));
    const next = nextAdminSourceOffsets(all, changesOf(all), this.#clock.now());
    if (next === undefined) return;
    const size = jsonBytes(next);
    if (size > MAX_ITEM_BYTES) {
      throw new ItemTooLargeError(`source offsets of ${connector}`, size, MAX_ITEM_BYTES);
    }
    records.set(ADMIN_OFFSETS_TASK, {
      ...records.get(ADMIN_OFFSETS_TASK),
      committed: copy(next),
    });
  }

  async getKafkaSourceOffsets(connector: string): Promise<KafkaSourceOffsets> {
    const record = this.#db.peek(connector)?.taskRecords.get(KAFKA_OFFSETS_TASK);
    return {
      ...(record?.committed === undefined ? { seq: 0, offsets: [] } : copy(record.committed)),
      ...(record?.watermark === undefined ? {} : { watermark: copy(record.watermark) }),
    };
  }

  async writeKafkaSourceOffsets(connector: string, next: KafkaSourceOffsets): Promise<void> {
    const records = this.#db.items(connector).taskRecords;
    const found = records.get(KAFKA_OFFSETS_TASK)?.committed?.seq ?? 0;
    if (found !== next.seq - 1) {
      throw new StaleVersionError(`source offsets of ${connector} (Kafka)`, next.seq - 1, found);
    }
    const size = jsonBytes(next);
    if (size > MAX_ITEM_BYTES) {
      throw new ItemTooLargeError(`source offsets of ${connector} (Kafka)`, size, MAX_ITEM_BYTES);
    }
    const { watermark, ...committed } = copy(next);
    records.set(KAFKA_OFFSETS_TASK, {
      committed,
      ...(watermark === undefined ? {} : { watermark }),
    });
  }

  #stopped(connector: string): ConnectorItems {
    const items = this.#db.peek(connector);
    const target = items?.connector?.targetState;
    if (items === undefined || target === undefined) throw new ConnectorNotFoundError(connector);
    if (target !== 'STOPPED') throw new ConnectorNotStoppedError(connector, target);
    return items;
  }
}

/** Copies of the connector's sink offsets, sorted by topic then partition. */
export function sinkOffsetsOf(items: ConnectorItems | undefined): SinkOffset[] {
  return [...(items?.sinkOffsets.values() ?? [])]
    .map((offset) => ({ ...offset }))
    .sort((a, b) => compareNames(a.topic, b.topic) || a.partition - b.partition);
}

function sinkKey(offset: { readonly topic: string; readonly partition: number }): string {
  return `${offset.topic}#${offset.partition}`;
}
