import { type KafkaMessage, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import { FencedError, RetriableError } from '../../../shared/connect/errors.js';
import type { KafkaAdminPort, TopicPartitionOffset } from '../../../shared/ports/kafka.js';
import { testKafka, uniqueName } from '../../support/services.js';

const text = (s: string) => new TextEncoder().encode(s);

/** Reads a topic read_committed until `count` records arrived. */
async function readAll(topic: string, count: number) {
  const consumer = testKafka().consumer({ groupId: uniqueName('reader'), maxWaitTimeInMs: 100 });
  const seen: { partition: number; offset: number; message: KafkaMessage }[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      seen.push({ partition, offset: Number(message.offset), message });
    },
  });
  const deadline = Date.now() + 20_000;
  while (seen.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await consumer.disconnect();
  return seen;
}

describe('KafkaJsClientFactory (kafkajs adapter of the Kafka port)', () => {
  let factory: KafkaJsClientFactory;
  let admin: KafkaAdminPort;

  beforeAll(() => {
    factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
    admin = factory.admin();
  });

  afterAll(async () => {
    await admin.close();
    await factory.close();
  });

  it('reports where each record landed, in input order, across partitions', async () => {
    const topic = uniqueName('positions');
    await admin.createTopics([{ topic, partitions: 3 }]);
    const producer = factory.transactionalProducer(uniqueName('txid'));
    await producer.connect();
    const records = Array.from({ length: 30 }, (_, i) => ({
      topic,
      key: text(`key-${i % 7}`),
      value: text(`value-${i}`),
      headers: [
        { key: 'seq', value: text(String(i)) },
        { key: 'seq', value: text('again') },
      ],
    }));
    const tx = await producer.begin();
    const landed = await tx.send(records);
    await tx.commit();
    await producer.close();

    const seen = await readAll(topic, records.length);
    const at = new Map(seen.map((s) => [`${s.partition}/${s.offset}`, s.message]));
    expect(landed).toHaveLength(records.length);
    landed.forEach((position, i) => {
      const message = at.get(`${position.partition}/${position.offset}`);
      expect(message?.value?.toString()).toBe(`value-${i}`);
      expect(message?.headers?.seq).toEqual([Buffer.from(String(i)), Buffer.from('again')]);
    });
    // Same key, same partition (murmur2, as the Java client): 7 keys over 3 partitions.
    const partitionOfKey = new Map<string, number>();
    landed.forEach((position, i) => {
      const key = `key-${i % 7}`;
      expect(partitionOfKey.get(key) ?? position.partition).toBe(position.partition);
      partitionOfKey.set(key, position.partition);
    });
  });

  it('sends a transaction larger than the broker takes in one request (message.max.bytes) to one partition', async () => {
    const topic = uniqueName('large');
    await admin.createTopics([{ topic, partitions: 1 }]);
    const producer = factory.transactionalProducer(uniqueName('txid'));
    await producer.connect();
    // 3,000 records of 1 KB: 3 MB for one partition, three times the broker's default limit.
    const records = Array.from({ length: 3_000 }, (_, i) => ({
      topic,
      key: text(`key-${i}`),
      value: text(String(i).padEnd(1_000, '.')),
    }));
    const tx = await producer.begin();
    const landed = await tx.send(records);
    await tx.commit();
    await producer.close();

    const seen = await readAll(topic, records.length);
    expect(landed.map((p) => p.offset)).toEqual(records.map((_, i) => i));
    expect(seen.map((s) => s.message.key?.toString())).toEqual(records.map((_, i) => `key-${i}`));
  });

  it('raises FencedError on the older producer once a newer one initialises the same id', async () => {
    const topic = uniqueName('fenced');
    await admin.createTopics([{ topic, partitions: 1 }]);
    const transactionalId = uniqueName('txid');
    const older = factory.transactionalProducer(transactionalId);
    await older.connect();
    const olderTx = await older.begin();
    await olderTx.send([{ topic, key: null, value: text('zombie') }]);

    const newer = factory.transactionalProducer(transactionalId);
    await newer.connect();

    const zombie = (async () => {
      await olderTx.send([{ topic, key: null, value: text('zombie-2') }]);
      await olderTx.commit();
    })();
    await expect(zombie).rejects.toBeInstanceOf(FencedError);
    const tx = await newer.begin();
    await tx.send([{ topic, key: null, value: text('newer') }]);
    await tx.commit();
    await Promise.all([older.close(), newer.close()]);

    const seen = await readAll(topic, 1);
    expect(seen.map((s) => s.message.value?.toString())).toEqual(['newer']);
  });

  it('commits group offsets with the transaction and reads them back through the admin port', async () => {
    const topic = uniqueName('marker');
    const groupId = uniqueName('group');
    await admin.createTopics([{ topic, partitions: 2 }]);
    const producer = factory.transactionalProducer(uniqueName('txid'));
    await producer.connect();
    const tx = await producer.begin();
    await tx.send([{ topic, partition: 1, key: null, value: text('x') }]);
    const marker: TopicPartitionOffset = { topic, partition: 1, offset: 12 };
    await tx.sendOffsets(groupId, [marker]);
    await tx.commit();
    await producer.close();

    let committed: TopicPartitionOffset[] = [];
    const deadline = Date.now() + 10_000;
    while (committed.length === 0 && Date.now() < deadline) {
      committed = await admin.committedOffsets(groupId, topic);
    }
    expect(committed).toEqual([marker]);
  });

  it('creates only missing topics, with their configs, and reports partitions and end offsets', async () => {
    const compacted = uniqueName('offsets');
    expect(
      await admin.createTopics([
        { topic: compacted, partitions: 4, configs: { 'cleanup.policy': 'compact' } },
      ]),
    ).toEqual([compacted]);
    expect(await admin.createTopics([{ topic: compacted, partitions: 4 }])).toEqual([]);

    const counts = await admin.partitionCounts([compacted, uniqueName('absent')]);
    expect([...counts]).toEqual([[compacted, 4]]);

    const producer = factory.idempotentProducer();
    await producer.connect();
    await producer.send([
      { topic: compacted, partition: 2, key: text('k'), value: text('1') },
      { topic: compacted, partition: 2, key: text('k'), value: text('2') },
    ]);
    await producer.close();
    const ends = await admin.endOffsets(compacted);
    expect(ends.find((e) => e.partition === 2)?.offset).toBe(2);
    expect(ends.find((e) => e.partition === 0)?.offset).toBe(0);
  });

  it('creates a missing topic through the broker, as the Java producer does', async () => {
    const producer = factory.idempotentProducer();
    await producer.connect();
    const topic = uniqueName('auto');
    const [position] = await producer.send([{ topic, key: text('k'), value: text('v') }]);
    await producer.close();

    expect(position).toEqual({ topic, partition: 0, offset: 0 });
    expect(await admin.listTopics()).toContain(topic);
  });

  it('tells committed, aborted and still-open transactional records apart', async () => {
    const topic = uniqueName('fate');
    await admin.createTopics([{ topic, partitions: 1 }]);
    const producer = factory.transactionalProducer(uniqueName('txid'));
    await producer.connect();
    const write = async (value: string, outcome: 'commit' | 'abort') => {
      const tx = await producer.begin();
      const [position] = await tx.send([{ topic, partition: 0, key: null, value: text(value) }]);
      await (outcome === 'commit' ? tx.commit() : tx.abort());
      if (position === undefined) throw new Error('no position');
      return position;
    };
    const committed = await write('c1', 'commit');
    const abortedMiddle = await write('a1', 'abort');
    await write('c2', 'commit');
    const abortedLast = await write('a2', 'abort');
    // Markers are written after EndTxn returns; wait until the stable end passes the last one.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const [end] = await admin.endOffsets(topic);
      if ((end?.offset ?? 0) > abortedLast.offset) break;
    }
    const open = await producer.begin();
    const [openPosition] = await open.send([{ topic, partition: 0, key: null, value: text('o') }]);

    expect(await admin.transactionalRecordFate(committed)).toBe('committed');
    expect(await admin.transactionalRecordFate(abortedMiddle)).toBe('aborted');
    expect(await admin.transactionalRecordFate(abortedLast)).toBe('aborted');
    if (openPosition === undefined) throw new Error('no position');
    expect(await admin.transactionalRecordFate(openPosition)).toBe('open');
    await open.abort();
    await producer.close();
  });

  it('tells interleaved producers apart and leaves no consumer group behind', async () => {
    const topic = uniqueName('fate-mix');
    await admin.createTopics([{ topic, partitions: 1 }]);
    const a = factory.transactionalProducer(uniqueName('txid-a'));
    const b = factory.transactionalProducer(uniqueName('txid-b'));
    await Promise.all([a.connect(), b.connect()]);
    const kafkaAdmin = testKafka().admin();
    await kafkaAdmin.connect();
    try {
      // Other test files create consumer groups on the shared broker meanwhile: compare names.
      const groupsBefore = new Set((await kafkaAdmin.listGroups()).groups.map((g) => g.groupId));
      // A's transaction spans B's: B commits inside it, then A aborts.
      const txA = await a.begin();
      const [fromA] = await txA.send([{ topic, partition: 0, key: null, value: text('a') }]);
      const txB = await b.begin();
      const [fromB] = await txB.send([{ topic, partition: 0, key: null, value: text('b') }]);
      await txB.commit();
      if (fromA === undefined || fromB === undefined) throw new Error('no position');
      expect(await admin.transactionalRecordFate(fromB)).toBe('open'); // A still holds the stable end
      await txA.abort();
      let fateA = await admin.transactionalRecordFate(fromA);
      for (let i = 0; fateA === 'open' && i < 50; i += 1) {
        await new Promise((r) => setTimeout(r, 100));
        fateA = await admin.transactionalRecordFate(fromA);
      }

      expect(fateA).toBe('aborted');
      expect(await admin.transactionalRecordFate(fromB)).toBe('committed');
      // A consumer-based probe would leave a group behind (the old one used
      // `serverless-connect-fate-<uuid>`); the Fetch-based one leaves none.
      const newGroups = (await kafkaAdmin.listGroups()).groups
        .map((g) => g.groupId)
        .filter((id) => !groupsBefore.has(id));
      expect(newGroups.filter((id) => /fate/i.test(id) || id.includes(topic))).toEqual([]);
    } finally {
      await kafkaAdmin.disconnect();
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("moves an empty group's offsets, and refuses retriably while the group has a member", async () => {
    // Prepare
    const topic = uniqueName('moved');
    const kafka = testKafka();
    await admin.createTopics([{ topic, partitions: 2 }]);
    const group = uniqueName('group');
    const busyGroup = uniqueName('busy');
    const member = kafka.consumer({ groupId: busyGroup });
    await member.connect();
    await member.subscribe({ topic, fromBeginning: true });
    const joined = new Promise((resolve) => member.on(member.events.GROUP_JOIN, resolve));
    await member.run({ eachMessage: async () => {} });
    await joined;
    // Act
    await admin.setGroupOffsets(group, [
      { topic, partition: 0, offset: 0 },
      { topic, partition: 1, offset: 0 },
    ]);
    const refused = admin
      .setGroupOffsets(busyGroup, [{ topic, partition: 0, offset: 0 }])
      .catch((error: unknown) => error);
    // Assess
    expect(await admin.committedOffsets(group, topic)).toEqual([
      { topic, partition: 0, offset: 0 },
      { topic, partition: 1, offset: 0 },
    ]);
    expect(await refused).toBeInstanceOf(RetriableError);
    await member.disconnect();
  });
});
