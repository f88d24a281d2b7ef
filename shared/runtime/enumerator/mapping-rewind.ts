import { isRetriable } from '../../connect/errors.js';
import type { SinkMapping } from '../../ports/dispatch.js';
import type { KafkaAdminPort, TopicPartitionOffset } from '../../ports/kafka.js';
import type { OffsetStore } from '../../ports/offset-store.js';

/**
 * Makes a disabled mapping's consumer group agree with the connector's stored sink offsets
 * before the mapping is enabled again. The mapping resumes from its group's committed offsets,
 * but the connector's position is the stored sink offset (the next offset to read, in the same
 * meaning as a committed group offset), which `PATCH` / `DELETE /connectors/{c}/offsets` may
 * have moved back while the connector was STOPPED (Kafka Connect moves the sink's consumer
 * group itself). Where the group is ahead, it is moved back to the stored offset, or to the
 * start of the log for a partition whose offset was reset. A group is only moved while empty,
 * which it is once the disabled mapping's pollers left: resolves `false` while members remain,
 * so the caller leaves the mapping disabled until its next run.
 */
export async function realignMappingGroup(
  admin: Pick<KafkaAdminPort, 'committedOffsets' | 'offsetsForTimestamp' | 'setGroupOffsets'>,
  offsets: Pick<OffsetStore, 'getSinkOffsets'>,
  mapping: SinkMapping,
): Promise<boolean> {
  const [group, stored] = await Promise.all([
    admin.committedOffsets(mapping.groupId, mapping.topic),
    offsets.getSinkOffsets(mapping.connector),
  ]);
  if (group.length === 0) return true;
  const positions = new Map(
    stored.filter((o) => o.topic === mapping.topic).map((o) => [o.partition, o.nextOffset]),
  );
  const starts = group.some((g) => !positions.has(g.partition))
    ? await admin.offsetsForTimestamp(mapping.topic, 0)
    : [];
  const moves: TopicPartitionOffset[] = group.flatMap((g) => {
    const want =
      positions.get(g.partition) ?? starts.find((s) => s.partition === g.partition)?.offset ?? 0;
    return g.offset > want ? [{ topic: mapping.topic, partition: g.partition, offset: want }] : [];
  });
  if (moves.length === 0) return true;
  try {
    await admin.setGroupOffsets(mapping.groupId, moves);
    return true;
  } catch (error) {
    if (isRetriable(error)) return false;
    throw error;
  }
}
