import { RetriableError } from '../../connect/errors.js';
import { StaleVersionError } from '../../ports/errors.js';
import type { CommittedRead, KafkaAdminPort } from '../../ports/kafka.js';
import type { TaskRef } from '../../ports/lease-store.js';
import type { Logger } from '../../ports/logger.js';
import type {
  KafkaSourceOffsets,
  OffsetStore,
  SourceOffsetEntry,
  TaskSourceOffsets,
} from '../../ports/offset-store.js';
import { canonicalJson, parseOffsetRecord, sourcePartitionKey } from './offsets-topic.js';
import type { RecoveryResult } from './recovery.js';

/**
 * Kafka stays the truth for source offsets (docs/exactly-once-source.md, "Lost or restored
 * state"). The state table is a fast copy of the offsets topic, written after the topic: every
 * committed entry in the store stands for an offset record already committed in the topic. A
 * table that was lost, restored to an earlier moment, or a connector re-created under its name
 * can therefore hold less than the topic, never more; this reads what the topic holds beyond
 * the table and adopts it into the connector's Kafka entry, which the offset lookup (newest `at`
 * per source partition) then prefers.
 *
 * "Newer" is the record's timestamp against the store entry's `at`: a transaction stamps its
 * entries after its offset records were produced, so an entry is never older than the record it
 * stands for, and a record newer than every entry for its partition is one the table lost. The
 * adopted entry carries the record's timestamp, so an owner that advances the partition later
 * stamps a newer `at` and wins again.
 */

/** Attempts at the Kafka entry's conditional write before the invocation gives up (retriable). */
const WRITE_ATTEMPTS = 3;

export interface ReconcileDeps {
  readonly offsets: OffsetStore;
  readonly admin: KafkaAdminPort;
}

export interface ReconcileResult {
  /** Offset records of the topic read (every connector's). */
  readonly read: number;
  /** Source partitions whose offset was adopted from the topic. */
  readonly adopted: number;
}

/**
 * Reads the offsets topic from the Kafka entry's watermark (from the start when there is none,
 * or it is of another topic) to its stable end, adopts what is newer than the store, and moves
 * the watermark. Two reads of the table (the Kafka entry, then every entry of the connector, at
 * the same time as the topic), one bounded read of the topic, at most one write.
 */
export async function reconcileWithOffsetsTopic(
  deps: ReconcileDeps,
  connector: string,
  offsetsTopic: string,
): Promise<ReconcileResult> {
  for (let attempt = 1; ; attempt += 1) {
    const entry = await deps.offsets.getKafkaSourceOffsets(connector);
    const from =
      entry.watermark?.topic === offsetsTopic
        ? entry.watermark.next.map((p) => ({ topic: offsetsTopic, ...p }))
        : [];
    const [read, all] = await Promise.all([
      deps.admin.readCommitted(offsetsTopic, from),
      deps.offsets.listSourceOffsets(connector),
    ]);
    const adopted = newerInTopic(connector, read, all);
    const next = nextKafkaEntry(entry, adopted, offsetsTopic, read);
    if (next === undefined) return { read: read.records.length, adopted: 0 };
    try {
      await deps.offsets.writeKafkaSourceOffsets(connector, next);
      return { read: read.records.length, adopted: adopted.length };
    } catch (error) {
      if (!(error instanceof StaleVersionError)) throw error;
      if (attempt >= WRITE_ATTEMPTS) {
        throw new RetriableError(
          `${connector}: the source offsets adopted from ${offsetsTopic} kept meeting concurrent writes`,
          { cause: error },
        );
      }
    }
  }
}

/**
 * The connector's latest committed offset record per source partition in what was read (log
 * order within a partition; across partitions, as happens with keys written by other clients,
 * the newer timestamp), kept when it is newer than every committed entry in the store for that
 * partition and says something else.
 */
export function newerInTopic(
  connector: string,
  read: CommittedRead,
  stored: readonly TaskSourceOffsets[],
): SourceOffsetEntry[] {
  const latest = new Map<string, { entry: SourceOffsetEntry; partition: number }>();
  for (const record of read.records) {
    let parsed: ReturnType<typeof parseOffsetRecord>;
    try {
      parsed = parseOffsetRecord(record.key, record.value);
    } catch {
      continue; // not JSON: not an offset record of Connect's format
    }
    if (parsed === undefined || parsed.connector !== connector) continue;
    const key = sourcePartitionKey(parsed.entry.partition);
    const seen = latest.get(key);
    if (
      seen === undefined ||
      seen.partition === record.partition ||
      record.timestamp > (seen.entry.at ?? 0)
    ) {
      latest.set(key, {
        entry: { ...parsed.entry, at: record.timestamp },
        partition: record.partition,
      });
    }
  }
  const best = new Map<string, SourceOffsetEntry>();
  for (const entry of stored.flatMap((t) => t.committed?.offsets ?? [])) {
    const key = sourcePartitionKey(entry.partition);
    const current = best.get(key);
    if (current === undefined || (entry.at ?? 0) > (current.at ?? 0)) best.set(key, entry);
  }
  const adopted: SourceOffsetEntry[] = [];
  for (const [key, { entry }] of latest) {
    const current = best.get(key);
    if (current !== undefined && (entry.at ?? 0) <= (current.at ?? 0)) continue;
    if (current !== undefined && canonicalJson(current.offset) === canonicalJson(entry.offset)) {
      continue;
    }
    adopted.push(entry);
  }
  return adopted;
}

