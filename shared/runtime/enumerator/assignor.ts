/**
 * Pure, deterministic, sticky and balanced assignment of splits (source partitions, topic
 * partitions, any string id) to task slots `0..taskCount-1`, in the spirit of Flink's
 * KafkaSource split enumerator and Kafka's sticky assignor. No I/O, no clock, no randomness.
 */

/** Task id → the splits it owns, sorted. Keys are `0..taskCount-1` in ascending order. */
export type Assignment = Map<number, string[]>;

/** A read-only view of an assignment, as accepted from callers (e.g. the previous generation). */
export type ReadonlyAssignment = ReadonlyMap<number, readonly string[]>;

/** Code-unit order: locale-independent, so every container sorts the same way. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Assigns every split to exactly one of `taskCount` tasks so that task loads differ by at most
 * one, moving as few splits as possible away from the `previous` assignment.
 *
 * Contract:
 * - Duplicate splits are assigned once; the result lists each task's splits sorted.
 * - Deterministic: the result depends only on the set of splits, `taskCount` and the set of
 *   (task, split) pairs in `previous`, never on the order of any input.
 * - Sticky: a split stays on its previous task when that task still exists (id below
 *   `taskCount`) and is within its quota. Quotas are `floor(total/taskCount)` plus one for
 *   `total % taskCount` tasks; the extra slots go to the tasks keeping the most splits (ties to
 *   the lower id), which makes the number of moved splits the least that balance allows.
 *   A task over its quota keeps its first splits in sorted order and gives up the rest.
 * - Surplus and orphaned splits (no previous task, or a task that no longer exists), taken in
 *   sorted order, each go to the least-loaded task below its quota (ties to the lower id).
 *   With no previous assignment this is a round-robin of the sorted splits.
 * - In `previous`, ids that are not task slots of the new assignment are ignored, splits not in
 *   `splits` are dropped, and a split listed by several tasks belongs to the lowest id.
 *
 * @param splits - the splits to assign (any order, duplicates allowed).
 * @param taskCount - the number of task slots, a non-negative integer.
 * @param previous - the assignment currently running, if any.
 * @returns a map with one entry per task id `0..taskCount-1` (an empty list when a task has no
 *   split); an empty map when `taskCount` is 0 and there are no splits.
 * @throws RangeError when `taskCount` is not a non-negative safe integer.
 * @throws Error when there are splits but `taskCount` is 0.
 *
 * @example
 * ```ts
 * const first = assignSplits(['t-0', 't-1', 't-2'], 2);
 * // Map { 0 => ['t-0', 't-2'], 1 => ['t-1'] }
 * const next = assignSplits(['t-0', 't-1', 't-2', 't-3'], 2, first);
 * // Map { 0 => ['t-0', 't-2'], 1 => ['t-1', 't-3'] }: no existing split moved
 * changedTasks(first, next); // [1]: only task 1 needs a new generation
 * movedSplits(first, next); // 0
 * ```
 */
export function assignSplits(
  splits: readonly string[],
  taskCount: number,
  previous?: ReadonlyAssignment,
): Assignment {
  if (!Number.isSafeInteger(taskCount) || taskCount < 0) {
    throw new RangeError(`taskCount must be a non-negative integer, got ${String(taskCount)}`);
  }
  const wanted = [...new Set(splits)].sort(compareStrings);
  if (taskCount === 0) {
    if (wanted.length > 0) {
      throw new Error(`Cannot assign ${wanted.length} split(s) to 0 tasks; at least 1 is needed`);
    }
    return new Map();
  }
  const kept = keptSplits(new Set(wanted), taskCount, previous);
  const capacity = quotas(kept, wanted.length, taskCount);
  const sticky = new Set(kept.flat());
  const pool = wanted.filter((split) => !sticky.has(split));
  for (let task = 0; task < taskCount; task += 1) {
    for (const split of (kept[task] as string[]).splice(capacity[task] as number)) pool.push(split);
  }
  pool.sort(compareStrings);
  distribute(pool, kept, capacity);
  const result: Assignment = new Map();
  for (let task = 0; task < taskCount; task += 1) {
    result.set(task, (kept[task] as string[]).sort(compareStrings));
  }
  return result;
}

/** Per task slot, the previous splits still wanted, sorted, each split on its lowest task. */
function keptSplits(
  wanted: ReadonlySet<string>,
  taskCount: number,
  previous: ReadonlyAssignment | undefined,
): string[][] {
  const kept: string[][] = Array.from({ length: taskCount }, () => []);
  if (previous === undefined) return kept;
  const owner = new Map<string, number>();
  for (const [task, list] of previous) {
    if (!Number.isInteger(task) || task < 0 || task >= taskCount) continue;
    for (const split of list) {
      if (!wanted.has(split)) continue;
      const current = owner.get(split);
      if (current === undefined || task < current) owner.set(split, task);
    }
  }
  for (const [split, task] of owner) (kept[task] as string[]).push(split);
  for (const list of kept) list.sort(compareStrings);
  return kept;
}

