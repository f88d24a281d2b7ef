/**
 * Integration-test helpers around the test broker's topics: create one, and read one back
 * (read_committed, from the beginning) as the records Lambda's event source mapping delivers.
 */

import { toEsmSourceRecord } from '../../local/esm/kafkajs-records.js';
import type { EsmSourceRecord } from '../../shared/adapters/lambda/esm-event.js';
import { createTopics, testKafka, uniqueName } from './services.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
 * passed), then `lingerMs` more so that a record past `count` (a duplicate) shows up too.
 * Records of a partition come in offset order.
 */
export async function readTopicRecords(
  topic: string,
  count: number,
  lingerMs = 0,
): Promise<EsmSourceRecord[]> {
  const consumer = testKafka().consumer({ groupId: uniqueName('read'), maxWaitTimeInMs: 100 });
  const seen: EsmSourceRecord[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      seen.push(toEsmSourceRecord(topic, partition, message));
    },
  });
  const deadline = Date.now() + 30_000;
  while (seen.length < count && Date.now() < deadline) await sleep(100);
  if (lingerMs > 0) await sleep(lingerMs);
  await consumer.disconnect();
  return seen;
}
