import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import type { KafkaAdminPort } from '../../../shared/ports/kafka.js';
import { uniqueName } from '../../support/services.js';

const text = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

/**
 * `readCommitted`, the bounded group-less read the source runtime rebuilds lost offsets with: what
 * a read_committed consumer would see, up to the stable end, from where it is told to start.
 */
describe('KafkaAdminPort.readCommitted (kafkajs adapter)', () => {
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

  it('leaves out aborted records and stops before a transaction still open', async () => {
    const topic = uniqueName('read-committed');
    await admin.createTopics([{ topic, partitions: 2 }]);
    const producer = factory.transactionalProducer(uniqueName('txid'));
    await producer.connect();
    const write = async (values: string[], outcome: 'commit' | 'abort') => {
      const tx = await producer.begin();
      await tx.send(
        values.map((v, i) => ({ topic, partition: i % 2, key: text(v), value: text(v) })),
      );
      await (outcome === 'commit' ? tx.commit() : tx.abort());
    };
    await write(['c1', 'c2'], 'commit');
    await write(['a1', 'a2'], 'abort');
    await write(['c3', 'c4'], 'commit');
    const plain = factory.idempotentProducer();
    await plain.connect();
    await plain.send([{ topic, partition: 1, key: null, value: text('plain') }]);
    const open = await producer.begin();
    await open.send([{ topic, partition: 0, key: null, value: text('open') }]);
    try {
      // Act
      const read = await admin.readCommitted(topic);
      // Assess
      const byPartition = (p: number) =>
        read.records.filter((r) => r.partition === p).map((r) => decode(r.value));
      expect(byPartition(0)).toEqual(['c1', 'c3']);
      expect(byPartition(1)).toEqual(['c2', 'c4', 'plain']);
      expect(read.records.every((r) => r.timestamp > Date.now() - 60_000)).toBe(true);
      // Where it stopped: partition 0 at the open transaction's record, partition 1 at its end.
      const ends = await admin.endOffsets(topic);
      expect(read.next.find((p) => p.partition === 1)?.offset).toBe(
        ends.find((p) => p.partition === 1)?.offset,
      );
      const stop0 = read.next.find((p) => p.partition === 0)?.offset ?? -1;
      // Resuming from there reads nothing new until the open transaction ends.
      const again = await admin.readCommitted(topic, read.next);
      expect(again.records).toEqual([]);
      await open.commit();
      // The broker writes the commit marker after EndTxn returns: ask until the stable end moved.
      let after = await admin.readCommitted(topic, read.next);
      for (const until = Date.now() + 10_000; after.records.length === 0 && Date.now() < until; ) {
        await new Promise((r) => setTimeout(r, 50));
        after = await admin.readCommitted(topic, read.next);
      }
      expect(after.records.map((r) => decode(r.value))).toEqual(['open']);
      expect(after.records[0]?.offset).toBeGreaterThanOrEqual(stop0);
    } finally {
      await plain.close();
      await producer.close();
    }
  });

  it('reads every partition to its end when one fetch cannot hold them all (its byte limit)', async () => {
    // Prepare: 12 partitions of 400 KB each; a fetch answers at most 1 MB, so most partitions
    // come back empty from each fetch while the first ones fill it.
    const topic = uniqueName('read-wide');
    await admin.createTopics([{ topic, partitions: 12 }]);
    const producer = factory.idempotentProducer();
    await producer.connect();
    const value = text('x'.repeat(10_000));
    try {
      for (let round = 0; round < 4; round += 1) {
        await producer.send(
          Array.from({ length: 120 }, (_, i) => ({ topic, partition: i % 12, key: null, value })),
        );
      }
    } finally {
      await producer.close();
    }
    // Act
    const read = await admin.readCommitted(topic);
    // Assess
    expect(read.records).toHaveLength(480);
    expect(read.next.map((p) => p.offset)).toEqual(Array.from({ length: 12 }, () => 40));
  });

  it('reads from the start when a position is past the end of the log (the topic was created again)', async () => {
    // Prepare
    const topic = uniqueName('read-recreated');
    await admin.createTopics([{ topic, partitions: 1 }]);
    const producer = factory.idempotentProducer();
    await producer.connect();
    try {
      await producer.send([{ topic, partition: 0, key: null, value: text('only') }]);
    } finally {
      await producer.close();
    }
    // Act: a watermark from an older, longer life of the topic
    const read = await admin.readCommitted(topic, [{ topic, partition: 0, offset: 500 }]);
    // Assess
    expect(read.records.map((r) => decode(r.value))).toEqual(['only']);
    expect(read.next).toEqual([{ topic, partition: 0, offset: 1 }]);
  });
});
