import { Kafka, logLevel } from 'kafkajs';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';
import { createMemoryStateStore } from '../shared/adapters/memory/memory-state-store.js';
import { reconcileWithOffsetsTopic } from '../shared/runtime/source/offsets-reconcile.js';
import { offsetRecord } from '../shared/runtime/source/offsets-topic.js';
import { compareThroughput, median } from './harness.js';
import type { BenchServices } from './services.js';

/**
 * `offsets-reconcile`: what reading the offsets topic costs a source task start
 * (docs/exactly-once-source.md, "Lost or restored state"). A 25-partition offsets topic holds
 * 100,000 offset records (200 source partitions of this connector advanced 250 times each, and
 * as many of another connector), uncompacted: the worst a lost table meets.
 * - `offsets-reconcile-full`: ours = a reconcile without a watermark (a lost table: the whole
 *   topic read, the latest record per source partition adopted); baseline = a kafkajs consumer
 *   reading the same topic from the start (the protocol's floor for reading it, plus a group join).
 * - then the reconcile of a task starting in a new container with the watermark in place and
 *   nothing new (the steady state's cold start), median ms; a warm container skips it.
 */
const SOURCE_PARTITIONS = 200;
const UPDATES = 250;

export async function run(services: BenchServices): Promise<void> {
  const { brokers } = await services.kafka();
  const factory = new KafkaJsClientFactory({ brokers, logLevel: logLevel.NOTHING });
  const admin = factory.admin();
  const topic = `bench-offsets-${Date.now().toString(36)}`;
  await admin.createTopics([{ topic, partitions: 25, configs: { 'cleanup.policy': 'compact' } }]);
  const producer = factory.idempotentProducer();
  await producer.connect();
  const connectors = ['bench-source', 'other-source'];
  for (let update = 1; update <= UPDATES; update += 1) {
    await producer.send(
      connectors.flatMap((connector) =>
        Array.from({ length: SOURCE_PARTITIONS }, (_, p) =>
          offsetRecord(topic, connector, { partition: { p }, offset: { seq: update } }),
        ),
      ),
    );
  }
  const total = UPDATES * SOURCE_PARTITIONS * connectors.length;
  const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING });
  let adopted = 0;
  try {
    await compareThroughput({
      name: 'offsets-reconcile-full',
      unit: 'records',
      ours: async () => {
        const store = createMemoryStateStore();
        const result = await reconcileWithOffsetsTopic(
          { offsets: store.offsets, admin },
          'bench-source',
          topic,
        );
        adopted = result.adopted;
        return result.read;
      },
      baseline: async () => {
        const consumer = kafka.consumer({
          groupId: `bench-read-${Date.now()}-${Math.random()}`,
          readUncommitted: false,
          maxWaitTimeInMs: 50,
        });
        let read = 0;
        await consumer.connect();
        await consumer.subscribe({ topic, fromBeginning: true });
        const done = new Promise<void>((resolve) => {
          void consumer.run({
            eachBatch: async ({ batch }) => {
              read += batch.messages.length;
              if (read >= total) resolve();
            },
          });
        });
        await done;
        await consumer.disconnect();
        return read;
      },
    });
    if (adopted !== SOURCE_PARTITIONS) {
      throw new Error(`the full reconcile adopted ${adopted} partitions, not ${SOURCE_PARTITIONS}`);
    }
    // The steady state: the watermark in place, a new container's first invocation reads
    // only what came after it (nothing here).
    const store = createMemoryStateStore();
    await reconcileWithOffsetsTopic({ offsets: store.offsets, admin }, 'bench-source', topic);
    const times: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const started = performance.now();
      const result = await reconcileWithOffsetsTopic(
        { offsets: store.offsets, admin },
        'bench-source',
        topic,
      );
      times.push(performance.now() - started);
      if (result.read !== 0) throw new Error(`a reconcile at the watermark read ${result.read}`);
    }
    console.log(
      `offsets-reconcile-watermark: median=${median(times).toFixed(1)}ms (a task start in a new container, ${total} records behind the watermark, none after it)`,
    );
  } finally {
    await producer.close();
    await admin.close();
    await factory.close();
  }
}
