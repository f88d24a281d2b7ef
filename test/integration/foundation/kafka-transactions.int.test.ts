import type { Admin, Consumer, Kafka, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopics, testKafka, uniqueName } from '../../support/services.js';

/**
 * Proof tests: the Kafka guarantees every exactly-once claim of the project rests on, checked
 * against the real pinned broker with kafkajs 2.2.4.
 */

async function readCommitted(kafka: Kafka, topic: string, expectedAtLeast: number, waitMs = 4000) {
  const consumer: Consumer = kafka.consumer({
    groupId: uniqueName('reader'),
    readUncommitted: false,
    maxWaitTimeInMs: 200,
  });
  const seen: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let lastChange = Date.now();
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value?.toString() ?? '');
        lastChange = Date.now();
      },
    });
    // Read until the expected records arrived and nothing new came for a while.
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (seen.length >= expectedAtLeast && Date.now() - lastChange > waitMs) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

function transactionalProducer(kafka: Kafka, transactionalId: string): Producer {
  return kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
}

describe('Kafka transactions on the pinned broker (kafkajs)', () => {
  let kafka: Kafka;
  let admin: Admin;

  beforeAll(async () => {
    kafka = testKafka();
    admin = kafka.admin();
    await admin.connect();
  });

  afterAll(async () => {
    await admin.disconnect();
  });

  it('shows a committed batch to a read_committed consumer and never an aborted one', async () => {
    const topic = uniqueName('tx-commit');
    await createTopics(admin, [{ topic, numPartitions: 1 }]);
    const producer = transactionalProducer(kafka, uniqueName('txid'));
    await producer.connect();
    try {
      const committed = await producer.transaction();
      await committed.send({
        topic,
        messages: [{ value: 'c1' }, { value: 'c2' }, { value: 'c3' }],
      });
      await committed.commit();

      const aborted = await producer.transaction();
      await aborted.send({ topic, messages: [{ value: 'a1' }, { value: 'a2' }] });
      await aborted.abort();

      const after = await producer.transaction();
      await after.send({ topic, messages: [{ value: 'c4' }] });
      await after.commit();
    } finally {
      await producer.disconnect();
    }

    const seen = await readCommitted(kafka, topic, 4);
    expect(seen).toEqual(['c1', 'c2', 'c3', 'c4']);
  });

  it('hides transactions aborted out of start order from read_committed consumers (patched kafkajs)', async () => {
    // Prepare: three producers interleave on one partition; the last to start aborts first, so
    // the broker's aborted-transaction list is not in first-offset order (kafkajs 2.2.4 alone
    // lets the first two transactions' records through; patches/kafkajs+2.2.4.patch fixes it).
    const topic = uniqueName('tx-order');
    await createTopics(admin, [{ topic, numPartitions: 1 }]);
    const producers = [0, 1, 2].map(() => transactionalProducer(kafka, uniqueName('txid')));
    await Promise.all(producers.map((p) => p.connect()));
    try {
      const [a, b, c] = await Promise.all(producers.map((p) => p.transaction()));
      if (a === undefined || b === undefined || c === undefined) throw new Error('no transaction');
      await a.send({ topic, messages: [{ value: 'a1' }, { value: 'a2' }] });
      await b.send({ topic, messages: [{ value: 'b1' }] });
      await c.send({ topic, messages: [{ value: 'c1' }] });
      await a.send({ topic, messages: [{ value: 'a3' }] });
      // Act
      await c.abort();
      await b.commit();
      await a.abort();
      const after = await producers[0]?.transaction();
      await after?.send({ topic, messages: [{ value: 'z1' }] });
      await after?.commit();
    } finally {
      await Promise.all(producers.map((p) => p.disconnect()));
    }
    // Assess
    const seen = await readCommitted(kafka, topic, 2);
    expect(seen).toEqual(['b1', 'z1']);
  });

  it('fences a zombie producer when a newer one initialises the same transactional id', async () => {
    const topic = uniqueName('tx-fence');
    await createTopics(admin, [{ topic, numPartitions: 1 }]);
    const transactionalId = uniqueName('txid');
    const zombie = transactionalProducer(kafka, transactionalId);
    const successor = transactionalProducer(kafka, transactionalId);
    await zombie.connect();
    await successor.connect();
    try {
      const zombieTx = await zombie.transaction();
      await zombieTx.send({ topic, messages: [{ value: 'zombie-1' }] });

      // The successor's InitProducerId bumps the epoch and aborts the zombie's open transaction.
      const successorTx = await successor.transaction();
      await successorTx.send({ topic, messages: [{ value: 'successor-1' }] });
      await successorTx.commit();

      const zombieFinish = (async () => {
        await zombieTx.send({ topic, messages: [{ value: 'zombie-2' }] });
        await zombieTx.commit();
      })();
      await expect(zombieFinish).rejects.toMatchObject({
        type: expect.stringMatching(/INVALID_PRODUCER_EPOCH|PRODUCER_FENCED|INVALID_TXN_STATE/),
      });
    } finally {
      await Promise.allSettled([zombie.disconnect(), successor.disconnect()]);
    }

    const seen = await readCommitted(kafka, topic, 1);
    expect(seen).toEqual(['successor-1']);
  });

  it('moves a group offset through sendOffsets only when the transaction commits', async () => {
    const topic = uniqueName('tx-offsets');
    const groupId = uniqueName('marker');
    await createTopics(admin, [{ topic, numPartitions: 1 }]);
    const producer = transactionalProducer(kafka, uniqueName('txid'));
    await producer.connect();
    const committedOffset = async () => {
      const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return entry?.partitions.find((p) => p.partition === 0)?.offset;
    };
    // The coordinator applies transactional offset commits right after the transaction
    // completes; poll briefly until the value shows (see architecture.md, step 1).
    const visibleOffset = async (expected: string) => {
      const deadline = Date.now() + 10_000;
      let offset = await committedOffset();
      while (offset !== expected && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        offset = await committedOffset();
      }
      return offset;
    };
    try {
      const first = await producer.transaction();
      await first.send({ topic, messages: [{ value: 'r1' }] });
      await first.sendOffsets({
        consumerGroupId: groupId,
        topics: [{ topic, partitions: [{ partition: 0, offset: '7' }] }],
      });
      await first.commit();
      expect(await visibleOffset('7')).toBe('7');

      const second = await producer.transaction();
      await second.send({ topic, messages: [{ value: 'r2' }] });
      await second.sendOffsets({
        consumerGroupId: groupId,
        topics: [{ topic, partitions: [{ partition: 0, offset: '42' }] }],
      });
      await second.abort();
      // An aborted transaction's offsets must never appear, however long we wait.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await committedOffset()).toBe('7');
    } finally {
      await producer.disconnect();
    }
  });
});
