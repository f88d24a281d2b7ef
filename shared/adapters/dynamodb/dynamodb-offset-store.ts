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
import { type Item, itemSize, num, optN } from './attributes.js';
import {
  connectorKey,
  decodeConnector,
  decodeSinkOffset,
  decodeTaskItem,
  encodeSinkOffset,
  jsonAttr,
  legacySinkOffsetKey,
  sinkOffsetCommit,
  sinkOffsetKey,
  versionAttr,
} from './codec.js';
import { getKafkaEntry, putKafkaEntry } from './dynamodb-kafka-offsets.js';
import { sinkOffsetItems, sinkOffsetsOf } from './dynamodb-sink-offsets.js';
import {
  holdsLeaseFence,
  LEASE_FENCE_CONDITION,
  leaseFenceValues,
  throwLeaseFenced,
} from './lease-fence.js';
import type { DynamoTable, WriteResult } from './table.js';
import { ATTR, KEYS, STATE_TABLE } from './table-schema.js';

const PENDING_ATTRS = `#${ATTR.pendingSeq}, #${ATTR.pendingOffsets}, #${ATTR.pendingPositions}`;
/** Copies pending to committed (operands are read from the item as it was before the update). */
const PENDING_TO_COMMITTED = `#${ATTR.committedSeq} = #${ATTR.pendingSeq}, #${ATTR.committedOffsets} = #${ATTR.pendingOffsets}`;
/** Promotes pending: the update of `promotePendingSourceOffsets` and of a revoked task's. */
const PROMOTE_UPDATE = `SET ${PENDING_TO_COMMITTED} REMOVE ${PENDING_ATTRS}`;
const ABOVE_COMMITTED = (seq: string) =>
  `(attribute_not_exists(#${ATTR.committedSeq}) OR #${ATTR.committedSeq} < ${seq})`;
/** Attempts at the admin entry's conditional write before `StaleVersionError`. */
const ADMIN_WRITE_ATTEMPTS = 3;

/** The sort key of a task's item; the admin entry has its own. */
function sourceSk(task: number): string {
  if (task === ADMIN_OFFSETS_TASK) return KEYS.adminOffsetsSk;
  return task === KAFKA_OFFSETS_TASK ? KEYS.kafkaOffsetsSk : KEYS.taskSk(task);
}

/**
 * OffsetStore over `TASK#n` (source), `TASK#ADMIN` (source offsets changed through the REST
 * API, listed as task {@link ADMIN_OFFSETS_TASK}), `TASK#KAFKA` (source offsets adopted from the
 * offsets topic, {@link KAFKA_OFFSETS_TASK}; dynamodb-kafka-offsets.ts) and `SINKOFFSET#topic#partition` (sink) items,
 * the last in their shards' partitions (v4), and still read in the connector's (v3, codec.ts).
 */
export class DynamoDbOffsetStore implements OffsetStore {
  readonly #table: DynamoTable;
  readonly #clock: Clock;

  constructor(table: DynamoTable, clock: Clock) {
    this.#table = table;
    this.#clock = clock;
  }

