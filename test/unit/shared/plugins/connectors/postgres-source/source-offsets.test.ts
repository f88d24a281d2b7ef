import { describe, expect, it } from 'vitest';
import {
  bulkPartition,
  parseBulkOffset,
  parsePosition,
  positionOffset,
  queryPartition,
  tablePartition,
  tablePartitionCandidates,
} from '../../../../../../shared/plugins/connectors/postgres-source/source-offsets.js';

const orders = { schema: 'public', table: 'orders' };

describe('source partitions', () => {
  it("are Confluent's: protocol 1 with schema.table, protocol 0 and three-part names read too", () => {
    expect(tablePartition(orders)).toEqual({ protocol: '1', table: 'public.orders' });
    expect(tablePartitionCandidates(orders, 'shop')).toEqual([
      { protocol: '1', table: 'public.orders' },
      { protocol: '1', table: 'shop.public.orders' },
      { table: 'orders' },
    ]);
    expect(queryPartition()).toEqual({ query: 'query' });
    expect(bulkPartition(orders)).toEqual({ table: 'orders' });
    expect(bulkPartition(null)).toEqual({ query: 'query' });
  });
});

describe('source offsets', () => {
  it('store timestamps as java.sql.Timestamp does: epoch ms and the nanoseconds of the second', () => {
    // 2024-03-01T09:00:00.123456Z
    const micros = BigInt(Date.parse('2024-03-01T09:00:00.123Z')) * 1000n + 456n;
    expect(positionOffset({ timestamp: micros, incrementing: 3n })).toEqual({
      incrementing: 3,
      timestamp: Date.parse('2024-03-01T09:00:00.123Z'),
      timestamp_nanos: 123_456_000,
    });
    expect(
      parsePosition({
        timestamp: Date.parse('2024-03-01T09:00:00.123Z'),
        timestamp_nanos: 123_456_000,
      }),
    ).toEqual({
      timestamp: micros,
      incrementing: null,
    });
  });

  it('round-trip instants before the epoch, and offsets without nanos', () => {
    for (const micros of [-1n, -999_999n, -1_000_000n, -1_000_001n, 0n, 1n]) {
      expect(
        parsePosition(positionOffset({ timestamp: micros, incrementing: null })).timestamp,
      ).toBe(micros);
    }
    expect(positionOffset({ timestamp: -1n, incrementing: null })).toEqual({
      timestamp: -1,
      timestamp_nanos: 999_999_000,
    });
    expect(parsePosition({ timestamp: 1500 })).toEqual({
      timestamp: 1_500_000n,
      incrementing: null,
    });
  });

  it('keep incrementing values beyond 2^53 exact, as digits', () => {
    const big = 2n ** 62n;
    expect(positionOffset({ timestamp: null, incrementing: big })).toEqual({
      incrementing: big.toString(),
    });
    expect(parsePosition({ incrementing: big.toString() }).incrementing).toBe(big);
    expect(parsePosition({ incrementing: 5 }).incrementing).toBe(5n);
  });

  it('read no offset as no position and refuse malformed ones', () => {
    expect(parsePosition(null)).toEqual({ timestamp: null, incrementing: null });
    expect(parsePosition({})).toEqual({ timestamp: null, incrementing: null });
    expect(() => parsePosition({ incrementing: 1.5 })).toThrow(/incrementing must be an integer/);
    expect(() => parsePosition({ timestamp: 'yesterday' })).toThrow(/timestamp must be an integer/);
    expect(parseBulkOffset({ bulk_snapshot_started: 42 })).toBe(42);
    expect(parseBulkOffset(null)).toBeNull();
  });
});