/** The Kafka entry after adopting `adopted` and reading up to `read.next`; undefined: unchanged. */
function nextKafkaEntry(
  entry: KafkaSourceOffsets,
  adopted: readonly SourceOffsetEntry[],
  offsetsTopic: string,
  read: CommittedRead,
): KafkaSourceOffsets | undefined {
  const next = read.next.map(({ partition, offset }) => ({ partition, offset }));
  const unmoved =
    entry.watermark?.topic === offsetsTopic &&
    next.every(
      (p) => entry.watermark?.next.find((q) => q.partition === p.partition)?.offset === p.offset,
    );
  if (adopted.length === 0 && unmoved) return undefined;
  const merged = new Map<string, SourceOffsetEntry>();
  for (const e of entry.offsets) merged.set(sourcePartitionKey(e.partition), e);
  for (const e of adopted) merged.set(sourcePartitionKey(e.partition), e);
  return {
    seq: entry.seq + 1,
    offsets: [...merged.values()],
    watermark: { topic: offsetsTopic, next },
  };
}

export interface TaskStartDeps extends ReconcileDeps {
  readonly now: () => number;
  readonly logger?: Logger | undefined;
  /** The container's memory (one per engine); without it, every task start reads the topic. */
  readonly reconciler?: OffsetsTopicReconciler | undefined;
}

export interface TaskStart {
  readonly ref: TaskRef;
  readonly generation: number;
  /** The epoch of the invocation's lease. */
  readonly epoch: number;
  readonly offsetsTopic: string;
  /** What recovery found, just before. */
  readonly recovered: RecoveryResult;
}

/**
 * Step 4 of a source invocation: reads the offsets topic unless this container knows the store
 * is as it left it (see {@link OffsetsTopicReconciler}), and logs what it adopted. Resolves when
 * the container last read it for the task (now, or before) and, when it read it now, what it
 * found. The caller records `reconciledAt` with {@link OffsetsTopicReconciler.ended} once the
 * invocation ends cleanly.
 */
export async function reconcileAtTaskStart(
  deps: TaskStartDeps,
  task: TaskStart,
): Promise<{ readonly reconciledAt: number; readonly result?: ReconcileResult }> {
  const { ref, recovered, offsetsTopic } = task;
  const started = deps.now();
  const since =
    recovered.outcome.kind === 'clean'
      ? deps.reconciler?.reconciledAt(ref, {
          generation: task.generation,
          epoch: task.epoch,
          committedSeq: recovered.committed.seq,
          at: started,
        })
      : undefined;
  // Whatever happens now, only a clean end of this invocation vouches for the store again.
  deps.reconciler?.forget(ref);
  if (since !== undefined) return { reconciledAt: since };
  const result = await reconcileWithOffsetsTopic(deps, ref.connector, offsetsTopic);
  const fields = { ...result, offsetsTopic, ms: deps.now() - started };
  if (result.adopted > 0) {
    deps.logger?.warn(
      `Resuming ${result.adopted} source partition(s) from offsets in ${offsetsTopic} newer than the state table's (the table was lost or restored, or the connector re-created)`,
      fields,
    );
  } else {
    deps.logger?.debug('Read the offsets topic; the state table holds its offsets', fields);
  }
  return { reconciledAt: started, result };
}

/** What a container remembers of a task it ran, to skip the topic read when nothing moved. */
export interface Continuity {
  readonly generation: number;
  /** The lease epoch the invocation held. */
  readonly epoch: number;
  /** The committed sequence it left. */
  readonly seq: number;
  /** When this container last reconciled the task with the offsets topic. */
  readonly reconciledAt: number;
}

/**
 * Decides when a task reads the offsets topic: once per task start in a container (a cold Lambda
 * container, a new `npm start`), and again when the store is not as this container left it (the
 * lease's epoch moved by more than this invocation's own acquire, or the committed sequence is
 * another: someone else ran the task, or the table went back in time), or after `maxAgeMs`, so
 * the watermark keeps up and a later read stays short. One per container (the engine's).
 */
export class OffsetsTopicReconciler {
  readonly #continuity = new Map<string, Continuity>();

  constructor(private readonly maxAgeMs = 15 * 60_000) {}

  /**
   * When this container last reconciled the task, if the store is as it left it since (this
   * invocation's lease is the next epoch, same generation and committed sequence); undefined
   * when the task must reconcile now.
   */
  reconciledAt(
    ref: TaskRef,
    now: { generation: number; epoch: number; committedSeq: number; at: number },
  ): number | undefined {
    const known = this.#continuity.get(keyOf(ref));
    if (
      known === undefined ||
      known.generation !== now.generation ||
      known.epoch + 1 !== now.epoch ||
      known.seq !== now.committedSeq ||
      now.at - known.reconciledAt >= this.maxAgeMs
    ) {
      return undefined;
    }
    return known.reconciledAt;
  }

  /** At the clean end of an invocation: the store is as it left it. */
  ended(ref: TaskRef, continuity: Continuity): void {
    this.#continuity.set(keyOf(ref), continuity);
  }

  /** After an invocation that ended otherwise: the next one reconciles. */
  forget(ref: TaskRef): void {
    this.#continuity.delete(keyOf(ref));
  }
}

function keyOf(ref: TaskRef): string {
  return `${ref.connector}\u0000${ref.task}`;
}
