import type { SourcePartitionOffset } from '../../connect/records.js';
import type { KafkaAdminPort } from '../../ports/kafka.js';
import { offsetRecord } from './offsets-topic.js';
import { ensureOffsetsTopic } from './offsets-topic-creation.js';
import type { ProducerPool } from './producer-pool.js';
import type { SourceRuntimeSettings } from './source-runtime-types.js';

/**
 * Writes source offsets changed through the REST API (`PATCH` / `DELETE
 * /connectors/{c}/offsets`) to the connector's offsets topic, as Kafka Connect does: an altered
 * partition gets an offset record, a reset one a tombstone. The offsets topic is the truth a
 * lost or restored state table is rebuilt from (offsets-reconcile.ts), so a change recorded only
 * in the table would be undone by it.
 */
export interface SourceOffsetsTopicWriter {
  /**
   * Writes `entries` (`offset: null`: a tombstone) to the offsets topic of a connector with
   * `config`, acknowledged by every in-sync replica, creating the topic when missing.
   */
  write(
    connector: string,
    config: Readonly<Record<string, string>>,
    entries: readonly SourcePartitionOffset[],
  ): Promise<void>;
}

type TopicSettings = Pick<
  SourceRuntimeSettings,
  'offsetsTopic' | 'offsetsTopicPartitions' | 'offsetsTopicReplicationFactor'
>;

/** The writer over the container's idempotent producer. */
export function sourceOffsetsTopicWriter(deps: {
  readonly producers: ProducerPool;
  readonly admin: KafkaAdminPort;
  readonly settings: TopicSettings;
}): SourceOffsetsTopicWriter {
  return {
    async write(connector, config, entries) {
      if (entries.length === 0) return;
      const topic = config['offsets.storage.topic']?.trim() || deps.settings.offsetsTopic;
      await ensureOffsetsTopic(deps, deps.admin, topic);
      const producer = await deps.producers.idempotent();
      await producer.send(entries.map((entry) => offsetRecord(topic, connector, entry)));
    },
  };
}
