/**
 * Resolving a Kafka subscription to partitions, like Flink's KafkaSource split enumerator:
 * topics, a whole-name pattern or an explicit partition set, discovered again every
 * `partition.discovery.interval.ms`; and the starting and stopping offsets of the partitions a
 * connector first reads.
 */

import {
  type KafkaSubscription,
  type TopicPartitionRef,
  topicPartitionId,
} from '../../config/kafka-subscription-config.js';
import { compileFullMatch } from '../../connect/config-validators.js';
import type { KafkaAdminPort } from '../../ports/kafka.js';

/** Topics no connector subscribes to by pattern (Kafka's internal topics). */
function isInternal(topic: string): boolean {
  return topic.startsWith('__');
}

/** The partitions the subscription covers now, sorted by topic then partition. */
export async function resolvePartitions(
  admin: KafkaAdminPort,
  subscription: KafkaSubscription,
): Promise<TopicPartitionRef[]> {
  let refs: TopicPartitionRef[];
  if (subscription.partitions !== undefined) {
    const counts = await admin.partitionCounts([
      ...new Set(subscription.partitions.map((p) => p.topic)),
    ]);
    // A listed partition that does not exist (yet) is left out until discovery finds it.
    refs = subscription.partitions.filter((p) => p.partition < (counts.get(p.topic) ?? 0));
  } else {
    let topics = [...subscription.topics];
    if (subscription.pattern !== undefined) {
      const pattern = compileFullMatch(subscription.pattern);
      const all = await admin.listTopics();
      topics = all.filter((t) => !isInternal(t) && pattern.test(t));
    }
    const counts = await admin.partitionCounts(topics);
    refs = [...counts].flatMap(([topic, count]) =>
      Array.from({ length: count }, (_, partition) => ({ topic, partition })),
    );
  }
  const unique = new Map(refs.map((r) => [topicPartitionId(r), r]));
  return [...unique.values()].sort((a, b) =>
    a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1,
  );
}

/** True when every topic the subscription names (or partition it lists) exists. */
function nothingMissing(
  subscription: KafkaSubscription,
  found: readonly TopicPartitionRef[],
): boolean {
  if (subscription.partitions !== undefined) {
    return new Set(subscription.partitions.map(topicPartitionId)).size === found.length;
  }
  if (subscription.pattern !== undefined) return true;
  const topics = new Set(found.map((p) => p.topic));
  return subscription.topics.every((topic) => topics.has(topic));
}

interface Discovered {
  readonly key: string;
  readonly at: number;
  readonly partitions: readonly TopicPartitionRef[];
}

/**
 * When to look at the cluster again, per connector. The last discovery is kept in memory (a
 * warm enumerator container runs every minute); a cold container discovers at once, which only
 * makes discovery earlier, never later, than the interval. While a named topic or listed
 * partition does not exist, every run looks again.
 *
 * Bounded subscriptions (stopping offsets set) are resolved once, as Flink disables periodic
 * discovery in bounded mode; so are subscriptions whose interval is zero or negative.
 */
export class PartitionDiscovery {
  readonly #last = new Map<string, Discovered>();

  /**
   * The partitions of `connector`'s subscription: the remembered ones while the interval has
   * not passed (or discovery is off and `known` partitions exist), else freshly resolved.
   * @param known - the partitions the stored assignment holds (used when discovery is off).
   */
  async partitions(
    admin: KafkaAdminPort,
    connector: string,
    subscription: KafkaSubscription,
    now: number,
    known: readonly TopicPartitionRef[],
  ): Promise<{ partitions: readonly TopicPartitionRef[]; discovered: boolean }> {
    const key = JSON.stringify([
      subscription.topics,
      subscription.pattern ?? null,
      subscription.partitions ?? null,
    ]);
    const periodic = subscription.discoveryIntervalMs > 0 && subscription.stopping.kind === 'none';
    if (!periodic && known.length > 0) return { partitions: known, discovered: false };
    const last = this.#last.get(connector);
    if (
      last !== undefined &&
      last.key === key &&
      periodic &&
      now - last.at < subscription.discoveryIntervalMs
    ) {
      return { partitions: last.partitions, discovered: false };
    }
    const partitions = await resolvePartitions(admin, subscription);
    // A named topic or listed partition not there yet (a sink created before its source wrote)
    // is looked for again at the next run, not an interval later.
    if (nothingMissing(subscription, partitions)) {
      this.#last.set(connector, { key, at: now, partitions });
    } else {
      this.#last.delete(connector);
    }
    return { partitions, discovered: true };
  }

