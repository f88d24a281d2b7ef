import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../../../shared/adapters/memory/memory-state-store.js';
import { SourceRecord } from '../../../../../shared/connect/records.js';
import type { RecordMetadata } from '../../../../../shared/connect/source.js';
import type {
  OutgoingRecord,
  ProducerTransaction,
  TopicPartitionOffset,
} from '../../../../../shared/ports/kafka.js';
import type { OffsetStore } from '../../../../../shared/ports/offset-store.js';
import { SourceEnvelope } from '../../../../../shared/runtime/pipeline/record-envelope.js';
import { SourceTransactionSequence } from '../../../../../shared/runtime/source/source-transaction-sequence.js';

const encoder = new TextEncoder();

function record(seq: number, p = 0): SourceRecord {
  return new SourceRecord({
    sourcePartition: { p },
    sourceOffset: { seq },
    topic: 'out',
    key: null,
    value: seq,
  });
}

function outgoing(seq: number): OutgoingRecord {
  return { topic: 'out', key: null, value: encoder.encode(String(seq)) };
}

/** `record` in its envelope, as the pipeline left it. */
function processed(
  record: SourceRecord,
  produced: OutgoingRecord | null,
  deadLetters: OutgoingRecord[] = [],
): SourceEnvelope {
  const envelope = new SourceEnvelope(record, 0);
  envelope.outgoing = produced;
  envelope.deadLetters = deadLetters;
  return envelope;
}

/** A Kafka transaction that logs what happens to it and places records one after another. */
function fakeTransaction(
  log: string[],
  next: { offset: number },
  faults: { abort?: Error } = {},
): ProducerTransaction {
  return {
    send: async (records) => {
      log.push(`send ${records.length}`);
      return records.map(
        (r): TopicPartitionOffset => ({
          topic: r.topic,
          partition: 0,
          offset: next.offset++,
        }),
      );
    },
    sendOffsets: async (group) => {
      log.push(`sendOffsets ${group}`); // a source transaction commits no group offsets
    },
    commit: async () => {
      log.push('commit');
    },
    abort: async () => {
      log.push('abort');
      if (faults.abort !== undefined) throw faults.abort;
    },
  };
}

/** A task with a lease in a memory store, whose offset writes are logged (and can be held). */
async function setup(foldPromotions = true) {
  const store = createMemoryStateStore();
  await store.configs.createConnector('c', { 'connector.class': 'datagen' });
  const set = await store.configs.putTaskConfigs('c', [{}], 0);
  const lease = await store.leases.acquireLease({
    connector: 'c',
    task: 0,
    owner: 'inv-1',
    generation: set.tasks[0]?.generation ?? 0,
    ttlMs: 60_000,
  });
  const log: string[] = [];
  let hold: Promise<void> | undefined;
  let failPromotion: Error | undefined;
  const real = store.offsets;
  const offsets: OffsetStore = Object.create(real);
  offsets.writePendingSourceOffsets = async (ref, pending, fence) => {
    log.push(`pending ${pending.seq}`);
    await real.writePendingSourceOffsets(ref, pending, fence);
  };
  offsets.promoteAndWritePendingSourceOffsets = async (ref, seq, pending, fence) => {
    log.push(`promote ${seq} + pending ${pending.seq}`);
    await hold;
    if (failPromotion !== undefined) throw failPromotion;
    return real.promoteAndWritePendingSourceOffsets(ref, seq, pending, fence);
  };
  offsets.promotePendingSourceOffsets = async (ref, seq, fence) => {
    log.push(`promote ${seq}`);
    await hold;
    if (failPromotion !== undefined) throw failPromotion;
    const committed = await real.promotePendingSourceOffsets(ref, seq, fence);
    log.push(`promoted ${seq}`);
    return committed;
  };
  const faults: { abort?: Error } = {};
  const acknowledged: [SourceRecord, RecordMetadata | null][] = [];
  const position = { offset: 100 };
  const sequence = new SourceTransactionSequence({
    scope: {
      ref: { connector: 'c', task: 0 },
      fence: lease,
      connector: 'c',
      offsetsTopic: 'offsets',
      offsets,
      checkpoint: async () => {},
      now: () => 1_000,
    },
    begin: async () => fakeTransaction(log, position, faults),
    committed: { seq: 0, offsets: [] },
    flushAt: 5_000,
    foldPromotions,
    commitRecord: async (r, metadata) => {
      log.push(`commitRecord ${String(r.value)}`);
      acknowledged.push([r, metadata]);
    },
  });
  return {
    store,
    sequence,
    log,
    acknowledged,
    holdPromotions: (until: Promise<void>) => {
      hold = until;
    },
    failPromotions: (error: Error) => {
      failPromotion = error;
    },
    failAborts: (error: Error) => {
      faults.abort = error;
    },
  };
}

