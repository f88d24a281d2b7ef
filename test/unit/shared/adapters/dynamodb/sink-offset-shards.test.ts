import { describe, expect, it } from 'vitest';
import {
  KEYS,
  SINK_OFFSET_SHARDS,
  sinkOffsetShard,
} from '../../../../../shared/adapters/dynamodb/table-schema.js';

describe('sink offset shards (state table format v4)', () => {
  it('keeps every topic-partition in the shard it was written to (the shard is part of the format)', () => {
    // Changing the hash or the shard count would hide every stored sink offset: these are pinned.
    expect(SINK_OFFSET_SHARDS).toBe(16);
    expect(
      [
        ['orders', 0],
        ['orders', 1],
        ['orders', 2],
        ['orders-events', 999],
        ['t', 0],
      ].map(([topic, partition]) => sinkOffsetShard(String(topic), Number(partition))),
    ).toEqual([9, 6, 3, 14, 14]);
    expect(KEYS.sinkOffsetPk('c#1', 'orders', 0)).toBe('SINKOFFSETS#09#c#1');
  });

  it('spreads a topic of 1,000 partitions evenly enough over the shards', () => {
    // Prepare
    const perShard = new Array<number>(SINK_OFFSET_SHARDS).fill(0);
    // Act
    for (let partition = 0; partition < 1000; partition += 1) {
      const shard = sinkOffsetShard('orders', partition);
      perShard[shard] = (perShard[shard] ?? 0) + 1;
    }
    // Assess: the busiest key takes at most 10 % over an even share (1,000 / 16 = 62.5).
    expect(Math.min(...perShard)).toBeGreaterThan(0);
    expect(Math.max(...perShard)).toBeLessThanOrEqual(69);
  });

  it('never puts sink offsets under a connector partition key (C#…), which streams and listings read', () => {
    expect(KEYS.sinkOffsetShardPk('orders', 0).startsWith(KEYS.connectorPk(''))).toBe(false);
  });
});