  forget(connector: string): void {
    this.#last.delete(connector);
  }
}

/**
 * The sink offset (the next offset to read) to seed for each of `partitions` before the
 * connector first reads them, or nothing for partitions that start at the beginning. `committed` is the connector's stored
 * position per partition id; partitions with one keep it.
 */
export async function startingPositions(
  admin: KafkaAdminPort,
  subscription: KafkaSubscription,
  partitions: readonly TopicPartitionRef[],
  committed: ReadonlySet<string>,
): Promise<Map<string, number>> {
  const starting = subscription.starting;
  const seeds = new Map<string, number>();
  const fresh = partitions.filter(
    (p) => starting.kind !== 'committed' || !committed.has(topicPartitionId(p)),
  );
  const atEnd: TopicPartitionRef[] = [];
  for (const p of fresh) {
    const id = topicPartitionId(p);
    if (starting.kind === 'specific' && starting.offsets.has(id)) {
      const offset = starting.offsets.get(id) ?? 0;
      if (offset > 0) seeds.set(id, offset);
    } else if (starting.kind === 'latest') {
      atEnd.push(p);
    } else if (
      (starting.kind === 'committed' || starting.kind === 'specific') &&
      starting.reset === 'latest'
    ) {
      atEnd.push(p);
    } else if (starting.kind === 'timestamp') {
      atEnd.push(p); // replaced below by the offsets for the timestamp
    }
  }
  const topics = [...new Set(atEnd.map((p) => p.topic))];
  for (const topic of topics) {
    const wanted = new Set(atEnd.filter((p) => p.topic === topic).map((p) => p.partition));
    const offsets =
      starting.kind === 'timestamp'
        ? await admin.offsetsForTimestamp(topic, starting.timestampMs)
        : await admin.endOffsets(topic);
    for (const { partition, offset } of offsets) {
      const position = Number(offset);
      if (wanted.has(partition) && position > 0) {
        seeds.set(topicPartitionId({ topic, partition }), position);
      }
    }
  }
  return seeds;
}

/**
 * The stopping offset (exclusive) of each partition of a bounded subscription, resolved when
 * the connector first reads them; empty for an unbounded one.
 */
export async function stoppingOffsets(
  admin: KafkaAdminPort,
  subscription: KafkaSubscription,
  partitions: readonly TopicPartitionRef[],
): Promise<Map<string, number>> {
  const stopping = subscription.stopping;
  const result = new Map<string, number>();
  if (stopping.kind === 'none') return result;
  if (stopping.kind === 'specific') {
    for (const p of partitions) {
      const offset = stopping.offsets.get(topicPartitionId(p));
      if (offset !== undefined) result.set(topicPartitionId(p), offset);
    }
    return result;
  }
  for (const topic of new Set(partitions.map((p) => p.topic))) {
    const offsets =
      stopping.kind === 'timestamp'
        ? await admin.offsetsForTimestamp(topic, stopping.timestampMs)
        : await admin.endOffsets(topic);
    for (const { partition, offset } of offsets) {
      const id = topicPartitionId({ topic, partition });
      if (partitions.some((p) => topicPartitionId(p) === id)) result.set(id, Number(offset));
    }
  }
  return result;
}
