import type { IHeaders, Message, RecordMetadata } from 'kafkajs';
import type { OutgoingRecord, TopicPartitionOffset } from '../../ports/kafka.js';

/**
 * kafkajs retries CONCURRENT_TRANSACTIONS (the previous commit's markers are still being
 * written) with its client retry backoff. At kafkajs' default 300 ms initial retry time,
 * back-to-back transactions crawl (6.4k vs 41k records/s measured, docs/adr/0001).
 */
export const retry = { initialRetryTime: 10, maxRetryTime: 2_000, retries: 10 };

export function toMessage(record: OutgoingRecord, partition: number): Message {
  const headers: IHeaders = {};
  for (const header of record.headers ?? []) {
    // kafkajs takes repeated keys as arrays, keeping their order.
    const value = header.value === null ? null : Buffer.from(header.value);
    const existing = headers[header.key];
    if (existing === undefined) headers[header.key] = value as Buffer;
    else
      headers[header.key] = [
        ...(Array.isArray(existing) ? existing : [existing]),
        value,
      ] as Buffer[];
  }
  return {
    partition,
    key: record.key === null ? null : Buffer.from(record.key),
    value: record.value === null ? null : Buffer.from(record.value),
    headers,
    ...(record.timestamp === undefined ? {} : { timestamp: String(record.timestamp) }),
  };
}

/** Per-record positions from kafkajs' per-partition results, in input order. */
export function positions(
  records: readonly OutgoingRecord[],
  partitions: readonly number[],
  results: readonly RecordMetadata[],
): TopicPartitionOffset[] {
  const next = new Map<string, number>();
  for (const result of results) {
    next.set(`${result.topicName}\u0000${result.partition}`, Number(result.baseOffset));
  }
  return records.map((record, i) => {
    const partition = partitions[i] as number;
    const key = `${record.topic}\u0000${partition}`;
    const offset = next.get(key);
    if (offset === undefined) throw new Error(`no produce result for ${record.topic}-${partition}`);
    next.set(key, offset + 1);
    return { topic: record.topic, partition, offset };
  });
}

export function groupByTopic(records: readonly OutgoingRecord[], partitions: readonly number[]) {
  const byTopic = new Map<string, Message[]>();
  records.forEach((record, i) => {
    const messages = byTopic.get(record.topic) ?? [];
    messages.push(toMessage(record, partitions[i] as number));
    byTopic.set(record.topic, messages);
  });
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}
