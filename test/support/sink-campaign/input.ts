/**
 * The input of a sink campaign or benchmark: JSON records produced to a real topic and read
 * back as a consumer sees them (offsets, timestamps, headers), ready for `toEsmEvent`.
 */
import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { toEsmSourceRecord } from '../../../local/esm/kafkajs-records.js';
import { waitForTopicLeaders } from '../../../shared/adapters/kafkajs/admin.js';
import type { EsmSourceRecord } from '../../../shared/adapters/lambda/esm-event.js';

/** One input record and what identifies it in any sink's output. */
export interface InputRecord extends EsmSourceRecord {
  /** `<partition>-<seq>`: the record key, the `id` field of the value, a DynamoDB item key. */
  readonly id: string;
  /** 1-based position in its partition. */
  readonly seq: number;
}

/** The value of input record `seq` of `partition`: JSON with its id, partition and seq. */
export function inputValue(partition: number, seq: number, padding: number): string {
  return JSON.stringify({
    id: `${partition}-${seq}`,
    partition,
    seq,
    text: 'x'.repeat(padding),
  });
}

const encoder = new TextEncoder();

/** Creates `topic` with `partitions` partitions and waits for their leaders. */
export async function createTopic(kafka: Kafka, topic: string, partitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({
      topics: [{ topic, numPartitions: partitions }],
      waitForLeaders: false,
    });
    await waitForTopicLeaders(admin, [topic]);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Produces `perPartition` records (values of about `padding` + 50 bytes, or `value`'s, key = id,
 * one header) to each partition of a new `topic`, then reads them back from the beginning.
 * Returns each partition's records in offset order.
 */
export async function produceInput(
  kafka: Kafka,
  topic: string,
  partitions: number,
  perPartition: number,
  padding = 100,
  value: (partition: number, seq: number) => string = (p, seq) => inputValue(p, seq, padding),
): Promise<InputRecord[][]> {
  await createTopic(kafka, topic, partitions);
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    for (let p = 0; p < partitions; p += 1) {
      for (let from = 1; from <= perPartition; from += 500) {
        const count = Math.min(500, perPartition - from + 1);
        await producer.send({
          topic,
          acks: -1,
          messages: Array.from({ length: count }, (_, i) => ({
            partition: p,
            key: `${p}-${from + i}`,
            value: value(p, from + i),
            headers: { seq: String(from + i) },
          })),
        });
      }
    }
  } finally {
    await producer.disconnect();
  }
  return readInput(kafka, topic, partitions, perPartition);
}

async function readInput(
  kafka: Kafka,
  topic: string,
  partitions: number,
  perPartition: number,
): Promise<InputRecord[][]> {
  const byPartition: InputRecord[][] = Array.from({ length: partitions }, () => []);
  const consumer = kafka.consumer({ groupId: `sink-campaign-read-${randomUUID()}` });
  let count = 0;
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        const seq = Number(message.headers?.seq?.toString() ?? Number.NaN);
        byPartition[partition]?.push({
          ...toEsmSourceRecord(topic, partition, message),
          headers: [{ key: 'seq', value: encoder.encode(String(seq)) }],
          id: `${partition}-${seq}`,
          seq,
        });
        count += 1;
      },
    });
    const deadline = Date.now() + 60_000;
    while (count < partitions * perPartition) {
      if (Date.now() > deadline) {
        throw new Error(`read ${count} of ${partitions * perPartition} input records of ${topic}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await consumer.disconnect();
  }
  return byPartition.map((records) => records.sort((a, b) => a.offset - b.offset));
}