/** V8's full garbage collection, reachable without starting Node with --expose-gc. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('SourceTransactionSequence', () => {
  it('keeps no earlier transaction alive: the records of a reported transaction can be collected', async () => {
    // Prepare: a transaction whose record is only weakly held here.
    const { sequence, acknowledged } = await setup();
    const first = (() => {
      const r = record(1);
      return { ref: new WeakRef(r), envelope: processed(r, outgoing(1)) };
    })();
    await sequence.send([first.envelope]);
    first.envelope = processed(record(0), null); // drop the strong reference
    await sequence.commit();
    // Act: two more transactions; the second reports (and lets go of) the first.
    for (const seq of [2, 3]) {
      await sequence.send([processed(record(seq), outgoing(seq))]);
      await sequence.commit();
    }
    const reported = acknowledged.splice(0).map(([r]) => r.value); // the fixture's own references
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    // Assess
    expect(reported).toEqual([1, 2]);
    expect(first.ref.deref()).toBeUndefined();
  });

  it("promotes each transaction in the next one's pending write, and the last one on promoteLastCommitted", async () => {
    const { sequence, log, store } = await setup();

    await sequence.send([processed(record(1), outgoing(1))]);
    await sequence.commit();
    const afterFirst = await store.offsets.getSourceOffsets({ connector: 'c', task: 0 });
    await sequence.send([processed(record(2), outgoing(2))]);
    await sequence.commit();
    const beforePromotion = [...log];
    await sequence.promoteLastCommitted();

    expect(afterFirst.committed).toBeUndefined(); // committed in Kafka, pending in the store
    expect(afterFirst.pending?.seq).toBe(1);
    expect(beforePromotion).toEqual([
      'send 2', // record 1 and its offset record
      'pending 1',
      'commit',
      'send 2',
      'promote 1 + pending 2', // one store write for the second transaction
      'commit',
      'commitRecord 1',
    ]);
    expect(log.slice(beforePromotion.length)).toEqual([
      'promote 2',
      'promoted 2',
      'commitRecord 2',
    ]);
    const stored = await store.offsets.getSourceOffsets({ connector: 'c', task: 0 });
    expect(stored.committed).toEqual({
      seq: 2,
      offsets: [{ partition: { p: 0 }, offset: { seq: 2 }, at: 1_000 }],
    });
    expect(stored.pending).toBeUndefined();
    expect(sequence.committed.seq).toBe(2);
    expect(sequence.transactions).toBe(2);
  });

  it('names its first offset record as the probe of its pending entry, never a data record', async () => {
    const { sequence, store } = await setup();

    await sequence.send([processed(record(1), outgoing(1)), processed(record(2, 1), outgoing(2))]);
    await sequence.commit();

    const stored = await store.offsets.getSourceOffsets({ connector: 'c', task: 0 });
    // Records at 100 and 101, then the offset records of p=0 and p=1 at 102 and 103.
    expect(stored.pending?.positions).toEqual([{ topic: 'offsets', partition: 0, offset: '102' }]);
  });

  it('writes a pending entry without a probe for a transaction that advanced no source offsets', async () => {
    const { sequence, store, log } = await setup();
    const unpositioned = new SourceRecord({
      sourcePartition: null,
      sourceOffset: null,
      topic: 'out',
      key: null,
      value: 7,
    });

    await sequence.send([processed(unpositioned, outgoing(7))]);
    await sequence.commit();

    const stored = await store.offsets.getSourceOffsets({ connector: 'c', task: 0 });
    expect(log).toEqual(['send 1', 'pending 1', 'commit']);
    expect(stored.pending).toEqual({ seq: 1, offsets: [], positions: [] });
  });

  it("reports each record with where it landed once its transaction's offsets are promoted", async () => {
    const { sequence, acknowledged } = await setup();

    await sequence.send([processed(record(1), outgoing(1)), processed(record(2), null)]);
    await sequence.commit();
    const beforePromotion = acknowledged.length;
    await sequence.promoteLastCommitted();

    expect(beforePromotion).toBe(0);
    expect(acknowledged.map(([r, metadata]) => [r.value, metadata])).toEqual([
      [1, { topic: 'out', partition: 0, offset: 100, timestamp: null }],
      [2, null], // produced nothing
    ]);
  });

  it('leaves the store as it was when the combined write fails, and hands back the transaction', async () => {
    const { sequence, log, failPromotions, store } = await setup();
    await sequence.send([processed(record(1), outgoing(1))]);
    await sequence.commit();
    failPromotions(new Error('store unavailable'));

    await sequence.send([processed(record(2), outgoing(2))]);
    const failed = sequence.commit().catch((error: unknown) => error);

    expect(await failed).toEqual(new Error('store unavailable'));
    expect(log).not.toContain('commitRecord 1');
    expect(log.filter((line) => line === 'commit')).toHaveLength(1);
    const stored = await store.offsets.getSourceOffsets({ connector: 'c', task: 0 });
    expect(stored.pending?.seq).toBe(1);
    expect(sequence.unwind()).toBeDefined();
    expect(sequence.unwind()).toBeUndefined();
  });

  it('aborts a transaction that changed nothing and keeps the committed offsets', async () => {
    const { sequence, log } = await setup();

    await sequence.open();
    await sequence.commit();

    expect(log).toEqual(['abort']);
    expect(sequence.transactions).toBe(0);
    expect(sequence.committed).toEqual({ seq: 0, offsets: [] });
  });

  it("drops an aborted transaction's records and commits its offsets at once, as Kafka Connect does", async () => {
    const { sequence, log, store, acknowledged } = await setup();
    await sequence.send([processed(record(1), outgoing(1))]);
    await sequence.commit();

    await sequence.send([processed(record(2, 1), outgoing(2), [outgoing(20)])]); // source partition p=1
    const aborted = await sequence.abort();
    await sequence.send([processed(record(3), outgoing(3))]);
    await sequence.commit();
    await sequence.promoteLastCommitted();

    expect(aborted).toEqual({ produced: 1, deadLetters: 1 }); // record 2 and its dead letter
    expect(log).toEqual([
      'send 2',
      'pending 1',
      'commit',
      'abort', // record 2 and its dead letter were only buffered: nothing reached Kafka
      'send 1', // p=1's offset record alone
      'promote 1 + pending 2',
      'commit',
      'commitRecord 1',
      'send 2',
      'promote 2 + pending 3',
      'commit',
      'promote 3',
      'promoted 3',
      'commitRecord 3',
    ]);
    expect(acknowledged.map(([r]) => r.value)).toEqual([1, 3]); // never the aborted record
    const stored = await store.offsets.getSourceOffsets({ connector: 'c', task: 0 });
    expect(stored.committed).toEqual({
      seq: 3,
      offsets: [
        { partition: { p: 0 }, offset: { seq: 3 }, at: 1_000 },
        { partition: { p: 1 }, offset: { seq: 2 }, at: 1_000 },
      ],
    });
    expect(sequence.transactions).toBe(3);
  });

  it('commits the offsets of a transaction aborted before anything was committed', async () => {
    const { sequence, log } = await setup();

    await sequence.send([processed(record(1), outgoing(1))]);
    await sequence.abort();
    await sequence.send([processed(record(2), outgoing(2))]);
    await sequence.commit();

    expect(log).toEqual([
      'abort',
      'send 1',
      'pending 1',
      'commit',
      'send 2',
      'promote 1 + pending 2',
      'commit',
    ]);
    expect(sequence.committed.offsets).toEqual([
      { partition: { p: 0 }, offset: { seq: 2 }, at: 1_000 },
    ]);
  });

  it('promotes each commit at once when promotions are not folded (at least once)', async () => {
    const { sequence, log, store } = await setup(false);

    await sequence.send([processed(record(1), outgoing(1))]);
    await sequence.commit();
    const afterFirst = await store.offsets.getSourceOffsets({ connector: 'c', task: 0 });
    await sequence.send([processed(record(2), outgoing(2))]);
    await sequence.commit();
    await sequence.promoteLastCommitted();

    expect(afterFirst.committed?.seq).toBe(1);
    expect(afterFirst.pending).toBeUndefined();
    expect(log).toEqual([
      'send 2',
      'pending 1',
      'commit',
      'promote 1',
      'promoted 1',
      'commitRecord 1',
      'send 2',
      'pending 2',
      'commit',
      'promote 2',
      'promoted 2',
      'commitRecord 2',
    ]);
  });

  it('does nothing when asked to abort with no transaction open', async () => {
    const { sequence, log } = await setup();

    expect(await sequence.abort()).toBeUndefined();
    expect(log).toEqual([]);
  });

  it('hands back the transaction whose abort failed', async () => {
    const { sequence, failAborts } = await setup();
    failAborts(new Error('broker gone'));
    await sequence.send([processed(record(1), outgoing(1))]);

    const failed = sequence.abort().catch((error: unknown) => error);

    expect(await failed).toEqual(new Error('broker gone'));
    expect(sequence.isOpen).toBe(false);
    expect(sequence.unwind()).toBeDefined();
  });
});
