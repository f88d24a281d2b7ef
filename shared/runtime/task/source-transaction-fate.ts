/**
 * A source task's transactional identity and what became of its pending transaction: shared by
 * the source runtime (recovery at task start, `SourceTaskContext` offsets) and the enumerator's
 * zombie-fencing round (which settles what a fenced task left pending).
 * docs/exactly-once-source.md.
 */
import type { KafkaAdminPort } from '../../ports/kafka.js';
import type { PendingSourceOffsets } from '../../ports/offset-store.js';

/**
 * The transactional id of a source task, `<prefix>-<connector>-<task>`; also the consumer group
 * its commit markers are committed to.
 */
export function transactionalIdOf(prefix: string, connector: string, task: number): string {
  return `${prefix}-${connector}-${task}`;
}

/** What became of a pending transaction, as far as Kafka can tell now. */
export type PendingFate =
  | { readonly decided: 'committed'; readonly via: 'marker' | 'log' }
  | { readonly decided: 'aborted' }
  | { readonly decided: 'open' };

/**
 * The fate of `pending`: the commit marker at or above its seq proves it committed; otherwise
 * its first offset record decides (visible to read_committed readers = committed, passed by the
 * stable end and invisible = aborted, else still open). A pending that wrote no record can be
 * dropped (it is treated as aborted: its offsets are re-derived from committed).
 */
export async function pendingFate(
  admin: KafkaAdminPort,
  marker: { readonly markerGroup: string; readonly markerTopic: string },
  pending: PendingSourceOffsets,
): Promise<PendingFate> {
  const markers = await admin.committedOffsets(marker.markerGroup, marker.markerTopic);
  if ((markers.find((m) => m.partition === 0)?.offset ?? 0) >= pending.seq) {
    return { decided: 'committed', via: 'marker' };
  }
  const position = pending.positions[0];
  if (position === undefined) return { decided: 'aborted' };
  const fate = await admin.transactionalRecordFate({
    topic: position.topic,
    partition: position.partition,
    offset: Number(position.offset),
  });
  return fate === 'committed' ? { decided: 'committed', via: 'log' } : { decided: fate };
}
