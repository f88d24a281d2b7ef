import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import { parseLsn } from '../../../../../../shared/plugins/connectors/postgres-cdc/lsn.js';
import {
  parseServerMessage,
  standbyStatusUpdate,
} from '../../../../../../shared/plugins/connectors/postgres-cdc/replication-protocol.js';

describe('replication protocol messages', () => {
  it('reads XLogData and keepalives as PostgreSQL sends them', () => {
    // Captured from PostgreSQL 15: a Begin in XLogData, then a keepalive asking for no reply.
    const xlog = Buffer.from(
      '7700000000015066280000000001506628000304aaa978ec96420000000001507390000304aaa978e4da000002d7',
      'hex',
    );
    const keepalive = Buffer.from('6b0000000001507500000304aaa978edd400', 'hex');

    const data = parseServerMessage(xlog);
    expect(data).toMatchObject({
      kind: 'xlogdata',
      start: parseLsn('0/1506628'),
      walEnd: parseLsn('0/1506628'),
    });
    expect(data.kind === 'xlogdata' && data.payload[0]).toBe(0x42);
    expect(parseServerMessage(keepalive)).toEqual({
      kind: 'keepalive',
      walEnd: parseLsn('0/1507500'),
      replyRequested: false,
    });
    expect(() => parseServerMessage(Buffer.from('7a00', 'hex'))).toThrow(DataError);
  });

  it('writes a standby status update confirming one position as written, flushed and applied', () => {
    const now = BigInt(Date.UTC(2024, 0, 1)) * 1000n;
    const update = standbyStatusUpdate(parseLsn('16/B374D848'), now, true);
    const view = new DataView(update.buffer);

    expect(update[0]).toBe(0x72);
    expect(update).toHaveLength(34);
    for (const at of [1, 9, 17]) expect(view.getBigUint64(at)).toBe(parseLsn('16/B374D848'));
    // Microseconds since 2000-01-01.
    expect(view.getBigInt64(25)).toBe(now - 946_684_800_000_000n);
    expect(update[33]).toBe(1);
  });
});
