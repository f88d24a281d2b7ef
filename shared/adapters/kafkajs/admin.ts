import type { Admin, Kafka, RetryOptions } from 'kafkajs';
import { RetriableError } from '../../connect/errors.js';
import type {
  CommittedRead,
  KafkaAdminPort,
  TopicPartitionOffset,
  TopicSpec,
  TransactionalRecordFate,
} from '../../ports/kafka.js';
import { readCommittedRecords } from './committed-reader.js';
import { retryWhileCoordinatorMoves } from './coordinator-retry.js';
import { mapKafkaError } from './errors.js';
import { readRecordFate } from './record-fate.js';
import { retry } from './records.js';

export class KafkaJsAdmin implements KafkaAdminPort {
  readonly #admin: Admin;
  readonly #retry: RetryOptions;
  #connected: Promise<void> | undefined;

  /** `adminRetry` replaces the default retry policy (from `admin.override.retries` and the backoffs). */
  constructor(
    private readonly kafka: Kafka,
    adminRetry: RetryOptions = retry,
  ) {
    this.#admin = kafka.admin({ retry: adminRetry });
    this.#retry = adminRetry;
  }

  async #ready(): Promise<Admin> {
    this.#connected ??= this.#admin.connect().catch((error: unknown) => {
      this.#connected = undefined;
      throw mapKafkaError(error, 'connecting the admin client');
    });
    await this.#connected;
    return this.#admin;
  }

  async #call<T>(action: string, fn: (admin: Admin) => Promise<T>): Promise<T> {
    const admin = await this.#ready();
    try {
      return await fn(admin);
    } catch (error) {
      throw mapKafkaError(error, action);
    }
  }

  /**
   * `#call` for a read of one topic's partitions, retried while leadership is still moving (a
   * KRaft broker answers NOT_LEADER_FOR_PARTITION for a moment after a topic is created, and
   * kafkajs gives up on that answer instead of refreshing its metadata): refresh, wait, retry.
   */
  async #callOnTopic<T>(action: string, topic: string, fn: (admin: Admin) => Promise<T>) {
    const admin = await this.#ready();
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await fn(admin);
      } catch (error) {
        const type = (error as { type?: string }).type ?? '';
        if (attempt >= 6 || !(leadershipMoving.has(type) || notReadyYet.has(type))) {
          throw mapKafkaError(error, action);
        }
      }
      await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }

  readonly connected = (): Promise<Admin> => this.#ready();

  listTopics(): Promise<string[]> {
    return this.#call('listing topics', (admin) => admin.listTopics());
  }

  async partitionCounts(topics: readonly string[]): Promise<Map<string, number>> {
    const existing = new Set(await this.listTopics());
    const wanted = topics.filter((t) => existing.has(t));
    const counts = new Map<string, number>();
    if (wanted.length === 0) return counts;
    const { topics: found } = await this.#call('fetching topic metadata', (admin) =>
      admin.fetchTopicMetadata({ topics: wanted }),
    );
    for (const topic of found) counts.set(topic.name, topic.partitions.length);
    return counts;
  }

  async createTopics(specs: readonly TopicSpec[]): Promise<string[]> {
    const existing = new Set(await this.listTopics());
    const missing = specs.filter((s) => !existing.has(s.topic));
    if (missing.length === 0) return [];
    await this.#call('creating topics', async (admin) => {
      await admin.createTopics({
        waitForLeaders: false,
        topics: missing.map((s) => ({
          topic: s.topic,
          numPartitions: s.partitions ?? -1,
          replicationFactor: s.replicationFactor ?? -1,
          configEntries: Object.entries(s.configs ?? {}).map(([name, value]) => ({ name, value })),
        })),
      });
      await waitForTopicLeaders(
        admin,
        missing.map((s) => s.topic),
      );
    });
    return missing.map((s) => s.topic);
  }

  /**
   * kafkajs sends OffsetFetch once to the group coordinator; one that is loading or moving (a
   * fresh broker's `__consumer_offsets`) is waited for here, under the admin's retry policy.
   */
  async committedOffsets(groupId: string, topic: string): Promise<TopicPartitionOffset[]> {
    const result = await this.#call(`fetching offsets of group ${groupId}`, (admin) =>
      retryWhileCoordinatorMoves(
        () => admin.fetchOffsets({ groupId, topics: [topic] }),
        this.#retry,
      ),
    );
    return result.flatMap((t) =>
      t.partitions
        .filter((p) => Number(p.offset) >= 0)
        .map((p) => ({ topic: t.topic, partition: p.partition, offset: Number(p.offset) })),
    );
  }

  async endOffsets(topic: string): Promise<TopicPartitionOffset[]> {
    const result = await this.#callOnTopic(`fetching end offsets of ${topic}`, topic, (admin) =>
      admin.fetchTopicOffsets(topic),
    );
    return result.map((p) => ({ topic, partition: p.partition, offset: Number(p.high) }));
  }

  async offsetsForTimestamp(topic: string, timestampMs: number): Promise<TopicPartitionOffset[]> {
    const [found, ends] = await Promise.all([
      this.#callOnTopic(`fetching offsets of ${topic} at ${timestampMs}`, topic, (admin) =>
        admin.fetchTopicOffsetsByTimestamp(topic, timestampMs),
      ),
      this.endOffsets(topic),
    ]);
    // -1: no record at or after the timestamp, so reading starts (or stops) at the end.
    return found.map(({ partition, offset }) => ({
      topic,
      partition,
      offset:
        Number(offset) >= 0
          ? Number(offset)
          : (ends.find((e) => e.partition === partition)?.offset ?? 0),
    }));
  }

  transactionalRecordFate(position: TopicPartitionOffset): Promise<TransactionalRecordFate> {
    return readRecordFate(this.kafka, position);
  }

  readCommitted(topic: string, from?: readonly TopicPartitionOffset[]): Promise<CommittedRead> {
    // Each attempt connects afresh, so it sees the leaders the metadata refresh found.
    return this.#callOnTopic(`reading ${topic} (read_committed)`, topic, () =>
      readCommittedRecords(this.kafka, topic, from),
    );
  }

  async setGroupOffsets(groupId: string, offsets: readonly TopicPartitionOffset[]): Promise<void> {
    const topics = [...new Set(offsets.map((o) => o.topic))];
    for (const topic of topics) {
      await this.#call(`moving the offsets of group ${groupId}`, async (admin) => {
        try {
          // kafkajs asks the coordinator once (DescribeGroups) before a consumer commits the
          // offsets; setting them again is harmless (see committedOffsets).
          await retryWhileCoordinatorMoves(
            () =>
              admin.setOffsets({
                groupId,
                topic,
                partitions: offsets
                  .filter((o) => o.topic === topic)
                  .map((o) => ({ partition: o.partition, offset: String(o.offset) })),
              }),
            this.#retry,
          );
        } catch (error) {
          // kafkajs refuses (non-retriably) while the group has members; they will leave.
          if (/running instances|not empty/i.test((error as Error).message ?? '')) {
            throw new RetriableError(`group ${groupId} still has members`, { cause: error });
          }
          throw error;
        }
      });
    }
  }

  async close(): Promise<void> {
    if (this.#connected) await this.#admin.disconnect().catch(() => undefined);
    this.#connected = undefined;
  }
}

const notReadyYet = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);
const leadershipMoving = new Set(['NOT_LEADER_FOR_PARTITION', 'NOT_LEADER_OR_FOLLOWER']);

/**
 * Waits until every partition of `topics` has a leader. kafkajs' own `waitForLeaders` gives up
 * when a KRaft broker still answers UNKNOWN_TOPIC_OR_PARTITION for a topic it just created (the
 * metadata has not reached the broker yet); this treats that answer as "not yet".
 */
export async function waitForTopicLeaders(
  admin: Admin,
  topics: readonly string[],
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
    try {
      const { topics: found } = await admin.fetchTopicMetadata({ topics: [...topics] });
      const ready =
        found.length === topics.length &&
        found.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
      if (ready) return;
    } catch (error) {
      const type = (error as { type?: string }).type;
      if (type === undefined || !notReadyYet.has(type)) throw error;
    }
    if (Date.now() > deadline) throw new Error(`topics ${topics.join(', ')} have no leaders yet`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
