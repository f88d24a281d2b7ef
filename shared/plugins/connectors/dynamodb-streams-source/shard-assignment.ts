/**
 * Which task reads which shard. A shard goes to task `fnv1a(shardId) mod task.count`: a
 * shard id never changes, so a shard never moves between tasks while the task configs stay the
 * same (moving a shard between running tasks without fencing would read it twice). Lineage
 * (a child shard is read only after its parent is complete) is enforced by the task, see
 * `dynamodb-streams-source-task.ts`.
 */

/** 32-bit FNV-1a of the UTF-16 code units of `text`. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The index of the task that reads `shardId` among `taskCount` tasks. */
export function shardOwner(shardId: string, taskCount: number): number {
  return taskCount <= 1 ? 0 : fnv1a(shardId) % taskCount;
}

/** Orders DynamoDB sequence numbers (strings of digits) numerically. */
export function compareSequenceNumbers(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}
