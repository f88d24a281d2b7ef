import { type Admin, Partitioners, type PartitionMetadata } from 'kafkajs';
import { NotFoundError } from '../../connect/errors.js';
import type { OutgoingRecord } from '../../ports/kafka.js';
import { mapKafkaError } from './errors.js';

/**
 * Chooses partitions the way the Java client's default partitioner does for keyed records
 * (murmur2), so the caller learns each record's position from the produce response.
 */
export class PartitionChooser {
  readonly #partitioner = Partitioners.DefaultPartitioner();
  readonly #metadata = new Map<string, { at: number; partitions: PartitionMetadata[] }>();

  constructor(
    private readonly admin: () => Promise<Admin>,
    private readonly maxAgeMs: number,
  ) {}

  async assign(records: readonly OutgoingRecord[]): Promise<number[]> {
    const topics = [
      ...new Set(records.filter((r) => r.partition === undefined).map((r) => r.topic)),
    ];
    await this.#refresh(topics);
    return records.map((record) => {
      if (record.partition !== undefined) return record.partition;
      const partitionMetadata = this.#metadata.get(record.topic)?.partitions ?? [];
      return this.#partitioner({
        topic: record.topic,
        partitionMetadata,
        message: { key: record.key === null ? null : Buffer.from(record.key), value: null },
      });
    });
  }

  async #refresh(topics: readonly string[]): Promise<void> {
    const now = Date.now();
    const stale = topics.filter((t) => {
      const cached = this.#metadata.get(t);
      return cached === undefined || now - cached.at > this.maxAgeMs;
    });
    if (stale.length === 0) return;
    const admin = await this.admin();
    try {
      const { topics: found } = await admin.fetchTopicMetadata({ topics: stale });
      for (const topic of found)
        this.#metadata.set(topic.name, { at: now, partitions: topic.partitions });
    } catch (error) {
      const type = (error as { type?: string }).type;
      if (type === 'UNKNOWN_TOPIC_OR_PARTITION') {
        throw new NotFoundError(`topic(s) ${stale.join(', ')}: not found on the Kafka cluster`, {
          cause: error,
        });
      }
      throw mapKafkaError(error, 'fetching topic metadata');
    }
  }
}
