import { describe, expect, it } from 'vitest';
import {
  formatLsn,
  lsnFromOffsetValue,
  lsnToOffsetValue,
  parseLsn,
} from '../../../../../../shared/plugins/connectors/postgres-cdc/lsn.js';

describe('LSNs', () => {
  it('reads and writes PostgreSQL text form and Debezium numbers', () => {
    const lsn = parseLsn('16/B374D848');

    expect(lsn).toBe((0x16n << 32n) | 0xb374d848n);
    expect(formatLsn(lsn)).toBe('16/B374D848');
    expect(lsnToOffsetValue(lsn)).toBe(Number(lsn));
    expect(lsnFromOffsetValue(Number(lsn))).toBe(lsn);
    expect(lsnFromOffsetValue(String(lsn))).toBe(lsn);
    expect(lsnFromOffsetValue('16/B374D848')).toBe(lsn);
    expect(lsnToOffsetValue(1n << 60n)).toBe((1n << 60n).toString());
    expect(lsnFromOffsetValue((1n << 60n).toString())).toBe(1n << 60n);
  });

  it('refuses what is not an LSN', () => {
    expect(() => parseLsn('nope')).toThrow(/Not a PostgreSQL LSN/);
    expect(lsnFromOffsetValue(-1)).toBeUndefined();
    expect(lsnFromOffsetValue(1.5)).toBeUndefined();
    expect(lsnFromOffsetValue(null)).toBeUndefined();
  });
});
