import type { Kafka, Message } from 'kafkajs';
import { Kafka as KafkaClient, logLevel } from 'kafkajs';
import { waitForTopicLeaders } from '../shared/adapters/kafkajs/admin.js';
import { compareThroughput } from './harness.js';
import type { BenchServices } from './services.js';

/**
 * `kafka-transactions`: the price of Kafka transactions on this broker, the floor under every
 * exactly-once figure of the project. Ours = a kafkajs transactional producer committing one
 * transaction per 500 records of ~200 bytes; baseline = the same records through an idempotent
 * producer in batches of 500. Later benchmarks compare the runtime against these raw clients.
 *
 * kafkajs retries CONCURRENT_TRANSACTIONS (the previous commit's markers still being written)
 * with its client retry backoff: at the default 300 ms the transactional side ran 6.4k records/s
 * here, at 10 ms 41k/s. Transactional clients of this project use a short initial retry time.
 */
const recordsPerRound = 10_000;
const batchSize = 500;

function records(): Message[][] {
  const batches: Message[][] = [];
  for (let start = 0; start < recordsPerRound; start += batchSize) {
    batches.push(
      Array.from({ length: batchSize }, (_, i) => ({
        key: `key-${(start + i) % 64}`,
        value: JSON.stringify({ seq: start + i, payload: 'x'.repeat(170) }),
      })),
    );
  }
  return batches;
}

export async function run(services: BenchServices): Promise<void> {
  const { brokers } = await services.kafka();
  const kafka: Kafka = new KafkaClient({
    clientId: 'bench',
    brokers,
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 10, retries: 10 },
  });
  const topic = `bench-tx-${Date.now().toString(36)}`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: false });
  await waitForTopicLeaders(admin, [topic]);
  await admin.disconnect();

  const batches = records();
  const transactional = kafka.producer({
    transactionalId: `${topic}-tx`,
    idempotent: true,
    maxInFlightRequests: 1,
  });
  const idempotent = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await Promise.all([transactional.connect(), idempotent.connect()]);
  try {
    await compareThroughput({
      name: 'kafka-transactions',
      unit: 'records',
      ours: async () => {
        for (const messages of batches) {
          const tx = await transactional.transaction();
          await tx.send({ topic, messages });
          await tx.commit();
        }
        return recordsPerRound;
      },
      baseline: async () => {
        for (const messages of batches) await idempotent.send({ topic, messages });
        return recordsPerRound;
      },
    });
  } finally {
    await Promise.allSettled([transactional.disconnect(), idempotent.disconnect()]);
  }
}
