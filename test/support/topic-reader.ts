/**
 * Integration-test helpers around the test broker's topics: create one, and read one back
 * (read_committed, from the beginning) as the records Lambda's event source mapping delivers.
 */
import type { IHeaders } from 'kafkajs';
import type { EsmSourceRecord } from '../../shared/runtime/sink/esm-event.js';
import { createTopics, testKafka, uniqueName } from './services.js';

const encoder = new TextEncoder();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** kafkajs message headers as the mapping's list: one entry per value, in order. */
export function esmHeadersOf(headers: IHeaders | undefined): EsmSourceRecord['headers'] {
  return Object.entries(headers ?? {}).flatMap(([key, value]) =>
    (Array.isArray(value) ? value : [value]).map((v) => ({
      key,
      value: v === undefined ? null : typeof v === 'string' ? encoder.encode(v) : new Uint8Array(v),
    })),
  );
}

/** Creates `topic` with `numPartitions` partitions on the test broker and waits for leaders. */
export async function createTestTopic(topic: string, numPartitions: number): Promise<void> {
  const admin = testKafka().admin();
  await admin.connect();
  try {
    await createTopics(admin, [{ topic, numPartitions }]);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Reads `topic` from the beginning, read_committed, until `count` records arrived (or 30 s
 * passed), then `settleMs` more so that a record past `count` (a duplicate) shows up too.
 * Records of a partition come in offset order.
 */
export async function readTopicRecords(
  topic: string,
  count: number,
  settleMs = 0,
): Promise<EsmSourceRecord[]> {
  const consumer = testKafka().consumer({ groupId: uniqueName('read'), maxWaitTimeInMs: 100 });
  const seen: EsmSourceRecord[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      seen.push({
        topic,
        partition,
        offset: Number(message.offset),
        timestamp: Number(message.timestamp),
        key: message.key === null ? null : new Uint8Array(message.key),
        value: message.value === null ? null : new Uint8Array(message.value),
        headers: esmHeadersOf(message.headers),
      });
    },
  });
  const deadline = Date.now() + 30_000;
  while (seen.length < count && Date.now() < deadline) await sleep(100);
  if (settleMs > 0) await sleep(settleMs);
  await consumer.disconnect();
  return seen;
}
