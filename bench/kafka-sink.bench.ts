/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: Connect's ${topic} placeholder */
import { Kafka, logLevel, type Message } from 'kafkajs';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';
import { retry } from '../shared/adapters/kafkajs/records.js';
import { KAFKA_SINK_CLASS } from '../shared/plugins/connectors/kafka-sink/descriptor.js';
import { createTopic } from '../test/support/sink-campaign/input.js';
import type { BenchServices } from './services.js';
import { prepareSinkBench, timedSinkDescriptor } from './sink-runner.js';
import { timedKafkaFactory } from './timings.js';

/**
 * `kafka-sink`: the Kafka sink (ByteArrayConverter, `${topic}.ours`, one transaction per input
 * partition and batch with the connector group's offset) through the sink runtime, vs a bare
 * kafkajs consume-transform-produce loop over the same batches: begin, send the batch's records
 * to `${topic}.bare`, sendOffsets of its own group, commit, one transaction per batch. One
 * input partition, 10,000 records of ~200 bytes per round in batches of 500; the same client
 * retry settings on both sides (a 10 ms initial backoff, as the project's transactional
 * producers use).
 */
const PARTITIONS = 1;
const PER_ROUND = 10_000;
const BATCH = 500;

export async function run(services: BenchServices): Promise<void> {
  const bench = await prepareSinkBench(services, {
    name: 'kafka-sink',
    partitions: PARTITIONS,
    perRound: PER_ROUND,
    batch: BATCH,
  });
  const factory = new KafkaJsClientFactory({ brokers: bench.brokers, logLevel: logLevel.NOTHING });
  // The engine's own Kafka sink over timed clients, its put and preCommit timed by a wrapper
  // registered once the engine has built the sink.
  const engine = bench.container({ kafka: timedKafkaFactory(factory, bench.timings) });
  const kafkaSink = engine.plugins.resolve(KAFKA_SINK_CLASS, 'sink');
  engine.plugins.register(
    timedSinkDescriptor(kafkaSink, 'bench.TimedKafkaSinkConnector', bench.timings),
  );
  const connector = `${bench.prefix}-ours`;
  await bench.createConnector(connector, {
    name: connector,
    'connector.class': 'bench.TimedKafkaSinkConnector',
    topics: bench.topic,
    'topic.rename.format': '${topic}.ours',
    'key.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
    'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
    'header.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
  });

  // The bare loop: its own output topic, group and transactional producer.
  const kafka = new Kafka({ brokers: bench.brokers, logLevel: logLevel.NOTHING, retry });
  const bareTopic = `${bench.topic}.bare`;
  const bareGroup = `${bench.prefix}-bare`;
  await createTopic(kafka, bareTopic, PARTITIONS);
  const producer = kafka.producer({
    transactionalId: `${bench.prefix}-bare`,
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
  const batches = bench.slices.map((slice) =>
    slice.batches.map((batch) => ({
      messages: batch.map(
        (r): Message => ({
          partition: r.partition,
          key: r.key === null ? null : Buffer.from(r.key),
          value: r.value === null ? null : Buffer.from(r.value),
          timestamp: String(r.timestamp),
          headers: Object.fromEntries(
            r.headers.map((h) => [h.key, h.value === null ? '' : Buffer.from(h.value)]),
          ),
        }),
      ),
      next: String((batch[batch.length - 1]?.offset ?? -1) + 1),
    })),
  );

  try {
    await bench.compare(
      async () => bench.runOurs(engine, connector, bench.nextSlice('ours')),
      async (slice, batch) => {
        const work = batches[slice.index]?.[batch];
        if (work === undefined) return;
        const tx = await producer.transaction();
        await tx.send({ topic: bareTopic, messages: work.messages });
        await tx.sendOffsets({
          consumerGroupId: bareGroup,
          topics: [{ topic: bench.topic, partitions: [{ partition: 0, offset: work.next }] }],
        });
        await tx.commit();
      },
    );
  } finally {
    await producer.disconnect();
    await bench.close();
    await factory.close();
  }
}
