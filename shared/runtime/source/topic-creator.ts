import type { TopicCreationGroupConfig } from '../../config/topic-creation-config.js';
import { compileFullMatch } from '../../connect/config-validators.js';
import type { KafkaAdminPort, TopicSpec } from '../../ports/kafka.js';

/**
 * Kafka Connect's source topic creation (KIP-158): before a task first writes to a topic that
 * does not exist, the first `topic.creation.groups` group whose `include` matches it (and whose
 * `exclude` does not) supplies its partitions, replication factor and topic configs; the
 * `default` group catches the rest. Without `topic.creation.*` configs nothing is created here
 * and the broker's auto-creation decides, as in Connect.
 */
export class TopicCreator {
  readonly #known = new Set<string>();
  readonly #groups: readonly {
    group: TopicCreationGroupConfig;
    include: RegExp[];
    exclude: RegExp[];
  }[];

  constructor(
    groups: readonly TopicCreationGroupConfig[] | undefined,
    private readonly admin: KafkaAdminPort,
  ) {
    this.#groups = (groups ?? []).map((group) => ({
      group,
      include: group.include.map(compileFullMatch),
      exclude: group.exclude.map(compileFullMatch),
    }));
  }

  /** The spec a new topic gets, or undefined when topic creation is off. */
  specFor(topic: string): TopicSpec | undefined {
    const match = this.#groups.find(
      ({ include, exclude }) =>
        include.some((r) => r.test(topic)) && !exclude.some((r) => r.test(topic)),
    );
    if (match === undefined) return undefined;
    const { partitions, replicationFactor, topicConfigs } = match.group;
    return { topic, partitions, replicationFactor, configs: topicConfigs };
  }

  /** Creates those of `topics` that do not exist yet (once per topic per container). */
  async ensure(topics: Iterable<string>): Promise<void> {
    if (this.#groups.length === 0) return;
    const specs: TopicSpec[] = [];
    for (const topic of new Set(topics)) {
      if (this.#known.has(topic)) continue;
      const spec = this.specFor(topic);
      if (spec !== undefined) specs.push(spec);
    }
    if (specs.length === 0) return;
    await this.admin.createTopics(specs);
    for (const spec of specs) this.#known.add(spec.topic);
  }
}
