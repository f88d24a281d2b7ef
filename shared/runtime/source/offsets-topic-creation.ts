import type { KafkaAdminPort } from '../../ports/kafka.js';
import type { SourceRuntimeSettings } from './source-runtime-types.js';

/** Offsets topics known to exist, per admin client (that is, per warm container). */
const ensuredOffsetsTopics = new WeakMap<KafkaAdminPort, Set<string>>();

/** Creates the offsets topic (compacted) when missing; asks the cluster once per container. */
export async function ensureOffsetsTopic(
  deps: {
    readonly settings: Pick<
      SourceRuntimeSettings,
      'offsetsTopicPartitions' | 'offsetsTopicReplicationFactor'
    >;
  },
  admin: KafkaAdminPort,
  topic: string,
): Promise<void> {
  const known = ensuredOffsetsTopics.get(admin) ?? new Set<string>();
  ensuredOffsetsTopics.set(admin, known);
  if (known.has(topic)) return;
  await admin.createTopics([
    {
      topic,
      partitions: deps.settings.offsetsTopicPartitions,
      replicationFactor: deps.settings.offsetsTopicReplicationFactor,
      configs: { 'cleanup.policy': 'compact' },
    },
  ]);
  known.add(topic);
}
