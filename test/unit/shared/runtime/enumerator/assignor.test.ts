import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Assignment,
  assignSplits,
  changedTasks,
  movedSplits,
  type ReadonlyAssignment,
} from '../../../../../shared/runtime/enumerator/assignor.js';

const splitId = fc.integer({ min: 0, max: 60 }).map((i) => `t${i % 4}-${i}`);
const splitList = fc.array(splitId, { maxLength: 50 });
const taskCount = fc.integer({ min: 1, max: 8 });
/** Any previous assignment: stale splits, task ids past the new count, unbalanced loads. */
const anyPrevious = fc
  .array(fc.tuple(splitId, fc.integer({ min: 0, max: 10 })), { maxLength: 50 })
  .map((pairs) => {
    const owner = new Map(pairs);
    const previous = new Map<number, string[]>();
    for (const [split, task] of owner) previous.set(task, [...(previous.get(task) ?? []), split]);
    return previous;
  });

function entries(assignment: ReadonlyAssignment): [number, readonly string[]][] {
  return [...assignment.entries()];
}

function loads(assignment: ReadonlyAssignment): number[] {
  return [...assignment.values()].map((list) => list.length);
}

function shuffle<T>(items: readonly T[], keys: readonly number[]): T[] {
  return items
    .map((item, i) => ({ item, key: keys[i % Math.max(1, keys.length)] ?? 0, i }))
    .sort((a, b) => a.key - b.key || b.i - a.i)
    .map(({ item }) => item);
}

/** Brute force: the fewest moves any balanced assignment needs, trying every quota choice. */
function minimumMoves(
  splits: readonly string[],
  tasks: number,
  previous: ReadonlyAssignment,
): number {
  const wanted = new Set(splits);
  const kept = new Array<number>(tasks).fill(0);
  let orphans = 0;
  for (const [task, list] of previous) {
    for (const split of list) {
      if (!wanted.has(split)) continue;
      if (task < tasks) kept[task] = (kept[task] ?? 0) + 1;
      else orphans += 1;
    }
  }
  const base = Math.floor(wanted.size / tasks);
  const extra = wanted.size % tasks;
  let best = Number.POSITIVE_INFINITY;
  for (let mask = 0; mask < 1 << tasks; mask += 1) {
    let bits = 0;
    for (let t = 0; t < tasks; t += 1) if (mask & (1 << t)) bits += 1;
    if (bits !== extra) continue;
    let surplus = 0;
    for (let t = 0; t < tasks; t += 1) {
      const cap = mask & (1 << t) ? base + 1 : base;
      surplus += Math.max(0, (kept[t] ?? 0) - cap);
    }
    best = Math.min(best, surplus);
  }
  return orphans + best;
}

