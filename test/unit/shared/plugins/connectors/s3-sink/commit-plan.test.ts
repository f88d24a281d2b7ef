import { describe, expect, it } from 'vitest';
import {
  completeBelow,
  needsListing,
  planCommit,
} from '../../../../../../shared/plugins/connectors/s3-sink/commit-plan.js';
import {
  parseStagingKey,
  stagingKey,
  stagingPrefix,
} from '../../../../../../shared/plugins/connectors/s3-sink/object-naming.js';

const key = (start: number, dir = 'partition=0') =>
  `topics/orders/${dir}/orders+0+${String(start).padStart(20, '0')}.json`;
const entry = (offset: number) => ({ offset, bytes: new Uint8Array([offset]) });
const object = (start: number, offsets: number[], dir?: string) => ({
  key: key(start, dir),
  stagingKey: stagingKey('_staging', 'orders', 0, key(start, dir)),
  bucketStart: start,
  entries: offsets.map(entry),
});

describe('commit plan (s3.write.mode=once)', () => {
  it('takes a bucket as complete once the next offset reaches its end', () => {
    expect([3, 4, 5, 8].map((next) => completeBelow(next, 4))).toEqual([0, 4, 4, 8]);
  });

  it('lists the staging prefix only when a bucket completed that this writer has not sealed', () => {
    expect(needsListing(4, undefined)).toBe(true);
    expect(needsListing(0, undefined)).toBe(false);
    expect(needsListing(4, 4)).toBe(false);
    expect(needsListing(8, 4)).toBe(true);
  });

  it('seals complete buckets (reading staging only when the batch starts inside them) and stages the rest', () => {
    // Act
    const plan = planCommit(
      {
        firstOffset: 2,
        nextOffset: 9,
        objects: [object(0, [2, 3]), object(4, [4, 5, 6, 7]), object(8, [8])],
      },
      4,
      [],
    );

    // Assess
    expect(plan.completeBelow).toBe(8);
    expect(plan.seal.map((r) => [r.pending.key, r.readStaging])).toEqual([
      [key(0), true],
      [key(4), false],
    ]);
    expect(plan.stage.map((s) => s.key)).toEqual([stagingKey('_staging', 'orders', 0, key(8))]);
  });

  it('seals listed staged objects of complete buckets the batch holds nothing for, and only those', () => {
    // Prepare
    const listed = [key(0, 'r=eu'), key(0), key(4, 'r=eu')].map((k) => ({
      stagingKey: stagingKey('_staging', 'orders', 0, k),
      finalKey: k,
      bucketStart: k.includes('+00000000000000000004') ? 4 : 0,
    }));

    // Act
    const plan = planCommit(
      { firstOffset: 3, nextOffset: 5, objects: [object(0, [3])] },
      4,
      listed,
    );

    // Assess
    expect(plan.seal.map((r) => [r.pending.key, r.pending.entries.length, r.readStaging])).toEqual([
      [key(0), 1, true],
      [key(0, 'r=eu'), 0, true],
    ]);
  });

  it('maps staging keys back to their final key and bucket, refusing other partitions and formats', () => {
    const prefix = stagingPrefix('_staging', 'orders', 1);
    const c = { topicsDir: 'topics', topic: 'orders', kafkaPartition: 1, extension: '.json' };
    const final = 'topics/orders/partition=1/orders+1+00000000000000000400.json';
    expect(parseStagingKey(`${prefix}${final}`, prefix, c)).toEqual({
      stagingKey: `_staging/orders+1/${final}`,
      finalKey: final,
      bucketStart: 400,
    });
    expect(parseStagingKey(`${prefix}${final}.gz`, prefix, c)).toBeNull();
    expect(parseStagingKey(`${prefix}other/${final}`, prefix, c)).toBeNull();
    expect(parseStagingKey(`${prefix}${final.replaceAll('+1+', '+10+')}`, prefix, c)).toBeNull();
  });
});
