import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import {
  cdcPartition,
  isDelivered,
  parseCdcOffset,
  parseCdcPartition,
  type StreamPosition,
  snapshotOffset,
  streamOffset,
} from '../../../../../../shared/plugins/connectors/postgres-cdc/cdc-offsets.js';

const position: StreamPosition = {
  kind: 'stream',
  lsn: 5000n,
  event: 3,
  confirmable: 4000n,
  eventLsn: 4800n,
  txId: 771,
  timeMicros: 1_700_000_000_000_000n,
};

describe('CDC offsets', () => {
  it('writes streaming offsets with Debezium names and reads them back', () => {
    const offset = streamOffset(position);

    expect(offset).toEqual({
      lsn: 5000,
      lsn_proc: 4800,
      lsn_commit: 4000,
      txId: 771,
      ts_usec: 1_700_000_000_000_000,
      event: 3,
    });
    expect(parseCdcOffset(offset)).toEqual(position);
    expect(streamOffset({ ...position, event: -1 })).not.toHaveProperty('event');
  });

  it('writes snapshot offsets and reads the last one as the stream starting at the consistent point', () => {
    const mid = snapshotOffset(
      { lsn: 900n, table: 'public.orders', key: ['7'], timeMicros: null },
      false,
    );
    const last = snapshotOffset(
      { lsn: 900n, table: 'public.orders', key: ['9'], timeMicros: null },
      true,
    );

    expect(mid).toEqual({
      snapshot: true,
      last_snapshot_record: false,
      lsn: 900,
      table: 'public.orders',
      key: ['7'],
    });
    expect(parseCdcOffset(mid)).toEqual({
      kind: 'snapshot',
      lsn: 900n,
      table: 'public.orders',
      key: ['7'],
      timeMicros: null,
    });
    expect(parseCdcOffset(last)).toMatchObject({
      kind: 'stream',
      lsn: 900n,
      event: -1,
      confirmable: 900n,
    });
  });

  it("reads Debezium's own offsets (no event index: the transaction counts as delivered up to lsn)", () => {
    expect(parseCdcOffset({ lsn: 24023128, txId: 555, ts_usec: 1482918357011000 })).toMatchObject({
      kind: 'stream',
      lsn: 24023128n,
      event: -1,
      confirmable: 24023128n,
    });
  });

  it('refuses offsets and partitions that are not its own', () => {
    expect(() => parseCdcOffset({ position: 1 })).toThrow(DataError);
    expect(() => parseCdcOffset({ snapshot: true, lsn: 1 })).toThrow(/needs table and key/);
    expect(() => parseCdcPartition({ table: 'x' })).toThrow(DataError);
    expect(parseCdcPartition(cdcPartition('shop', null))).toEqual({ server: 'shop', slot: null });
    expect(parseCdcPartition(cdcPartition('shop', 'debezium_1'))).toEqual({
      server: 'shop',
      slot: 'debezium_1',
    });
  });

  it('orders events by commit LSN, then index in the transaction', () => {
    expect(isDelivered(4999n, 99, position)).toBe(true);
    expect(isDelivered(5000n, 3, position)).toBe(true);
    expect(isDelivered(5000n, 4, position)).toBe(false);
    expect(isDelivered(5001n, 0, position)).toBe(false);
    expect(isDelivered(5000n, 0, { ...position, event: -1 })).toBe(false);
  });
});
