import { describe, expect, it } from 'vitest';
import {
  decodeChange,
  orderRecordKey,
  orderRowKey,
  type SeenChange,
  verifyChanges,
  verifyCopy,
  verifyOrders,
} from '../../../support/postgres-campaign/verify.js';
import type { LoggedChange } from '../../../support/postgres-campaign/workload.js';

const encoder = new TextEncoder();
/** JsonConverter's envelope (schemas.enable=true) around `payload`; the schema is not read. */
const envelope = (payload: unknown) =>
  encoder.encode(JSON.stringify({ schema: { type: 'struct' }, payload }));

/** A log: item 1 seeded (rev 1), created 2 (rev 2), 1 updated (rev 3), 2 deleted (rev 2). */
const log: LoggedChange[] = [
  { op: 'r', id: 1, rev: 1 },
  { op: 'c', id: 2, rev: 2 },
  { op: 'u', id: 1, rev: 3 },
  { op: 'd', id: 2, rev: 2 },
];
const change = (op: string, id: number, rev: number): SeenChange => ({
  kind: 'change',
  op,
  id,
  rev,
});
const tombstone = (id: number): SeenChange => ({ kind: 'tombstone', id });
/** What postgres-cdc should deliver for `log`, in an order a reader may see. */
const delivered = (): SeenChange[] => [
  change('r', 1, 1),
  change('c', 2, 2),
  change('u', 1, 3),
  change('d', 2, 2),
  tombstone(2),
];

describe('decodeChange', () => {
  it('names creates and updates by the new row, deletes by the old one, tombstones by the key', () => {
    const key = envelope({ id: 7 });
    const after = { id: 7, rev: 12, qty: 1, note: null };

    const created = decodeChange(key, envelope({ op: 'c', before: null, after }));
    const updated = decodeChange(key, envelope({ op: 'u', before: { ...after, rev: 11 }, after }));
    const deleted = decodeChange(key, envelope({ op: 'd', before: after, after: null }));

    expect(created).toEqual(change('c', 7, 12));
    expect(updated).toEqual(change('u', 7, 12));
    expect(deleted).toEqual(change('d', 7, 12));
    expect(decodeChange(key, null)).toEqual(tombstone(7));
  });

  it('refuses a value that is not a JsonConverter envelope', () => {
    expect(() => decodeChange(envelope({ id: 1 }), encoder.encode('{"op":"c"}'))).toThrow(
      'not a JsonConverter envelope',
    );
  });
});

describe('verifyChanges', () => {
  it('finds nothing wrong when every logged change and tombstone arrived once, in order', () => {
    const verdict = verifyChanges(log, delivered());

    expect(verdict).toMatchObject({ duplicates: 0, losses: 0, unexpected: 0, reordered: 0 });
    expect(verdict.records).toBe(5);
  });

  it('counts an update delivered twice as a duplicate, and out of order for its row', () => {
    const seen = [...delivered(), change('c', 2, 2)];

    const verdict = verifyChanges(log, seen);

    expect(verdict.duplicates).toBe(1);
    expect(verdict.examples.duplicated).toEqual(['c:2']);
    expect(verdict.reordered).toBe(1);
    expect(verdict.losses).toBe(0);
  });

  it('counts a missing change and a missing tombstone as losses', () => {
    const seen = delivered().filter(
      (c) => !(c.kind === 'change' && c.op === 'u') && c.kind !== 'tombstone',
    );

    const verdict = verifyChanges(log, seen);

    expect(verdict.losses).toBe(2);
    expect(verdict.examples.lost).toEqual(['u:3', 'tombstone:2']);
  });

  it('counts a change the log does not hold (a rolled-back write) as unexpected', () => {
    const verdict = verifyChanges(log, [...delivered(), change('c', 3, 4)]);

    expect(verdict).toMatchObject({ duplicates: 0, losses: 0, unexpected: 1 });
  });

  it('counts a row whose delete arrives before its create as out of order', () => {
    const seen = [change('r', 1, 1), change('d', 2, 2), change('c', 2, 2), change('u', 1, 3)];

    const verdict = verifyChanges(log, [...seen, tombstone(2)]);

    expect(verdict.reordered).toBe(1);
    expect(verdict.duplicates).toBe(0);
  });
});

describe('verifyOrders', () => {
  it('finds nothing wrong when each committed id arrived once, in order', () => {
    expect(verifyOrders([1, 2, 3], [1, 2, 3])).toMatchObject({
      duplicates: 0,
      losses: 0,
      unexpected: 0,
      reordered: 0,
    });
  });

  it('counts a repeated id as a duplicate and a missing one as a loss', () => {
    const verdict = verifyOrders([1, 2, 3, 4], [1, 2, 2, 4]);

    expect(verdict).toMatchObject({ duplicates: 1, losses: 1, unexpected: 0 });
    expect(verdict.examples.lost).toEqual(['3']);
  });

  it('counts ids out of order, and ids never committed', () => {
    expect(verifyOrders([1, 2, 3], [2, 1, 3, 9])).toMatchObject({ reordered: 1, unexpected: 1 });
  });
});

describe('verifyCopy', () => {
  const record = (id: number, note: string | null) =>
    orderRecordKey(envelope({ id, customer: 'c', qty: 2, note }));

  it('matches a record with the row the sink wrote for it, null columns too', () => {
    const rows = [orderRowKey({ id: '1', customer: 'c', qty: 2, note: null })];

    expect(verifyCopy([record(1, null)], rows)).toMatchObject({ duplicates: 0, losses: 0 });
  });

  it('counts a record written twice as a duplicate and one never written as a loss', () => {
    const rows = [1, 1, 3].map((id) => orderRowKey({ id, customer: 'c', qty: 2, note: 'n' }));

    const verdict = verifyCopy([record(1, 'n'), record(2, 'n'), record(3, 'n')], rows);

    expect(verdict).toMatchObject({ duplicates: 1, losses: 1, unexpected: 0 });
  });

  it('counts a row whose columns differ from its record as lost and unexpected', () => {
    const rows = [orderRowKey({ id: 1, customer: 'c', qty: 3, note: 'n' })];

    expect(verifyCopy([record(1, 'n')], rows)).toMatchObject({ losses: 1, unexpected: 1 });
  });
});