/** Quotas: `floor(total/n)` each, plus one for the `total % n` tasks keeping the most. */
function quotas(kept: readonly (readonly string[])[], total: number, taskCount: number): number[] {
  const base = Math.floor(total / taskCount);
  const extra = total % taskCount;
  const capacity = new Array<number>(taskCount).fill(base);
  const byKept = Array.from({ length: taskCount }, (_, task) => task).sort(
    (a, b) =>
      (kept[b] as readonly string[]).length - (kept[a] as readonly string[]).length || a - b,
  );
  for (const task of byKept.slice(0, extra)) capacity[task] = base + 1;
  return capacity;
}

/** Gives each pooled split to the least-loaded task below its quota (ties to the lower id). */
function distribute(pool: readonly string[], loads: string[][], capacity: readonly number[]): void {
  const heap = new TaskHeap(loads);
  for (let task = 0; task < loads.length; task += 1) {
    if ((loads[task] as string[]).length < (capacity[task] as number)) heap.push(task);
  }
  for (const split of pool) {
    const task = heap.pop();
    if (task === undefined) throw new Error('assignor invariant broken: no task below its quota');
    const list = loads[task] as string[];
    list.push(split);
    if (list.length < (capacity[task] as number)) heap.push(task);
  }
}

/** A binary min-heap of task ids ordered by (current load, id). */
class TaskHeap {
  readonly #items: number[] = [];
  readonly #loads: readonly (readonly string[])[];

  constructor(loads: readonly (readonly string[])[]) {
    this.#loads = loads;
  }

  push(task: number): void {
    const items = this.#items;
    items.push(task);
    let child = items.length - 1;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.#less(child, parent)) break;
      this.#swap(child, parent);
      child = parent;
    }
  }

  pop(): number | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    items[0] = last;
    let parent = 0;
    for (;;) {
      const left = parent * 2 + 1;
      const right = left + 1;
      let smallest = parent;
      if (left < items.length && this.#less(left, smallest)) smallest = left;
      if (right < items.length && this.#less(right, smallest)) smallest = right;
      if (smallest === parent) return top;
      this.#swap(parent, smallest);
      parent = smallest;
    }
  }

  #less(i: number, j: number): boolean {
    const a = this.#items[i] as number;
    const b = this.#items[j] as number;
    const loadA = (this.#loads[a] as readonly string[]).length;
    const loadB = (this.#loads[b] as readonly string[]).length;
    return loadA < loadB || (loadA === loadB && a < b);
  }

  #swap(i: number, j: number): void {
    const items = this.#items;
    const a = items[i] as number;
    items[i] = items[j] as number;
    items[j] = a;
  }
}

/** Split → owning task; a split listed by several tasks belongs to the lowest id. */
function owners(assignment: ReadonlyAssignment): Map<string, number> {
  const owner = new Map<string, number>();
  for (const [task, list] of assignment) {
    for (const split of list) {
      const current = owner.get(split);
      if (current === undefined || task < current) owner.set(split, task);
    }
  }
  return owner;
}

function sameSplits(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  if (left.size !== right.size) return false;
  for (const split of left) if (!right.has(split)) return false;
  return true;
}

/**
 * The task ids, ascending, that need a new generation going from `previous` to `next`: tasks
 * present in only one of the two (started or stopped) and tasks whose set of splits differs.
 * Every other task keeps running untouched (the serverless form of KIP-415's incremental
 * rebalancing).
 *
 * @example
 * ```ts
 * changedTasks(new Map([[0, ['a']], [1, ['b']]]), new Map([[0, ['a']], [1, ['b', 'c']]])); // [1]
 * ```
 */
export function changedTasks(previous: ReadonlyAssignment, next: ReadonlyAssignment): number[] {
  const changed: number[] = [];
  for (const task of new Set([...previous.keys(), ...next.keys()])) {
    const before = previous.get(task);
    const after = next.get(task);
    if (before === undefined || after === undefined || !sameSplits(before, after)) {
      changed.push(task);
    }
  }
  return changed.sort((a, b) => a - b);
}

/**
 * How many splits present in both assignments are owned by a different task in `next` than in
 * `previous` (splits added or removed do not count).
 *
 * @example
 * ```ts
 * movedSplits(new Map([[0, ['a', 'b']]]), new Map([[0, ['a']], [1, ['b', 'c']]])); // 1
 * ```
 */
export function movedSplits(previous: ReadonlyAssignment, next: ReadonlyAssignment): number {
  const before = owners(previous);
  let moved = 0;
  for (const [split, task] of owners(next)) {
    const old = before.get(split);
    if (old !== undefined && old !== task) moved += 1;
  }
  return moved;
}
