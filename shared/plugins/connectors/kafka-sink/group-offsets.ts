/**
 * Altering and resetting the Kafka sink's own consumer group offsets (`PATCH` and `DELETE
 * /connectors/{c}/offsets`, called while the connector is STOPPED). The group's committed offset
 * decides what the sink skips as already written, so it must follow the runtime's sink offsets.
 */
import { parseTopicPartitionKey } from 'serverless-connect/connect';
import { connectorGroupId, partitionTransactionalId } from './kafka-sink-config.js';
import type { KafkaSinkClients, KafkaSinkWorker } from './kafka-sink-deps.js';

export interface GroupOffsetsDeps {
  readonly kafka: Pick<KafkaSinkClients, 'producers' | 'admin'>;
  readonly worker: Pick<KafkaSinkWorker, 'transactionalIdPrefix' | 'frameworkConfig' | 'mapLimit'>;
}

/**
 * Sets the connector group's offset of each partition (`topic-partition` → next offset to
 * consume; `null` → 0, i.e. nothing is skipped), each through a transaction of the partition's
 * own transactional producer, which also fences any task still holding it. When every value is
 * `null` (a reset), every partition the group has committed for the connector's listed topics
 * and the given partitions' topics is reset too (with `topics.regex`, only the given ones' topics).
 */
export async function alterGroupOffsets(
  deps: GroupOffsetsDeps,
  connectorConfig: Readonly<Record<string, string>>,
  offsets: ReadonlyMap<string, number | null>,
): Promise<void> {
  const config = deps.worker.frameworkConfig(connectorConfig);
  const group = connectorGroupId(config.name);
  const producers = deps.kafka.producers(connectorConfig);
  const changes = new Map(offsets);
  if ([...offsets.values()].every((o) => o === null)) {
    const given = [...offsets.keys()].map((id) => parseTopicPartitionKey(id).topic);
    for (const topic of new Set([...config.topics, ...given])) {
      for (const o of await deps.kafka.admin.committedOffsets(group, topic)) {
        const id = `${o.topic}-${o.partition}`;
        if (!changes.has(id)) changes.set(id, null);
      }
    }
  }
  await deps.worker.mapLimit([...changes], 8, async ([id, offset]) => {
    const { topic, partition } = parseTopicPartitionKey(id);
    const producer = producers(
      partitionTransactionalId(deps.worker.transactionalIdPrefix, config.name, topic, partition),
    );
    try {
      await producer.connect();
      const tx = await producer.begin();
      try {
        await tx.sendOffsets(group, [{ topic, partition, offset: offset ?? 0 }]);
      } catch (error) {
        await tx.abort().catch(() => undefined);
        throw error;
      }
      await tx.commit();
    } finally {
      await producer.close();
    }
  });
}
