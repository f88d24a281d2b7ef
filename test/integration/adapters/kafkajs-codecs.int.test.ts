import { logLevel } from 'kafkajs';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import { kafkaJsCodecs } from '../../../shared/adapters/kafkajs/codecs/kafkajs-codecs.js';
import type { KafkaAdminPort, OutgoingRecord } from '../../../shared/ports/kafka.js';
import { testKafka, uniqueName } from '../../support/services.js';
import { KafkaJavaPeer } from './kafka-java-peer.js';

/**
 * Values for one batch: text and pseudo-random bytes of varied sizes, over 256 KiB in all, so
 * a batch spans several lz4 blocks (64 KiB) and xerial snappy chunks (32 KiB); one tombstone.
 */
function sampleValues(label: string, count = 240): (Uint8Array | null)[] {
  let seed = 0x9e3779b9;
  const random = () => {
    seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
    return seed;
  };
  return Array.from({ length: count }, (_, i) => {
    if (i === 17) return null;
    const text = new TextEncoder().encode(`${label}-${i}:${'abcdefgh'.repeat(i % 50)}`);
    const noise = Uint8Array.from({ length: (random() % 1500) + 10 }, () => random() & 0x3f);
    const value = new Uint8Array(text.length + noise.length);
    value.set(text);
    value.set(noise, text.length);
    return value;
  });
}

const asBuffers = (values: readonly (Uint8Array | null)[]) =>
  values.map((v) => (v === null ? null : Buffer.from(v)));

/** Reads a topic read_committed with kafkajs until `count` records arrived; values in offset order. */
async function readCommittedWithKafkaJs(topic: string, count: number): Promise<(Buffer | null)[]> {
  const consumer = testKafka().consumer({
    groupId: uniqueName('codec-reader'),
    maxWaitTimeInMs: 100,
  });
  const seen: { offset: number; value: Buffer | null }[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      seen.push({ offset: Number(message.offset), value: message.value });
    },
  });
  const deadline = Date.now() + 30_000;
  while (seen.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await consumer.disconnect();
  return seen.sort((a, b) => a.offset - b.offset).map((s) => s.value);
}

describe('kafkajs codecs against Apache Kafka 4.4 Java clients', () => {
  const bootstrap = inject('kafkaBrokers').join(',');
  let factory: KafkaJsClientFactory;
  let admin: KafkaAdminPort;
  let java: KafkaJavaPeer;

  beforeAll(async () => {
    factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
    admin = factory.admin();
    java = await KafkaJavaPeer.compile();
  });

  afterAll(async () => {
    await admin.close();
    await factory.close();
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  const codecs = ['gzip', 'snappy', 'lz4', 'zstd'] as const;

  describe.each(codecs)('compression.type=%s', (codec) => {
    it('writes transactional batches that kafkajs and the Java consumer read back read_committed', async () => {
      // Prepare
      const topic = uniqueName(`codec-${codec}`);
      await admin.createTopics([{ topic, partitions: 1 }]);
      const compress = codec === 'gzip' ? undefined : vi.spyOn(kafkaJsCodecs[codec], 'compress');
      const producer = factory.transactionalProducer(uniqueName('codec-tx'), {
        compression: codec,
      });
      await producer.connect();
      const record = (value: Uint8Array | null): OutgoingRecord => ({ topic, key: null, value });
      const values = sampleValues(codec);

      // Act: an aborted transaction, then a committed one
      const aborted = await producer.begin();
      await aborted.send(sampleValues('aborted', 5).map(record));
      await aborted.abort();
      const tx = await producer.begin();
      await tx.send(values.map(record));
      await tx.commit();
      await producer.close();

      // Assess
      const viaKafkaJs = await readCommittedWithKafkaJs(topic, values.length);
      const viaJava = await java.consume(bootstrap, topic, values.length);
      expect(viaKafkaJs).toEqual(asBuffers(values));
      expect(viaJava.map((r) => r.value)).toEqual(asBuffers(values));
      if (compress !== undefined) expect(compress).toHaveBeenCalled();
    });

    it('reads batches the Java producer compressed', async () => {
      // Prepare
      const topic = uniqueName(`codec-java-${codec}`);
      await admin.createTopics([{ topic, partitions: 1 }]);
      const values = sampleValues(`java-${codec}`).filter((v) => v !== null);
      const decompress =
        codec === 'gzip' ? undefined : vi.spyOn(kafkaJsCodecs[codec], 'decompress');

      // Act
      await java.produce(bootstrap, topic, codec, values);
      const read = await readCommittedWithKafkaJs(topic, values.length);

      // Assess
      expect(read).toEqual(asBuffers(values));
      if (decompress !== undefined) expect(decompress).toHaveBeenCalled();
    });
  });

  it('compresses with the worker default when a connector sets no compression.type', async () => {
    // Prepare
    const workerDefault = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
      compression: 'lz4',
    });
    const topic = uniqueName('codec-default');
    await admin.createTopics([{ topic, partitions: 1 }]);
    const compress = vi.spyOn(kafkaJsCodecs.lz4, 'compress');
    const producer = workerDefault.idempotentProducer();
    await producer.connect();

    // Act
    await producer.send([{ topic, key: null, value: new TextEncoder().encode('hello lz4') }]);
    await producer.close();

    // Assess
    expect(compress).toHaveBeenCalledTimes(1);
    const viaJava = await java.consume(bootstrap, topic, 1);
    expect(viaJava.map((r) => r.value?.toString())).toEqual(['hello lz4']);
  });
});
