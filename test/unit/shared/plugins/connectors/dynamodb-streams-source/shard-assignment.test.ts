import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareSequenceNumbers,
  shardOwner,
} from '../../../../../../shared/plugins/connectors/dynamodb-streams-source/shard-assignment.js';

describe('shardOwner', () => {
  it('gives each shard id one stable owner within the task count', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.integer({ min: 1, max: 64 }), (id, count) => {
        const owner = shardOwner(id, count);
        expect(owner).toBeGreaterThanOrEqual(0);
        expect(owner).toBeLessThan(count);
        expect(shardOwner(id, count)).toBe(owner);
      }),
    );
  });

  it('spreads realistic shard ids over all tasks', () => {
    // Prepare
    const ids = Array.from(
      { length: 300 },
      (_, i) =>
        `shardId-${String(1_700_000_000_000 + i * 7919).padStart(20, '0')}-${(i * 2654435761).toString(16).slice(-8)}`,
    );

    // Act
    const counts = [0, 0, 0];
    for (const id of ids) counts[shardOwner(id, 3)] = (counts[shardOwner(id, 3)] ?? 0) + 1;

    // Assess
    expect(Math.min(...counts)).toBeGreaterThan(60);
  });
});

describe('compareSequenceNumbers', () => {
  it('orders digit strings as numbers, whatever their length or leading zeros', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 40n }),
        fc.bigInt({ min: 0n, max: 10n ** 40n }),
        fc.nat(3),
        (a, b, pad) => {
          const sign = Math.sign(compareSequenceNumbers('0'.repeat(pad) + String(a), String(b)));
          expect(sign).toBe(a < b ? -1 : a > b ? 1 : 0);
        },
      ),
    );
  });
});
