import { describe, expect, it } from 'vitest';
import {
  civilFromDays,
  daysFromCivil,
  formatTimestampParameter,
  MAX_MICROS,
  microsToMillis,
  parseDateDays,
  parseTimeMillis,
  parseTimestamp,
} from '../../../../../../shared/plugins/connectors/postgres-source/pg-time.js';
import { timeZoneOf } from '../../../../../../shared/plugins/connectors/time-zone.js';

const utc = timeZoneOf('UTC');
const paris = timeZoneOf('Europe/Paris');
const micros = (iso: string, extra = 0n) => BigInt(Date.parse(iso)) * 1000n + extra;

describe('parseTimestamp', () => {
  it('reads timestamptz text to the microsecond, whatever offset it carries', () => {
    expect(parseTimestamp('2024-06-01 12:30:00.250001+02', utc)).toBe(
      micros('2024-06-01T10:30:00.250Z', 1n),
    );
    expect(parseTimestamp('2024-06-01 12:30:00-03:30', utc)).toBe(micros('2024-06-01T16:00:00Z'));
    expect(parseTimestamp('1900-01-01 00:00:00+00:09:21', utc)).toBe(
      micros('1899-12-31T23:50:39Z'),
    );
  });

  it('reads timestamp text as the wall time in db.timezone, across daylight saving time', () => {
    expect(parseTimestamp('2024-01-15 12:00:00', paris)).toBe(micros('2024-01-15T11:00:00Z'));
    expect(parseTimestamp('2024-07-15 12:00:00.5', paris)).toBe(micros('2024-07-15T10:00:00.500Z'));
    expect(parseTimestamp('2024-07-15 12:00:00', utc)).toBe(micros('2024-07-15T12:00:00Z'));
  });

  it('reads BC years, years past 9999 and the infinities', () => {
    expect(parseTimestamp('0001-01-01 00:00:00 BC', utc)).toBe(micros('0000-01-01T00:00:00Z'));
    expect(parseTimestamp('10000-01-01 00:00:00', utc)).toBe(micros('+010000-01-01T00:00:00Z'));
    expect(parseTimestamp('infinity', utc)).toBe(MAX_MICROS);
    expect(new Date(microsToMillis(parseTimestamp('-infinity', utc))).getTime()).toBe(-8.64e15);
    expect(() => parseTimestamp('yesterday', utc)).toThrow(/Cannot read PostgreSQL timestamp/);
  });
});

describe('formatTimestampParameter', () => {
  it('writes instants back exactly: UTC with +00 for timestamptz, the wall time in the zone for timestamp', () => {
    const at = micros('2024-07-15T10:00:00.123Z', 456n);
    expect(formatTimestampParameter(at, 'timestamptz', paris)).toBe(
      '2024-07-15 10:00:00.123456+00',
    );
    expect(formatTimestampParameter(at, 'timestamp', paris)).toBe('2024-07-15 12:00:00.123456');
    expect(parseTimestamp(formatTimestampParameter(at, 'timestamp', paris), paris)).toBe(at);
    expect(formatTimestampParameter(micros('0000-06-01T00:00:00Z'), 'timestamptz', utc)).toBe(
      '0001-06-01 00:00:00.000000+00 BC',
    );
    expect(formatTimestampParameter(-1n, 'timestamp', utc)).toBe('1969-12-31 23:59:59.999999');
  });
});

describe('dates and times', () => {
  it('reads dates as days, times as milliseconds of the (UTC) day', () => {
    expect(parseDateDays('2024-02-29')).toBe(Date.UTC(2024, 1, 29) / 86_400_000);
    expect(parseDateDays('0001-01-01 BC')).toBe(daysFromCivil(0, 1, 1));
    expect(parseTimeMillis('23:59:58.1259')).toBe(86_398_125);
    expect(parseTimeMillis('24:00:00')).toBe(86_399_999);
    expect(parseTimeMillis('01:00:00+02')).toBe(23 * 3_600_000);
    expect(() => parseDateDays('soon')).toThrow(/Cannot read PostgreSQL date/);
  });

  it('converts between civil dates and day numbers', () => {
    for (const day of [-719_528, -1, 0, 19_782, 2_932_896]) {
      const { year, month, day: d } = civilFromDays(day);
      expect(daysFromCivil(year, month, d)).toBe(day);
    }
    expect(civilFromDays(0)).toEqual({ year: 1970, month: 1, day: 1 });
  });
});
