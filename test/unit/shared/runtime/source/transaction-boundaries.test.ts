import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IllegalStateError } from '../../../../../shared/connect/errors.js';
import { SourceRecord } from '../../../../../shared/connect/records.js';
import type { OutgoingRecord } from '../../../../../shared/ports/kafka.js';
import { SourceEnvelope } from '../../../../../shared/runtime/pipeline/record-envelope.js';
import type { PolledBatch } from '../../../../../shared/runtime/source/poll-batch.js';
import {
  type BoundaryKind,
  type BoundaryRequest,
  dispatchSlices,
  planBoundaries,
  type SliceTarget,
} from '../../../../../shared/runtime/source/transaction-boundaries.js';

const encoder = new TextEncoder();

/** A poll batch of `count` records (values 1 to `count`), each in its envelope. */
function records(count: number): SourceEnvelope[] {
  return Array.from(
    { length: count },
    (_, i) =>
      new SourceEnvelope(
        new SourceRecord({
          sourcePartition: { p: 0 },
          sourceOffset: { seq: i + 1 },
          topic: 'out',
          key: null,
          value: i + 1,
        }),
        i,
      ),
  );
}

/** The original of the batch's record `i`, as the task names it. */
const at = (polled: readonly SourceEnvelope[], i: number): SourceRecord => {
  const envelope = polled[i];
  if (envelope === undefined) throw new Error(`no record ${i}`);
  return envelope.original;
};

function collectIgnored() {
  const ignored: string[] = [];
  return { ignored, warn: (message: string) => ignored.push(message) };
}

describe('planBoundaries', () => {
  it('keeps the whole batch in the open transaction when the task asked for nothing', () => {
    const polled = records(5);

    expect(planBoundaries(polled, [], () => {})).toEqual([{ from: 0, to: 5, end: undefined }]);
  });

  it('commits after the whole batch on a request without a record', () => {
    const polled = records(5);

    expect(planBoundaries(polled, [{ kind: 'commit' }], () => {})).toEqual([
      { from: 0, to: 5, end: 'commit' },
    ]);
  });

  it('ends a transaction right after each named record, in batch order, and leaves the rest open', () => {
    const polled = records(10);
    const requests: BoundaryRequest[] = [
      { kind: 'abort', record: at(polled, 6) },
      { kind: 'commit', record: at(polled, 2) },
    ];

    expect(planBoundaries(polled, requests, () => {})).toEqual([
      { from: 0, to: 3, end: 'commit' },
      { from: 3, to: 7, end: 'abort' },
      { from: 7, to: 10, end: undefined },
    ]);
  });

  it('applies a batch request to the records after the last named one', () => {
    const polled = records(6);
    const requests: BoundaryRequest[] = [
      { kind: 'abort' },
      { kind: 'commit', record: at(polled, 1) },
    ];

    expect(planBoundaries(polled, requests, () => {})).toEqual([
      { from: 0, to: 2, end: 'commit' },
      { from: 2, to: 6, end: 'abort' },
    ]);
  });

  it('does nothing more for a batch request when the last record already ended a transaction', () => {
    const polled = records(4);
    const requests: BoundaryRequest[] = [
      { kind: 'commit', record: at(polled, 3) },
      { kind: 'abort' },
    ];

    expect(planBoundaries(polled, requests, () => {})).toEqual([{ from: 0, to: 4, end: 'commit' }]);
  });

  it('ignores, with a warning, a record that is not one of the batch (an equal copy included)', () => {
    const polled = records(3);
    const stranger = at(records(3), 1); // equal to polled[1]'s original, not the same object
    const { ignored, warn } = collectIgnored();

    const slices = planBoundaries(polled, [{ kind: 'abort', record: stranger }], warn);

    expect(slices).toEqual([{ from: 0, to: 3, end: undefined }]);
    expect(ignored).toHaveLength(1);
    expect(ignored[0]).toMatch(/abort the transaction after a record that is not one of the batch/);
  });

  it('fails the task when one record is asked to both commit and abort', () => {
    const polled = records(3);
    const requests: BoundaryRequest[] = [
      { kind: 'commit', record: at(polled, 1) },
      { kind: 'abort', record: at(polled, 1) },
    ];

    expect(() => planBoundaries(polled, requests, () => {})).toThrow(
      new IllegalStateError(
        'Connector requested both commit and abort of same record against topic/partition out/null',
      ),
    );
  });

  it('fails the task when the batch is asked to both commit and abort', () => {
    const polled = records(3);

    expect(() => planBoundaries(polled, [{ kind: 'commit' }, { kind: 'abort' }], () => {})).toThrow(
      IllegalStateError,
    );
  });

  it('accepts the same request twice as one', () => {
    const polled = records(3);
    const record = at(polled, 0);

    expect(
      planBoundaries(
        polled,
        [
          { kind: 'commit', record },
          { kind: 'commit', record },
          { kind: 'commit' },
          { kind: 'commit' },
        ],
        () => {},
      ),
    ).toEqual([
      { from: 0, to: 1, end: 'commit' },
      { from: 1, to: 3, end: 'commit' },
    ]);
  });

  it('covers the batch in order, cutting exactly after each named record (property)', () => {
    const kind = fc.constantFrom<BoundaryKind>('commit', 'abort');
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.tuple(fc.nat(), kind), { maxLength: 10 }),
        fc.option(kind, { nil: undefined }),
        (size, named, batchKind) => {
          const polled = records(size);
          const byIndex = new Map<number, BoundaryKind>();
          for (const [i, k] of named) if (!byIndex.has(i % size)) byIndex.set(i % size, k);
          const requests: BoundaryRequest[] = [...byIndex].map(([i, k]) => ({
            kind: k,
            record: at(polled, i),
          }));
          if (batchKind !== undefined) requests.push({ kind: batchKind });

          const slices = planBoundaries(polled, requests, () => {});

          let next = 0;
          for (const slice of slices) {
            expect(slice.from).toBe(next);
            expect(slice.to).toBeGreaterThan(slice.from);
            next = slice.to;
            const last = slice.to - 1;
            expect(slice.end).toBe(byIndex.get(last) ?? (slice.to === size ? batchKind : 'x'));
          }
          expect(next).toBe(size);
        },
      ),
    );
  });
});

