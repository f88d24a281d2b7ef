import { describe, expect, it } from 'vitest';
import { fateIn } from '../../../../../shared/adapters/kafkajs/record-fate.js';

const record = (offset: number, producerId = '7', inTransaction = true) => ({
  offset: String(offset),
  batchContext: { producerId, inTransaction },
});

describe('fateIn (the fate of a record in a read_committed fetch from its offset)', () => {
  it('is open while the last stable offset is not past the record', () => {
    expect(fateIn({ partition: 0, lastStableOffset: '5', messages: [record(5)] }, 5)).toBe('open');
  });

  it('is committed when its producer has no aborted transaction holding it', () => {
    const fetched = {
      partition: 0,
      lastStableOffset: '9',
      // Another producer's abort, and a later abort of the same producer, do not hold offset 5.
      abortedTransactions: [
        { producerId: '8', firstOffset: '4' },
        { producerId: '7', firstOffset: '6' },
      ],
      messages: [record(4, '8'), record(5), record(6)],
    };
    expect(fateIn(fetched, 5)).toBe('committed');
  });

  it('is aborted when an aborted transaction of its producer starts at or before it', () => {
    const fetched = {
      partition: 0,
      lastStableOffset: '9',
      abortedTransactions: [{ producerId: '7', firstOffset: '3' }],
      messages: [record(3), record(4), record(5)],
    };
    expect(fateIn(fetched, 5)).toBe('aborted');
  });

  it('is aborted when no data record is left at the offset, and committed when it is not transactional', () => {
    const control = { offset: '5', isControlRecord: true, batchContext: { producerId: '7' } };
    expect(fateIn({ partition: 0, lastStableOffset: '9', messages: [control, record(6)] }, 5)).toBe(
      'aborted',
    );
    expect(
      fateIn({ partition: 0, lastStableOffset: '9', messages: [record(5, '-1', false)] }, 5),
    ).toBe('committed');
  });
});
