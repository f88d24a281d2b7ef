import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import {
  parseShardOffset,
  parseShardPartition,
  shardOffset,
  shardPartition,
} from '../../../../../../shared/plugins/connectors/dynamodb-streams-source/dynamodb-streams-offsets.js';

describe('DynamoDB Streams source offsets', () => {
  it('round-trips partitions and offsets, closed or not', () => {
    // Act
    const partition = parseShardPartition(shardPartition('orders', 'shardId-1'));
    const open = parseShardOffset(shardOffset('300000000000000000001', false));
    const closed = parseShardOffset(shardOffset('42', true));

    // Assess
    expect(partition).toEqual({ table: 'orders', shard: 'shardId-1' });
    expect(open).toEqual({ sequenceNumber: '300000000000000000001', closed: false });
    expect(closed).toEqual({ sequenceNumber: '42', closed: true });
    expect(shardOffset('42', false)).toEqual({ sequenceNumber: '42' });
  });

  it('accepts what the offsets REST API may store: numbers, string booleans, closed without a sequence', () => {
    // Act
    const parsed = [
      parseShardOffset({ sequenceNumber: 7 }),
      parseShardOffset({ sequenceNumber: '7', closed: 'true' }),
      parseShardOffset({ closed: true }),
      parseShardOffset(null),
    ];

    // Assess
    expect(parsed).toEqual([
      { sequenceNumber: '7', closed: false },
      { sequenceNumber: '7', closed: true },
      { sequenceNumber: null, closed: true },
      null,
    ]);
  });

  it('rejects offsets and partitions that are not this connector’s with a data error', () => {
    // Act
    const bad = [
      () => parseShardOffset({ sequenceNumber: 'abc' }),
      () => parseShardOffset({ sequenceNumber: '1', closed: 'maybe' }),
      () => parseShardOffset({}),
      () => parseShardPartition({ bucket: 'b', key: 'k' }),
    ];

    // Assess
    for (const fn of bad) expect(fn).toThrow(DataError);
  });
});