describe('dispatchSlices', () => {
  const out = (seq: number, topic = 'out'): OutgoingRecord => ({
    topic,
    key: null,
    value: encoder.encode(String(seq)),
  });

  /** A sequence that logs what it is given; `abort` answers whether a transaction was open. */
  function target(): { log: string[]; target: SliceTarget } {
    const log: string[] = [];
    let open: { produced: number; deadLetters: number } | undefined;
    return {
      log,
      target: {
        send: async (envelopes) => {
          const values = envelopes.map((e) => e.original.value).join(',');
          const sent = envelopes.filter((e) => e.outgoing !== null).length;
          const deadLetters = envelopes.flatMap((e) => e.deadLetters);
          open ??= { produced: 0, deadLetters: 0 };
          open.produced += sent;
          open.deadLetters += deadLetters.length;
          log.push(`send [${values}] produced=${sent} dlq=${deadLetters.map((r) => r.topic)}`);
        },
        commit: async () => {
          open = undefined;
          log.push('commit');
        },
        abort: async () => {
          const was = open;
          open = undefined;
          log.push('abort');
          return was;
        },
      },
    };
  }

  it('keeps each dead letter in the transaction of the record that produced it, and counts aborts', async () => {
    const envelopes = records(5);
    // Records 2 and 4 failed and were dead-lettered (one dead letter each).
    for (const envelope of envelopes) {
      const seq = envelope.original.value as number;
      if (seq % 2 === 1) envelope.outgoing = out(seq);
      else envelope.deadLetters = [out(seq, `dlq-${seq}`)];
    }
    const batch: PolledBatch = { envelopes, written: 3, deadLetters: 2, bytes: 0 };
    const { log, target: sequence } = target();

    const aborted = await dispatchSlices(sequence, batch, [
      { from: 0, to: 2, end: 'commit' },
      { from: 2, to: 4, end: 'abort' },
      { from: 4, to: 5, end: undefined },
    ]);

    expect(log).toEqual([
      'send [1,2] produced=1 dlq=dlq-2',
      'commit',
      'send [3,4] produced=1 dlq=dlq-4',
      'abort',
      'send [5] produced=1 dlq=',
    ]);
    expect(aborted).toEqual({ transactions: 1, produced: 1, deadLetters: 1 });
  });

  it('sends the batch as it is when it is not split', async () => {
    const envelopes = records(2);
    for (const envelope of envelopes) envelope.outgoing = out(envelope.original.value as number);
    const batch: PolledBatch = { envelopes, written: 2, deadLetters: 0, bytes: 0 };
    const sent: unknown[] = [];
    const sequence: SliceTarget = {
      send: async (part) => {
        sent.push(part);
      },
      commit: async () => {},
      abort: async () => ({ produced: 0, deadLetters: 0 }),
    };

    await dispatchSlices(sequence, batch, [{ from: 0, to: 2, end: undefined }]);

    expect(sent).toEqual([batch.envelopes]);
    expect(sent[0]).toBe(batch.envelopes);
  });
});