describe('assignSplits properties', () => {
  it('assigns every split to exactly one task of 0..n-1', () => {
    fc.assert(
      fc.property(splitList, taskCount, fc.option(anyPrevious, { nil: undefined }), (s, n, p) => {
        // Act
        const result = assignSplits(s, n, p);
        // Assess
        expect([...result.keys()]).toEqual(Array.from({ length: n }, (_, t) => t));
        const all = [...result.values()].flat();
        expect(all.length).toBe(new Set(s).size);
        expect(new Set(all)).toEqual(new Set(s));
      }),
    );
  });

  it('keeps task loads within one of each other', () => {
    fc.assert(
      fc.property(splitList, taskCount, fc.option(anyPrevious, { nil: undefined }), (s, n, p) => {
        const counts = loads(assignSplits(s, n, p));
        expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('gives the same result whatever the order of splits and previous lists', () => {
    fc.assert(
      fc.property(
        splitList,
        taskCount,
        anyPrevious,
        fc.array(fc.nat(), { minLength: 1 }),
        (s, n, p, keys) => {
          // Prepare
          const shuffledPrevious = new Map(
            shuffle([...p.entries()], keys).map(([task, list]) => [task, shuffle(list, keys)]),
          );
          // Act
          const original = assignSplits(s, n, p);
          const shuffled = assignSplits(shuffle(s, keys), n, shuffledPrevious);
          // Assess
          expect(entries(shuffled)).toEqual(entries(original));
        },
      ),
    );
  });

  it('moves exactly the fewest splits balance allows from any previous assignment', () => {
    // Previous owners drawn over the current splits (skewed towards few tasks, some past the
    // new count), so tasks are often over quota and the choice of quotas matters.
    const scenario = fc.tuple(splitList, taskCount).chain(([s, n]) =>
      fc.tuple(
        fc.constant(s),
        fc.constant(n),
        fc.array(fc.option(fc.integer({ min: 0, max: Math.ceil(n / 2) + 1 })), {
          minLength: s.length,
          maxLength: s.length,
        }),
        anyPrevious,
      ),
    );
    fc.assert(
      fc.property(scenario, ([s, n, owners, stale]) => {
        // Prepare
        const previous = new Map<number, string[]>(stale);
        s.forEach((split, i) => {
          const task = owners[i];
          if (task === null || task === undefined) return;
          for (const list of previous.values())
            list.splice(0, list.length, ...list.filter((x) => x !== split));
          previous.set(task, [...(previous.get(task) ?? []), split]);
        });
        // Act
        const next = assignSplits(s, n, previous);
        // Assess
        expect(movedSplits(previous, next)).toBe(minimumMoves(s, n, previous));
      }),
      { numRuns: 300 },
    );
  });

  it('changes nothing when the inputs have not changed', () => {
    fc.assert(
      fc.property(splitList, taskCount, (s, n) => {
        const first = assignSplits(s, n);
        const again = assignSplits(s, n, first);
        expect(entries(again)).toEqual(entries(first));
        expect(changedTasks(first, again)).toEqual([]);
      }),
    );
  });

  it('moves no existing split beyond what rebalancing needs when splits are added', () => {
    fc.assert(
      fc.property(splitList, splitList, taskCount, (s, added, n) => {
        // Prepare
        const before = assignSplits(s, n);
        const total = new Set([...s, ...added]).size;
        const quota = Math.ceil(total / n);
        const needed = loads(before).reduce((sum, load) => sum + Math.max(0, load - quota), 0);
        // Act
        const after = assignSplits([...s, ...added], n, before);
        // Assess
        expect(movedSplits(before, after)).toBeLessThanOrEqual(needed);
      }),
    );
  });

  it("moves only the removed task's splits plus what balance needs when a task is removed", () => {
    fc.assert(
      fc.property(splitList, fc.integer({ min: 2, max: 8 }), (s, n) => {
        // Prepare
        const before = assignSplits(s, n);
        const orphaned = before.get(n - 1)?.length ?? 0;
        const quota = Math.ceil(new Set(s).size / (n - 1));
        const survivors = loads(before).slice(0, n - 1);
        const needed = survivors.reduce((sum, load) => sum + Math.max(0, load - quota), 0);
        // Act
        const after = assignSplits(s, n - 1, before);
        // Assess
        expect(movedSplits(before, after)).toBeLessThanOrEqual(orphaned + needed);
      }),
    );
  });

  it('moves at most ceil(total / newCount) splits when a task is added', () => {
    fc.assert(
      fc.property(splitList, taskCount, (s, n) => {
        const before = assignSplits(s, n);
        const after = assignSplits(s, n + 1, before);
        expect(movedSplits(before, after)).toBeLessThanOrEqual(
          Math.ceil(new Set(s).size / (n + 1)),
        );
      }),
    );
  });
});

describe('assignSplits', () => {
  it('spreads sorted splits round-robin when there is no previous assignment', () => {
    const result = assignSplits(['b', 'e', 'a', 'd', 'c'], 2);
    expect(entries(result)).toEqual([
      [0, ['a', 'c', 'e']],
      [1, ['b', 'd']],
    ]);
  });

  it('gives every task an empty list when there are no splits', () => {
    expect(entries(assignSplits([], 3))).toEqual([
      [0, []],
      [1, []],
      [2, []],
    ]);
  });

  it('returns an empty map for no splits and no tasks', () => {
    expect(assignSplits([], 0).size).toBe(0);
  });

  it('throws when there are splits but no tasks', () => {
    expect(() => assignSplits(['a'], 0)).toThrow('Cannot assign 1 split(s) to 0 tasks');
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'throws a RangeError when taskCount is %s',
    (count) => {
      expect(() => assignSplits([], count)).toThrow(RangeError);
    },
  );

  it('assigns a duplicated split once', () => {
    expect(entries(assignSplits(['a', 'a', 'b'], 2))).toEqual([
      [0, ['a']],
      [1, ['b']],
    ]);
  });

  it('gives a new split to the least-loaded task and leaves the rest in place', () => {
    const previous = new Map([
      [0, ['a', 'b']],
      [1, ['c']],
    ]);
    const next = assignSplits(['a', 'b', 'c', 'd'], 2, previous);
    expect(entries(next)).toEqual([
      [0, ['a', 'b']],
      [1, ['c', 'd']],
    ]);
    expect(changedTasks(previous, next)).toEqual([1]);
  });

  it('moves the splits of tasks that no longer exist and drops removed splits', () => {
    const previous = new Map([
      [0, ['a', 'gone']],
      [1, ['b']],
      [2, ['c']],
    ]);
    const next = assignSplits(['a', 'b', 'c'], 2, previous);
    expect(entries(next)).toEqual([
      [0, ['a', 'c']],
      [1, ['b']],
    ]);
    expect(movedSplits(previous, next)).toBe(1);
  });

  it('keeps a split listed by two previous tasks on the lower id', () => {
    const previous = new Map([
      [1, ['a']],
      [0, ['a']],
    ]);
    expect(entries(assignSplits(['a'], 2, previous))).toEqual([
      [0, ['a']],
      [1, []],
    ]);
  });

  it('gives the extra slot to the task keeping the most splits', () => {
    const previous = new Map([
      [0, ['a']],
      [1, ['b', 'c', 'd']],
    ]);
    const next: Assignment = assignSplits(['a', 'b', 'c', 'd', 'e'], 2, previous);
    expect(entries(next)).toEqual([
      [0, ['a', 'e']],
      [1, ['b', 'c', 'd']],
    ]);
  });

  it('sheds the last splits in sorted order from a task over its quota', () => {
    const previous = new Map([[0, ['d', 'a', 'c', 'b']]]);
    const next = assignSplits(['a', 'b', 'c', 'd'], 2, previous);
    expect(entries(next)).toEqual([
      [0, ['a', 'b']],
      [1, ['c', 'd']],
    ]);
  });
});

describe('changedTasks', () => {
  it('lists tasks whose splits changed, ignoring order within a task', () => {
    const previous = new Map([
      [0, ['a', 'b']],
      [1, ['c']],
    ]);
    const next = new Map([
      [0, ['b', 'a']],
      [1, ['c', 'd']],
    ]);
    expect(changedTasks(previous, next)).toEqual([1]);
  });

  it('lists started and stopped tasks', () => {
    const previous = new Map([
      [0, ['a']],
      [2, []],
    ]);
    const next = new Map([
      [0, ['a']],
      [1, []],
    ]);
    expect(changedTasks(previous, next)).toEqual([1, 2]);
  });
});

describe('movedSplits', () => {
  it('counts only splits present in both assignments under different tasks', () => {
    const previous = new Map([
      [0, ['a', 'b']],
      [1, ['removed']],
    ]);
    const next = new Map([
      [0, ['a']],
      [1, ['b', 'added']],
    ]);
    expect(movedSplits(previous, next)).toBe(1);
  });

  it('is zero for identical assignments', () => {
    const assignment = assignSplits(['a', 'b', 'c'], 2);
    expect(movedSplits(assignment, assignment)).toBe(0);
  });
});
