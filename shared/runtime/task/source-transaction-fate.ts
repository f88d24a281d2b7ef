/**
 * A source task's transactional identity and what became of its pending transaction: shared by
 * the source runtime (recovery at task start, `SourceTaskContext` offsets) and the enumerator's
 * zombie-fencing round (which settles what a fenced task left pending).
 * docs/exactly-once-source.md.
 */
import type { KafkaAdminPort } from '../../ports/kafka.js';
import type { PendingSourceOffsets } from '../../ports/offset-store.js';

/** The transactional id of a source task, `<prefix>-<connector>-<task>`. */
export function transactionalIdOf(prefix: string, connector: string, task: number): string {
  return `${prefix}-${connector}-${task}`;
}

/** What became of a pending transaction, as far as Kafka can tell now. */
export type PendingFate =
  | { readonly decided: 'committed' }
  | { readonly decided: 'aborted' }
  | { readonly decided: 'open' };

/**
 * The fate of `pending`, read from its probe, the first offset record its transaction wrote:
 * visible to read_committed readers = committed, passed by the stable end and invisible =
 * aborted, else still open. A pending without a probe comes from a transaction that advanced no
 * source offsets: it changes no offsets, so it is discarded (treated as aborted) without a read.
 * (Pending entries written before the commit marker was dropped may name a data record when
 * their transaction advanced no offsets; its fate is read the same way.)
 */
export async function pendingFate(
  admin: KafkaAdminPort,
  pending: PendingSourceOffsets,
): Promise<PendingFate> {
  const position = pending.positions[0];
  if (position === undefined) return { decided: 'aborted' };
  const fate = await admin.transactionalRecordFate({
    topic: position.topic,
    partition: position.partition,
    offset: Number(position.offset),
  });
  return { decided: fate };
}
