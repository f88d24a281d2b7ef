import { describe, expect, it } from 'vitest';
import { SourceRecord } from '../../../../../shared/connect/records.js';
import type {
  OffsetStore,
  SourceOffsetEntry,
  TaskSourceOffsets,
} from '../../../../../shared/ports/offset-store.js';
import { SourceTaskContextImpl } from '../../../../../shared/runtime/source/source-task-context.js';

function store(tasks: TaskSourceOffsets[]) {
  let lists = 0;
  const offsets = {
    listSourceOffsets: async () => {
      lists += 1;
      return tasks;
    },
  } as unknown as OffsetStore;
  return { offsets, lists: () => lists };
}

const entry = (p: number, seq: number, at?: number): SourceOffsetEntry => ({
  partition: { p },
  offset: { seq },
  ...(at === undefined ? {} : { at }),
});

function context(own: SourceOffsetEntry[], others: TaskSourceOffsets[]) {
  const s = store(others);
  const ctx = new SourceTaskContextImpl({
    config: {},
    own: () => own,
    offsets: s.offsets,
    ref: { connector: 'c', task: 0 },
    connectorDefinesBoundaries: false,
  });
  return { ctx, lists: s.lists };
}

describe('SourceTaskContextImpl offset reader', () => {
  it('prefers the entry advanced last when a partition moved between tasks', async () => {
    // Task 0 owned p=1 long ago (at 100); task 1 advanced it since (at 500) and gave it back.
    const { ctx } = context(
      [entry(0, 7, 400), entry(1, 10, 100)],
      [{ connector: 'c', task: 1, committed: { seq: 3, offsets: [entry(1, 42, 500)] } }],
    );

    expect(await ctx.offsetStorageReader.offsets([{ p: 0 }, { p: 1 }])).toEqual([
      { partition: { p: 0 }, offset: { seq: 7 } },
      { partition: { p: 1 }, offset: { seq: 42 } },
    ]);
  });

  it("keeps the task's own entry on a tie, and omits partitions nobody committed", async () => {
    const { ctx } = context(
      [entry(1, 10)],
      [{ connector: 'c', task: 1, committed: { seq: 1, offsets: [entry(1, 99)] } }],
    );
    expect(await ctx.offsetStorageReader.offsets([{ p: 1 }, { p: 2 }])).toEqual([
      { partition: { p: 1 }, offset: { seq: 10 } },
    ]);
    expect(await ctx.offsetStorageReader.offset({ p: 2 })).toBeNull();
  });

  it("reads the other tasks' offsets once per invocation", async () => {
    const { ctx, lists } = context([], [{ connector: 'c', task: 1 }]);
    await ctx.offsetStorageReader.offset({ p: 1 });
    await ctx.offsetStorageReader.offsets([{ p: 2 }]);
    expect(lists()).toBe(1);
  });
});

describe('SourceTaskContextImpl transaction context', () => {
  const polled = (seq: number) =>
    new SourceRecord({
      sourcePartition: { p: 0 },
      sourceOffset: { seq },
      topic: 'out',
      value: seq,
    });

  function withBoundaries(connectorDefinesBoundaries: boolean) {
    return new SourceTaskContextImpl({
      config: {},
      own: () => [],
      offsets: store([]).offsets,
      ref: { connector: 'c', task: 0 },
      connectorDefinesBoundaries,
    });
  }

  it('hands the runner each commit and abort request once, in the order the task made them', () => {
    const ctx = withBoundaries(true);
    const first = polled(1);
    const second = polled(2);

    ctx.transactionContext?.commitTransaction(first);
    ctx.transactionContext?.abortTransaction(second);
    ctx.transactionContext?.commitTransaction();
    const taken = ctx.takeBoundaryRequests();
    const again = ctx.takeBoundaryRequests();

    expect(taken).toEqual([
      { kind: 'commit', record: first },
      { kind: 'abort', record: second },
      { kind: 'commit' },
    ]);
    expect(taken[0]?.record).toBe(first);
    expect(again).toEqual([]);
  });

  it('offers no transaction context unless the connector defines transaction boundaries', () => {
    expect(withBoundaries(false).transactionContext).toBeNull();
  });
});
