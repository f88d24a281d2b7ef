/**
 * The PostgreSQL campaign's verdicts, pure: what the read_committed topics and the sink's table
 * hold against the workload's log.
 *
 * - CDC (`items`): every logged change, named `op:rev` (workload.ts), exactly once, and a
 *   tombstone after each delete (`tombstone:id`); nothing else; per row, in commit order.
 * - postgres-source (`orders`): every committed order id exactly once, in id order.
 * - postgres-sink: the destination table holds each record of the topic it copied exactly once,
 *   column for column.
 */
import { type KeyTally, tallyKeys } from '../key-tally.js';
import type { LoggedChange } from './workload.js';

/** A change event read back: an envelope's op, row id and rev, or a delete's tombstone. */
export type SeenChange =
  | { readonly kind: 'change'; readonly op: string; readonly id: number; readonly rev: number }
  | { readonly kind: 'tombstone'; readonly id: number };

/** The verdict on one output: counts of the tally, plus pairs out of order. */
export interface Verdict extends KeyTally {
  readonly reordered: number;
  /** Records read. */
  readonly records: number;
}

const decoder = new TextDecoder();

/** The `payload` of a JsonConverter envelope (`schemas.enable=true`). */
function payloadOf(bytes: Uint8Array): Record<string, unknown> {
  const json = JSON.parse(decoder.decode(bytes)) as { payload?: unknown };
  if (json.payload === null || typeof json.payload !== 'object') {
    throw new Error(`not a JsonConverter envelope: ${decoder.decode(bytes).slice(0, 200)}`);
  }
  return json.payload as Record<string, unknown>;
}

/**
 * A Debezium change record of `items` as JsonConverter wrote it (key `{id}`, value the
 * envelope, or null for a tombstone). A delete is named by its `before` row's rev, the other
 * ops by their `after` row's.
 */
export function decodeChange(key: Uint8Array | null, value: Uint8Array | null): SeenChange {
  if (key === null) throw new Error('a change record of items without a key');
  const id = Number(payloadOf(key).id);
  if (value === null) return { kind: 'tombstone', id };
  const envelope = payloadOf(value);
  const op = String(envelope.op);
  const row = (op === 'd' ? envelope.before : envelope.after) as { rev?: unknown } | null;
  return { kind: 'change', op, id, rev: Number(row?.rev) };
}

function keyOf(change: SeenChange): string {
  return change.kind === 'tombstone' ? `tombstone:${change.id}` : `${change.op}:${change.rev}`;
}

/**
 * Holds the change events `seen` (in the order a read_committed reader got them) against the
 * workload's `log`: see the module notes. A tombstone is expected right after its delete.
 */
export function verifyChanges(log: readonly LoggedChange[], seen: readonly SeenChange[]): Verdict {
  /** Each expected key's place in commit order. */
  const place = new Map<string, number>();
  log.forEach((change, i) => {
    place.set(`${change.op}:${change.rev}`, i);
    if (change.op === 'd') place.set(`tombstone:${change.id}`, i + 0.5);
  });
  const tally = tallyKeys(place.keys(), seen.map(keyOf));
  // Per row: the places of its events, as read, must only go forward.
  const lastPlace = new Map<number, number>();
  let reordered = 0;
  for (const change of seen) {
    const at = place.get(keyOf(change));
    if (at === undefined) continue;
    const before = lastPlace.get(change.id);
    if (before !== undefined && at < before) reordered += 1;
    lastPlace.set(change.id, Math.max(at, before ?? at));
  }
  return { ...tally, reordered, records: seen.length };
}

/** The `id` of an `orders` record (postgres-source's value, JsonConverter with schemas). */
export function orderIdOf(value: Uint8Array | null): number {
  if (value === null) throw new Error('an orders record without a value');
  return Number(payloadOf(value).id);
}

/**
 * Holds the order ids read from postgres-source's topic (in order; the topic has one partition)
 * against the `committed` ones: each exactly once, in id order.
 */
export function verifyOrders(committed: readonly number[], seen: readonly number[]): Verdict {
  let reordered = 0;
  for (let i = 1; i < seen.length; i += 1) {
    if ((seen[i] as number) < (seen[i - 1] as number)) reordered += 1;
  }
  return { ...tallyKeys(committed.map(String), seen.map(String)), reordered, records: seen.length };
}

/** An `orders` row (or record) as the sink verdict compares them: its columns, in order. */
export function orderRowKey(row: {
  readonly id: unknown;
  readonly customer: unknown;
  readonly qty: unknown;
  readonly note: unknown;
}): string {
  return JSON.stringify([Number(row.id), row.customer, Number(row.qty), row.note ?? null]);
}

/** The columns of an `orders` record's value (postgres-source, JsonConverter with schemas). */
export function orderRecordKey(value: Uint8Array | null): string {
  if (value === null) throw new Error('an orders record without a value');
  return orderRowKey(payloadOf(value) as Parameters<typeof orderRowKey>[0]);
}

/**
 * Holds the sink's destination rows against the records of the topic it copied: each record's
 * row exactly once (a record written twice is two rows: the table has no key).
 */
export function verifyCopy(records: readonly string[], rows: readonly string[]): Verdict {
  return { ...tallyKeys(records, rows), reordered: 0, records: rows.length };
}
