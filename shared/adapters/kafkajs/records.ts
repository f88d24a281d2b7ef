import {
  type ICustomPartitioner,
  type IHeaders,
  type Message,
  Partitioners,
  type RecordMetadata,
} from 'kafkajs';
import type { OutgoingRecord, TopicPartitionOffset } from '../../ports/kafka.js';

/**
 * kafkajs retries CONCURRENT_TRANSACTIONS (the previous commit's markers are still being
 * written) with its client retry backoff. At kafkajs' default 300 ms initial retry time,
 * back-to-back transactions crawl (6.4k vs 41k records/s measured, docs/adr/0001).
 */
export const retry = { initialRetryTime: 10, maxRetryTime: 2_000, retries: 10 };

/** A Buffer view of the same memory (no copy). */
function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function toMessage(record: OutgoingRecord): Message {
  const headers: IHeaders = {};
  for (const header of record.headers ?? []) {
    // kafkajs takes repeated keys as arrays, keeping their order.
    const value = header.value === null ? null : view(header.value);
    const existing = headers[header.key];
    if (existing === undefined) headers[header.key] = value as Buffer;
    else
      headers[header.key] = [
        ...(Array.isArray(existing) ? existing : [existing]),
        value,
      ] as Buffer[];
  }
  return {
    ...(record.partition === undefined ? {} : { partition: record.partition }),
    key: record.key === null ? null : view(record.key),
    value: record.value === null ? null : view(record.value),
    headers,
    ...(record.timestamp === undefined ? {} : { timestamp: String(record.timestamp) }),
  };
}

/**
 * kafkajs' default partitioner (murmur2 of the key, as the Java client; round robin without a
 * key), remembering the partition it chose for each message object, so the caller learns every
 * record's position from the per-partition produce results. The producer's own metadata is used,
 * so a missing topic is auto-created when the broker allows it, as Kafka Connect's producer does.
 */
export class RecordingPartitioner {
  readonly #chosen = new WeakMap<Message, number>();

  readonly create: ICustomPartitioner = () => {
    const inner = Partitioners.DefaultPartitioner();
    return (args) => {
      const partition = inner(args);
      this.#chosen.set(args.message, partition);
      return partition;
    };
  };

  partitionOf(message: Message): number {
    const partition = this.#chosen.get(message);
    if (partition === undefined) throw new Error('kafkajs did not partition a sent message');
    return partition;
  }
}

/** The kafkajs batch for `records`, and their messages in input order. */
export function toBatch(records: readonly OutgoingRecord[]) {
  const messages = records.map(toMessage);
  const byTopic = new Map<string, Message[]>();
  records.forEach((record, i) => {
    const list = byTopic.get(record.topic) ?? [];
    list.push(messages[i] as Message);
    byTopic.set(record.topic, list);
  });
  return {
    messages,
    topicMessages: [...byTopic].map(([topic, list]) => ({ topic, messages: list })),
  };
}

/** Per-record positions from kafkajs' per-partition results, in input order. */
export function positions(
  records: readonly OutgoingRecord[],
  messages: readonly Message[],
  partitioner: RecordingPartitioner,
  results: readonly RecordMetadata[],
): TopicPartitionOffset[] {
  const next = new Map<string, number>();
  for (const result of results) {
    next.set(`${result.topicName}\u0000${result.partition}`, Number(result.baseOffset));
  }
  return records.map((record, i) => {
    const partition = partitioner.partitionOf(messages[i] as Message);
    const key = `${record.topic}\u0000${partition}`;
    const offset = next.get(key);
    if (offset === undefined) throw new Error(`no produce result for ${record.topic}-${partition}`);
    next.set(key, offset + 1);
    return { topic: record.topic, partition, offset };
  });
}
