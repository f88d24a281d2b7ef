/**
 * Active topic tracking (KIP-558) in the source transaction sequence: the topics a task writes
 * to are recorded once written (at the commit of their transaction, or at once when every send
 * writes), with one store write per new topic, never for dead letters or an aborted transaction.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../../../shared/adapters/memory/memory-state-store.js';
import { SourceRecord } from '../../../../../shared/connect/records.js';
import type { TopicStore } from '../../../../../shared/ports/connector-meta-store.js';
import type { OutgoingRecord, ProducerTransaction } from '../../../../../shared/ports/kafka.js';
import { SourceEnvelope } from '../../../../../shared/runtime/pipeline/record-envelope.js';
import { SourceTransactionSequence } from '../../../../../shared/runtime/source/source-transaction-sequence.js';
import { ActiveTopicTracker } from '../../../../../shared/runtime/task/active-topics.js';

const encoder = new TextEncoder();

function polled(seq: number, topic: string): SourceRecord {
  return new SourceRecord({
    sourcePartition: { p: 0 },
    sourceOffset: { seq },
    topic,
    key: null,
    value: seq,
  });
}

function outgoing(seq: number, topic: string): OutgoingRecord {
  return { topic, key: null, value: encoder.encode(String(seq)) };
}

/** `count` processed records, the i-th to `topics[i % topics.length]`. */
function batch(first: number, count: number, topics: readonly string[]): SourceEnvelope[] {
  return Array.from({ length: count }, (_, i) => {
    const seq = first + i;
    const topic = topics[seq % topics.length] as string;
    const envelope = new SourceEnvelope(polled(seq, topic), i);
    envelope.outgoing = outgoing(seq, topic);
    return envelope;
  });
}

/** A Kafka transaction that places records one after another. */
function fakeTransaction(): ProducerTransaction {
  let offset = 0;
  return {
    send: async (records) =>
      records.map((r) => ({ topic: r.topic, partition: 0, offset: offset++ })),
    sendOffsets: async () => {},
    commit: async () => {},
    abort: async () => {},
  };
}

/** The transaction sequence of task c-0 over a memory store whose topic writes are counted. */
async function setup(options: { flushAt?: number; enabled?: boolean } = {}) {
  const store = createMemoryStateStore();
  const record = await store.configs.createConnector('c', { 'connector.class': 'datagen' });
  const set = await store.configs.putTaskConfigs('c', [{}], 0);
  const generation = set.tasks[0]?.generation ?? 0;
  const lease = await store.leases.acquireLease({
    connector: 'c',
    task: 0,
    owner: 'inv-1',
    generation,
    ttlMs: 60_000,
  });
  const writes: string[] = [];
  const topics: TopicStore = {
    recordActiveTopic: async (connector, topic) => {
      writes.push(topic);
      return store.topics.recordActiveTopic(connector, topic);
    },
    listActiveTopics: (connector) => store.topics.listActiveTopics(connector),
    resetActiveTopics: (connector) => store.topics.resetActiveTopics(connector),
  };
  const tracker = new ActiveTopicTracker(topics, { enabled: options.enabled ?? true });
  const activeTopics = tracker.forTask(record, 0, generation);
  const sequence = new SourceTransactionSequence({
    scope: {
      ref: { connector: 'c', task: 0 },
      fence: lease,
      connector: 'c',
      offsetsTopic: 'offsets',
      offsets: store.offsets,
      checkpoint: async () => {},
      now: () => 1_000,
    },
    begin: async () => fakeTransaction(),
    committed: { seq: 0, offsets: [] },
    flushAt: options.flushAt ?? 5_000,
    foldPromotions: true,
    ...(activeTopics === undefined ? {} : { activeTopics }),
  });
  const listed = () => store.topics.listActiveTopics('c');
  return { sequence, writes, listed };
}

describe('SourceTransactionSequence: active topics', () => {
  it('records the topics of a transaction when it commits, one write per topic', async () => {
    // Prepare
    const { sequence, writes, listed } = await setup();
    const first = batch(0, 500, ['orders', 'invoices']);
    // Act
    await sequence.send(first);
    const beforeCommit = await listed();
    await sequence.commit();
    for (let i = 1; i <= 20; i += 1) {
      const next = batch(i * 500, 500, ['orders', 'invoices']);
      await sequence.send(next);
      await sequence.commit();
    }
    // Assess
    expect(beforeCommit).toEqual([]);
    expect(await listed()).toEqual(['invoices', 'orders']);
    expect([...writes].sort()).toEqual(['invoices', 'orders']);
  });

  it('records a topic first written later in the invocation', async () => {
    // Prepare
    const { sequence, listed } = await setup();
    const first = batch(0, 10, ['orders']);
    const second = batch(10, 10, ['audit']);
    // Act
    await sequence.send(first);
    await sequence.commit();
    await sequence.send(second);
    await sequence.commit();
    // Assess
    expect(await listed()).toEqual(['audit', 'orders']);
  });

  it('does not record the topic of an aborted transaction or of dead letters', async () => {
    // Prepare
    const { sequence, listed } = await setup();
    const aborted = batch(0, 5, ['dropped']);
    const kept = batch(5, 5, ['orders']);
    // Act
    await sequence.send(aborted);
    await sequence.abort();
    const [failed] = kept;
    if (failed !== undefined) {
      failed.outgoing = null;
      failed.deadLetters = [outgoing(5, 'orders-dlq')];
    }
    await sequence.send(kept);
    await sequence.commit();
    // Assess
    expect(await listed()).toEqual(['orders']);
  });

  it('records as soon as the records are sent when every send writes (at least once)', async () => {
    // Prepare
    const { sequence, listed } = await setup({ flushAt: 1 });
    const sent = batch(0, 3, ['orders']);
    // Act
    await sequence.send(sent);
    // Assess
    expect(await listed()).toEqual(['orders']);
  });

  it('records nothing when topic tracking is disabled', async () => {
    // Prepare
    const { sequence, writes, listed } = await setup({ enabled: false });
    const sent = batch(0, 3, ['orders']);
    // Act
    await sequence.send(sent);
    await sequence.commit();
    // Assess
    expect(writes).toEqual([]);
    expect(await listed()).toEqual([]);
  });
});
