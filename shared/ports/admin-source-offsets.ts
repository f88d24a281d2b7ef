import type { SourcePartition, SourcePartitionOffset } from '../connect/records.js';
import {
  ADMIN_OFFSETS_TASK,
  type CommittedSourceOffsets,
  type SourceOffsetEntry,
  type TaskSourceOffsets,
} from './offset-store.js';

/**
 * The connector's admin entry: what `alterSourceOffsets` and `resetSourceOffsets` write, shared
 * by every OffsetStore adapter so they store the same thing. Pure functions, no I/O.
 */

/** The identity of a source partition: its JSON with object keys sorted at every level. */
export function sourcePartitionId(partition: SourcePartition): string {
  return canonical(partition);
}

function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

function entriesOf(task: TaskSourceOffsets): readonly SourceOffsetEntry[] {
  return [...(task.committed?.offsets ?? []), ...(task.pending?.offsets ?? [])];
}

/**
 * Every source partition the connector's tasks (committed or pending) or its admin entry hold
 * an entry for, once each, in the order first seen.
 */
export function knownSourcePartitions(all: readonly TaskSourceOffsets[]): SourcePartition[] {
  const known = new Map<string, SourcePartition>();
  for (const entry of all.flatMap(entriesOf)) {
    const id = sourcePartitionId(entry.partition);
    if (!known.has(id)) known.set(id, entry.partition);
  }
  return [...known.values()];
}

/**
 * The admin entry after `changes` (the last change of a partition wins): its earlier entries
 * for other partitions are kept, each changed partition gets `{partition, offset, at}` with `at`
 * newer than every entry stored for the connector (`max(now, newest + 1)`, so a task clock
 * running ahead cannot outrank it), and `seq` goes up by one. `undefined` when there is no
 * change.
 */
export function nextAdminSourceOffsets(
  all: readonly TaskSourceOffsets[],
  changes: readonly SourcePartitionOffset[],
  now: number,
): CommittedSourceOffsets | undefined {
  if (changes.length === 0) return undefined;
  const admin = all.find((task) => task.task === ADMIN_OFFSETS_TASK)?.committed;
  const newest = all
    .flatMap(entriesOf)
    .reduce((max, entry) => Math.max(max, entry.at ?? 0), Number.NEGATIVE_INFINITY);
  const at = Math.max(now, newest + 1);
  const merged = new Map<string, SourceOffsetEntry>();
  for (const entry of admin?.offsets ?? []) merged.set(sourcePartitionId(entry.partition), entry);
  for (const { partition, offset } of changes) {
    merged.set(sourcePartitionId(partition), { partition, offset, at });
  }
  return { seq: (admin?.seq ?? 0) + 1, offsets: [...merged.values()] };
}