  async getSourceOffsets(ref: TaskRef): Promise<TaskSourceOffsets> {
    const item = await this.#table.get(
      connectorKey(ref.connector, sourceSk(ref.task)),
      `read the source offsets of ${ref.connector}-${ref.task}`,
    );
    return sourceOffsets(ref, item);
  }

  async listSourceOffsets(connector: string): Promise<TaskSourceOffsets[]> {
    const items = await this.#table.query(
      KEYS.connectorPk(connector),
      KEYS.taskPrefix,
      `list the source offsets of ${connector}`,
    );
    return items
      .map((item) => sourceOffsets({ connector, task: decodeTaskItem(connector, item).task }, item))
      .filter((offsets) => offsets.committed !== undefined || offsets.pending !== undefined)
      .sort((a, b) => a.task - b.task);
  }

  async writePendingSourceOffsets(
    ref: TaskRef,
    pending: PendingSourceOffsets,
    fence: LeaseFence,
  ): Promise<void> {
    const result = await this.#table.update(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      {
        update: `SET #${ATTR.pendingSeq} = :seq, #${ATTR.pendingOffsets} = :offsets, #${ATTR.pendingPositions} = :positions, #${ATTR.formatVersion} = :v`,
        condition: `${LEASE_FENCE_CONDITION} AND ${ABOVE_COMMITTED(':seq')}`,
        values: {
          ...leaseFenceValues(fence),
          ':seq': num(pending.seq),
          ':offsets': jsonAttr(pending.offsets),
          ':positions': jsonAttr(pending.positions),
          ':v': versionAttr(),
        },
      },
      `write the pending source offsets of ${ref.connector}-${ref.task}`,
    );
    if (result.ok) return;
    const old = result.old === undefined ? undefined : decodeTaskItem(ref.connector, result.old);
    if (!holdsLeaseFence(old, fence)) throwLeaseFenced(ref, fence, result);
    throw new StaleVersionError(
      `source offsets of ${ref.connector}-${ref.task}`,
      pending.seq - 1,
      old?.committed?.seq,
    );
  }

  async promotePendingSourceOffsets(
    ref: TaskRef,
    seq: number,
    fence: LeaseFence,
  ): Promise<CommittedSourceOffsets> {
    const result = await this.#table.update(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      {
        update: PROMOTE_UPDATE,
        condition: `${LEASE_FENCE_CONDITION} AND #${ATTR.pendingSeq} = :seq AND ${ABOVE_COMMITTED(`#${ATTR.pendingSeq}`)}`,
        values: { ...leaseFenceValues(fence), ':seq': num(seq) },
      },
      `promote the pending source offsets of ${ref.connector}-${ref.task}`,
    );
    if (result.ok) {
      const committed = decodeTaskItem(ref.connector, result.item).committed;
      if (committed !== undefined) return committed;
    }
    this.#refusedPromotion(ref, seq, fence, result);
  }

  /** Why a promotion of `seq` was refused: LeaseFencedError or NoPendingOffsetsError. */
  #refusedPromotion(ref: TaskRef, seq: number, fence: LeaseFence, result: WriteResult): never {
    const old =
      result.ok || result.old === undefined ? undefined : decodeTaskItem(ref.connector, result.old);
    if (!result.ok && !holdsLeaseFence(old, fence)) throwLeaseFenced(ref, fence, result);
    const detail =
      old?.pending === undefined
        ? 'nothing is pending'
        : old.pending.seq !== seq
          ? `pending is seq ${old.pending.seq}`
          : `committed is already at seq ${old.committed?.seq ?? 0}`;
    throw new NoPendingOffsetsError(ref.connector, ref.task, seq, detail);
  }

  async promoteAndWritePendingSourceOffsets(
    ref: TaskRef,
    promoteSeq: number,
    pending: PendingSourceOffsets,
    fence: LeaseFence,
  ): Promise<CommittedSourceOffsets> {
    const what = `source offsets of ${ref.connector}-${ref.task}`;
    if (pending.seq <= promoteSeq) throw new StaleVersionError(what, pending.seq - 1, promoteSeq);
    // Every operand is read from the item as it was before the update.
    const result = await this.#table.update(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      {
        update: `SET ${PENDING_TO_COMMITTED}, #${ATTR.pendingSeq} = :next, #${ATTR.pendingOffsets} = :offsets, #${ATTR.pendingPositions} = :positions, #${ATTR.formatVersion} = :v`,
        condition: `${LEASE_FENCE_CONDITION} AND #${ATTR.pendingSeq} = :seq AND ${ABOVE_COMMITTED(`#${ATTR.pendingSeq}`)}`,
        values: {
          ...leaseFenceValues(fence),
          ':seq': num(promoteSeq),
          ':next': num(pending.seq),
          ':offsets': jsonAttr(pending.offsets),
          ':positions': jsonAttr(pending.positions),
          ':v': versionAttr(),
        },
      },
      `promote and write the pending source offsets of ${ref.connector}-${ref.task}`,
    );
    if (result.ok) {
      const committed = decodeTaskItem(ref.connector, result.item).committed;
      if (committed !== undefined) return committed;
    }
    this.#refusedPromotion(ref, promoteSeq, fence, result);
  }

  async discardPendingSourceOffsets(
    ref: TaskRef,
    seq: number,
    fence: LeaseFence,
  ): Promise<boolean> {
    const result = await this.#table.update(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      {
        update: `REMOVE ${PENDING_ATTRS}`,
        condition: `${LEASE_FENCE_CONDITION} AND #${ATTR.pendingSeq} = :seq`,
        values: { ...leaseFenceValues(fence), ':seq': num(seq) },
      },
      `discard the pending source offsets of ${ref.connector}-${ref.task}`,
    );
    if (result.ok) return true;
    const old = result.old === undefined ? undefined : decodeTaskItem(ref.connector, result.old);
    if (!holdsLeaseFence(old, fence)) throwLeaseFenced(ref, fence, result);
    return false;
  }

  async promoteOrDiscardRevokedPendingSourceOffsets(
    ref: TaskRef,
    seq: number,
    revokedEpoch: number,
    outcome: 'committed' | 'aborted',
  ): Promise<boolean> {
    const unleased = `attribute_not_exists(#${ATTR.owner}) AND #${ATTR.epoch} = :epoch AND #${ATTR.pendingSeq} = :seq`;
    const result = await this.#table.update(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      outcome === 'committed'
        ? {
            update: PROMOTE_UPDATE,
            condition: `${unleased} AND ${ABOVE_COMMITTED(`#${ATTR.pendingSeq}`)}`,
            values: { ':epoch': num(revokedEpoch), ':seq': num(seq) },
          }
        : {
            update: `REMOVE ${PENDING_ATTRS}`,
            condition: unleased,
            values: { ':epoch': num(revokedEpoch), ':seq': num(seq) },
          },
      `promote or discard the pending source offsets of ${ref.connector}-${ref.task} after revoking its lease`,
      { readOldOnFailure: false, returnValues: 'NONE' },
    );
    return result.ok;
  }

  async commitSinkOffset(connector: string, offset: SinkOffset): Promise<boolean> {
    const operation = `commit the sink offset of ${connector} ${offset.topic}-${offset.partition}`;
    const result = await this.#table.update(
      sinkOffsetKey(connector, offset.topic, offset.partition),
      sinkOffsetCommit(offset, this.#clock.now()),
      operation,
      { readOldOnFailure: false, returnValues: 'UPDATED_OLD' },
    );
    if (!result.ok) return false;
    // An existing v4 item moved forward: the common case, one request.
    if (result.item[ATTR.offset] !== undefined) return true;
    return this.#firstSinkOffsetCommit(connector, offset, operation);
  }

  /**
   * After a partition's first v4 commit: its v3 item, if any, is moved over (the v4 item takes
   * its position when that is further on) and deleted, and the connector's TASKS item is marked
   * v4 so that code before v4 refuses the connector rather than read the v3 items alone
   * (codec.ts). True when the commit moved the partition's position forward.
   */
  async #firstSinkOffsetCommit(
    connector: string,
    offset: SinkOffset,
    operation: string,
  ): Promise<boolean> {
    const legacyKey = legacySinkOffsetKey(connector, offset.topic, offset.partition);
    const [legacy] = await Promise.all([
      this.#table.get(legacyKey, operation),
      this.#table.update(
        connectorKey(connector, KEYS.tasksSk),
        {
          update: `SET #${ATTR.formatVersion} = :v`,
          condition: `attribute_exists(#${ATTR.pk}) AND #${ATTR.formatVersion} < :v`,
          values: { ':v': versionAttr() },
        },
        operation,
        { readOldOnFailure: false, returnValues: 'NONE' },
      ),
    ]);
    if (legacy === undefined) return true;
    const { nextOffset } = decodeSinkOffset(legacy);
    if (nextOffset > offset.nextOffset) {
      await this.#table.update(
        sinkOffsetKey(connector, offset.topic, offset.partition),
        sinkOffsetCommit({ ...offset, nextOffset }, this.#clock.now()),
        operation,
        { readOldOnFailure: false, returnValues: 'NONE' },
      );
    }
    // Reads take the further of both items, so the v3 one can go once the v4 one holds it.
    await this.#table.delete(legacyKey, {}, operation);
    return nextOffset < offset.nextOffset;
  }

  async getSinkOffsets(connector: string): Promise<SinkOffset[]> {
    return sinkOffsetsOf(
      await sinkOffsetItems(this.#table, connector, `read the sink offsets of ${connector}`),
    );
  }

  async alterSinkOffsets(
    connector: string,
    changes: readonly SinkOffsetAlteration[],
  ): Promise<void> {
    const operation = `alter the sink offsets of ${connector}`;
    await this.#requireStopped(connector, operation);
    const now = this.#clock.now();
    await Promise.all(
      changes.map(async (change) => {
        const { topic, partition, nextOffset } = change;
        // A v3 item left behind would be read as the max of both: it goes first.
        await this.#table.delete(legacySinkOffsetKey(connector, topic, partition), {}, operation);
        await (nextOffset === null
          ? this.#table.delete(sinkOffsetKey(connector, topic, partition), {}, operation)
          : this.#table.put(
              encodeSinkOffset(connector, { topic, partition, nextOffset }, now),
              {},
              operation,
            ));
      }),
    );
  }

  async resetSinkOffsets(connector: string): Promise<void> {
    const operation = `reset the sink offsets of ${connector}`;
    await this.#requireStopped(connector, operation);
    const { partitionKey, sortKey } = STATE_TABLE;
    const items = await sinkOffsetItems(this.#table, connector, operation, [
      partitionKey.name,
      sortKey.name,
    ]);
    await this.#table.deleteAll(items, operation);
  }

  async alterSourceOffsets(
    connector: string,
    changes: readonly SourceOffsetAlteration[],
  ): Promise<void> {
    const operation = `alter the source offsets of ${connector}`;
    await this.#requireStopped(connector, operation);
    await this.#writeAdmin(connector, operation, () => changes);
  }

  async resetSourceOffsets(connector: string): Promise<void> {
    const operation = `reset the source offsets of ${connector}`;
    await this.#requireStopped(connector, operation);
    await this.#writeAdmin(connector, operation, (all) =>
      knownSourcePartitions(all).map((partition) => ({ partition, offset: null })),
    );
  }

  /**
   * Reads every source entry (one Query), computes the admin entry and writes it, conditioned on
   * the admin seq read, so concurrent alterations serialise; a lost race reads again.
   */
  async #writeAdmin(
    connector: string,
    operation: string,
    changesOf: (all: readonly TaskSourceOffsets[]) => readonly SourcePartitionOffset[],
  ): Promise<void> {
    let previous = 0;
    let found: number | undefined;
    for (let attempt = 0; attempt < ADMIN_WRITE_ATTEMPTS; attempt += 1) {
      const all = await this.listSourceOffsets(connector);
      previous = all.find((task) => task.task === ADMIN_OFFSETS_TASK)?.committed?.seq ?? 0;
      const now = this.#clock.now();
      const next = nextAdminSourceOffsets(all, changesOf(all), now);
      if (next === undefined) return;
      const item: Item = {
        ...connectorKey(connector, KEYS.adminOffsetsSk),
        [ATTR.formatVersion]: versionAttr(),
        [ATTR.task]: num(ADMIN_OFFSETS_TASK),
        [ATTR.committedSeq]: num(next.seq),
        [ATTR.committedOffsets]: jsonAttr(next.offsets),
        [ATTR.updatedAt]: num(now),
      };
      const size = itemSize(item);
      if (size > MAX_ITEM_BYTES) {
        throw new ItemTooLargeError(`source offsets of ${connector}`, size, MAX_ITEM_BYTES);
      }
      const result = await this.#table.put(
        item,
        previous === 0
          ? { condition: `attribute_not_exists(#${ATTR.committedSeq})` }
          : {
              condition: `#${ATTR.committedSeq} = :previous`,
              values: { ':previous': num(previous) },
            },
        operation,
      );
      if (result.ok) return;
      found = result.old === undefined ? undefined : optN(result.old, ATTR.committedSeq);
    }
    throw new StaleVersionError(`source offsets of ${connector} (REST changes)`, previous, found);
  }

  getKafkaSourceOffsets(connector: string): Promise<KafkaSourceOffsets> {
    return getKafkaEntry(this.#table, connector);
  }

  writeKafkaSourceOffsets(connector: string, next: KafkaSourceOffsets): Promise<void> {
    return putKafkaEntry(this.#table, connector, next, this.#clock.now());
  }

  async #requireStopped(connector: string, operation: string): Promise<void> {
    const item = await this.#table.get(connectorKey(connector, KEYS.connectorSk), operation);
    if (item === undefined) throw new ConnectorNotFoundError(connector);
    const { targetState } = decodeConnector(item);
    if (targetState !== 'STOPPED') throw new ConnectorNotStoppedError(connector, targetState);
  }
}

function sourceOffsets(ref: TaskRef, item: Item | undefined): TaskSourceOffsets {
  const decoded = item === undefined ? undefined : decodeTaskItem(ref.connector, item);
  return {
    ...ref,
    ...(decoded?.committed === undefined ? {} : { committed: decoded.committed }),
    ...(decoded?.pending === undefined ? {} : { pending: decoded.pending }),
  };
}
