import { createRequire } from 'node:module';
import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import type { KafkaAdminPort } from '../../../shared/ports/kafka.js';
import { uniqueName } from '../../support/services.js';

/**
 * The kafkajs patch keeps a transactional producer's coordinators (patches/kafkajs+2.2.4.patch,
 * eosManager): unpatched, kafkajs sent a FindCoordinator before each AddPartitionsToTxn,
 * AddOffsetsToTxn, TxnOffsetCommit and EndTxn, a round trip on every transaction's critical path.
 * Counted here on the wire (every kafkajs request goes through `Connection.prototype.send`).
 */
const require = createRequire(import.meta.url);
const Connection = require('kafkajs/src/network/connection') as {
  prototype: { send(this: unknown, args: { request: { apiName: string } }): Promise<unknown> };
};

const text = (s: string) => new TextEncoder().encode(s);

describe('kafkajs transactional producer (patched coordinator cache, real broker)', () => {
  let factory: KafkaJsClientFactory;
  let admin: KafkaAdminPort;
  const sent: string[] = [];
  const original = Connection.prototype.send;

  beforeAll(() => {
    factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
    admin = factory.admin();
    Connection.prototype.send = function countingSend(args) {
      sent.push(args.request.apiName);
      return original.call(this, args);
    };
  });

  afterAll(async () => {
    Connection.prototype.send = original;
    await admin.close();
    await factory.close();
  });

  it('looks the coordinators up once, not before each transaction request', async () => {
    // Prepare
    const topic = uniqueName('coordinator-cache');
    await admin.createTopics([{ topic, partitions: 2 }]);
    const producer = factory.transactionalProducer(uniqueName('txid'));
    await producer.connect();
    const group = uniqueName('group');
    const runTransaction = async (i: number) => {
      const tx = await producer.begin();
      await tx.send([{ topic, key: text(`k${i}`), value: text(`v${i}`) }]);
      await tx.sendOffsets(group, [{ topic, partition: 0, offset: i + 1 }]);
      await tx.commit();
    };
    await runTransaction(0); // finds the group coordinator once
    sent.length = 0;

    // Act: five more transactions, each with records and group offsets.
    for (let i = 1; i <= 5; i++) await runTransaction(i);
    const counts = Object.fromEntries(
      [...new Set(sent)].map((name) => [name, sent.filter((s) => s === name).length]),
    );
    await producer.close();

    // Assess: each transaction's coordinator requests (AddPartitionsToTxn may be answered
    // CONCURRENT_TRANSACTIONS while the previous commit's markers are written, and sent again),
    // and no lookup among them.
    expect(counts, JSON.stringify(counts)).toMatchObject({
      AddOffsetsToTxn: 5,
      TxnOffsetCommit: 5,
      EndTxn: 5,
    });
    expect(counts.AddPartitionsToTxn).toBeGreaterThanOrEqual(5);
    expect(counts.GroupCoordinator ?? 0, JSON.stringify(counts)).toBe(0);
    expect(await admin.committedOffsets(group, topic)).toEqual([
      { topic, partition: 0, offset: 6 },
    ]);
  });
});
