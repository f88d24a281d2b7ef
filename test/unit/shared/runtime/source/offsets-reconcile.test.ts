import { describe, expect, it } from 'vitest';
import type { CommittedRecord } from '../../../../../shared/ports/kafka.js';
import type { TaskSourceOffsets } from '../../../../../shared/ports/offset-store.js';
import {
  newerInTopic,
  OffsetsTopicReconciler,
} from '../../../../../shared/runtime/source/offsets-reconcile.js';

const bytes = (text: string) => new TextEncoder().encode(text);

function record(
  key: string,
  value: string | null,
  timestamp: number,
  at: { partition?: number; offset?: number } = {},
): CommittedRecord {
  return {
    partition: at.partition ?? 0,
    offset: at.offset ?? 0,
    key: bytes(key),
    value: value === null ? null : bytes(value),
    timestamp,
  };
}

const read = (...records: CommittedRecord[]) => ({ records, next: [] });

function stored(...entries: { p: number; seq: number; at: number }[]): TaskSourceOffsets[] {
  return [
    {
      connector: 'c',
      task: 0,
      committed: {
        seq: 1,
        offsets: entries.map(({ p, seq, at }) => ({ partition: { p }, offset: { seq }, at })),
      },
    },
  ];
}

describe('newerInTopic', () => {
  it('adopts the latest record of a partition the table has no entry for (a lost table)', () => {
    const adopted = newerInTopic(
      'c',
      read(
        record('["c",{"p":0}]', '{"seq":10}', 100, { offset: 0 }),
        record('["c",{"p":0}]', '{"seq":20}', 200, { offset: 1 }),
      ),
      [],
    );
    expect(adopted).toEqual([{ partition: { p: 0 }, offset: { seq: 20 }, at: 200 }]);
  });

  it('adopts a record newer than the stored entry (a restored table), stamped with its time', () => {
    const adopted = newerInTopic(
      'c',
      read(record('["c",{"p":0}]', '{"seq":30}', 300)),
      stored({ p: 0, seq: 10, at: 100 }),
    );
    expect(adopted).toEqual([{ partition: { p: 0 }, offset: { seq: 30 }, at: 300 }]);
  });

  it('keeps the table when its entry is as new as the record (the transaction that wrote it)', () => {
    const adopted = newerInTopic(
      'c',
      read(record('["c",{"p":0}]', '{"seq":30}', 300), record('["c",{"p":1}]', '{"seq":5}', 400)),
      stored({ p: 0, seq: 30, at: 300 }, { p: 1, seq: 5, at: 100 }),
    );
    // p0: not newer; p1: newer but the same offset, nothing to change.
    expect(adopted).toEqual([]);
  });

  it('adopts a tombstone (an offset reset written to the topic) as a null offset', () => {
    const adopted = newerInTopic(
      'c',
      read(record('["c",{"p":0}]', null, 500)),
      stored({ p: 0, seq: 10, at: 100 }),
    );
    expect(adopted).toEqual([{ partition: { p: 0 }, offset: null, at: 500 }]);
  });

  it("ignores other connectors' records and records not in Connect's format", () => {
    const adopted = newerInTopic(
      'c',
      read(
        record('["other",{"p":0}]', '{"seq":1}', 100),
        record('not json', '{"seq":1}', 100),
        record('["c",{"p":0}]', 'not json', 100),
      ),
      [],
    );
    expect(adopted).toEqual([]);
  });

  it('takes the newer record when one source partition sits in two topic partitions (keys written by another client in another order)', () => {
    const adopted = newerInTopic(
      'c',
      read(
        record('["c",{"a":1,"b":2}]', '{"seq":9}', 900, { partition: 3 }),
        record('["c",{"b":2,"a":1}]', '{"seq":4}', 400, { partition: 7 }),
      ),
      [],
    );
    expect(adopted).toEqual([{ partition: { a: 1, b: 2 }, offset: { seq: 9 }, at: 900 }]);
  });
});

describe('OffsetsTopicReconciler', () => {
  const ref = { connector: 'c', task: 0 };
  const left = { generation: 3, epoch: 7, seq: 12, reconciledAt: 1_000 };

  it('asks a task it never ran, and one whose invocation did not end cleanly, to read the topic', () => {
    const reconciler = new OffsetsTopicReconciler();
    const now = { generation: 3, epoch: 8, committedSeq: 12, at: 2_000 };
    expect(reconciler.reconciledAt(ref, now)).toBeUndefined();
    reconciler.ended(ref, left);
    reconciler.forget(ref);
    expect(reconciler.reconciledAt(ref, now)).toBeUndefined();
  });

  it('skips the read only when the store is as this container left it', () => {
    const reconciler = new OffsetsTopicReconciler(60_000);
    reconciler.ended(ref, left);
    const next = { generation: 3, epoch: 8, committedSeq: 12, at: 2_000 };
    expect(reconciler.reconciledAt(ref, next)).toBe(1_000);
    // Someone else took the lease in between, or the table went back in time.
    expect(reconciler.reconciledAt(ref, { ...next, epoch: 9 })).toBeUndefined();
    expect(reconciler.reconciledAt(ref, { ...next, epoch: 5 })).toBeUndefined();
    expect(reconciler.reconciledAt(ref, { ...next, committedSeq: 9 })).toBeUndefined();
    expect(reconciler.reconciledAt(ref, { ...next, generation: 4 })).toBeUndefined();
    // And again once the last read is old, so the watermark keeps up.
    expect(reconciler.reconciledAt(ref, { ...next, at: 61_000 })).toBeUndefined();
  });
});
