import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import {
  formatZonedTime,
  formatZonedTimestamp,
  INFINITY_MICROS,
  parseArrayLiteral,
  parseBigInteger,
  parseBytea,
  parseDateDays,
  parseDouble,
  parseIntervalMicros,
  parseMoney,
  parseNumeric,
  parseTimeMicros,
  parseTimestampMicros,
} from '../../../../../../shared/plugins/connectors/postgres-cdc/text-values.js';

const micros = (ms: number) => BigInt(ms) * 1000n;

describe('PostgreSQL text values', () => {
  it('reads numbers: int8 beyond 2^53 as bigint, floats with their specials, numeric, money', () => {
    expect(parseBigInteger('42')).toBe(42);
    expect(parseBigInteger('9223372036854775807')).toBe(9223372036854775807n);
    expect(parseBigInteger('-999999999999999')).toBe(-999_999_999_999_999);
    expect(parseBigInteger('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseBigInteger('9007199254740992')).toBe(9007199254740992n);
    expect(() => parseBigInteger('12a')).toThrow(DataError);
    expect(parseDouble('NaN')).toBeNaN();
    expect(parseDouble('-Infinity')).toBe(Number.NEGATIVE_INFINITY);
    expect(() => parseDouble('x')).toThrow(DataError);
    expect(parseNumeric('-12.340')?.toString()).toBe('-12.340');
    expect(parseNumeric('NaN')).toBeNull();
    expect(parseMoney('$1,234.5', 2).toString()).toBe('1234.50');
    expect(parseMoney('-$0.25', 2).toString()).toBe('-0.25');
  });

  it('reads bytea in hex form', () => {
    expect(parseBytea('\\x00ff10')).toEqual(Uint8Array.from([0, 255, 16]));
    expect(() => parseBytea('abc')).toThrow(/bytea/);
  });

  it('reads dates, times and timestamps, BC and infinity included', () => {
    expect(parseDateDays('1970-01-02')).toBe(1);
    expect(parseDateDays('1969-12-31')).toBe(-1);
    // 1 BC is the proleptic year 0, one leap year (366 days) before 0001-01-01.
    expect(parseDateDays('0001-01-01') - parseDateDays('0001-01-01 BC')).toBe(366);
    expect(parseDateDays('infinity')).toBe(2_147_483_647);
    expect(parseTimeMicros('24:00:00')).toBe(86_400_000_000n);
    expect(parseTimeMicros('01:02:03.5')).toBe(3_723_500_000n);
    expect(parseTimestampMicros('2024-02-29 12:34:56.789123')).toBe(
      micros(Date.UTC(2024, 1, 29, 12, 34, 56, 789)) + 123n,
    );
    expect(parseTimestampMicros('2024-02-29 12:00:00+02')).toBe(micros(Date.UTC(2024, 1, 29, 10)));
    expect(parseTimestampMicros('2024-02-29 12:00:00-03:30')).toBe(
      micros(Date.UTC(2024, 1, 29, 15, 30)),
    );
    expect(parseTimestampMicros('1969-12-31 23:59:59.999999')).toBe(-1n);
    expect(parseTimestampMicros('infinity')).toBe(INFINITY_MICROS);
  });

  it("formats timestamptz and timetz as Debezium's ZonedTimestamp and ZonedTime (UTC)", () => {
    expect(formatZonedTimestamp('2024-02-29 12:34:56.7+02', 6)).toBe('2024-02-29T10:34:56.700000Z');
    expect(formatZonedTimestamp('2024-02-29 12:34:56+00', 0)).toBe('2024-02-29T12:34:56Z');
    expect(formatZonedTimestamp('1969-12-31 23:59:59.5+00', 3)).toBe('1969-12-31T23:59:59.500Z');
    expect(formatZonedTimestamp('infinity', 6)).toBe('infinity');
    expect(formatZonedTimestamp('2024-02-29 12:34:56.123456+00', 2)).toBe(
      '2024-02-29T12:34:56.12Z',
    );
    expect(formatZonedTime('01:00:00.25+02')).toBe('23:00:00.25Z');
    expect(formatZonedTime('12:00:00-05:30')).toBe('17:30:00Z');
  });

  it("formats a UTC timestamptz (the sessions' form) as it formats the same instant at any offset", () => {
    const two = (n: number) => String(n).padStart(2, '0');
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('1000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: 0, max: 999_999 }),
        fc.integer({ min: 0, max: 6 }),
        (date, micros, digits) => {
          // PostgreSQL's output: the fraction without trailing zeros, none when zero.
          const fraction =
            micros === 0 ? '' : `.${String(micros).padStart(6, '0')}`.replace(/0+$/, '');
          const local =
            `${String(date.getUTCFullYear()).padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())} ` +
            `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}${fraction}`;
          expect(formatZonedTimestamp(`${local}+00`, digits)).toBe(
            formatZonedTimestamp(`${local}-00`, digits),
          );
        },
      ),
    );
  });

  it("reads intervals as Debezium's MicroDuration (a month is 365.25 / 12 days)", () => {
    expect(parseIntervalMicros('1 day 02:00:00')).toBe(93_600_000_000n);
    expect(parseIntervalMicros('1 mon')).toBe(2_629_800_000_000n);
    expect(parseIntervalMicros('1 year -1 days')).toBe(12n * 2_629_800_000_000n - 86_400_000_000n);
    expect(parseIntervalMicros('-00:00:01.5')).toBe(-1_500_000n);
    expect(() => parseIntervalMicros('soon')).toThrow(DataError);
  });

  it('reads one-dimensional array literals with quotes, escapes and NULLs', () => {
    expect(parseArrayLiteral('{}')).toEqual([]);
    expect(parseArrayLiteral('{1,NULL,3}')).toEqual(['1', null, '3']);
    expect(parseArrayLiteral('{"a,b","say \\"hi\\"","NULL",x}')).toEqual([
      'a,b',
      'say "hi"',
      'NULL',
      'x',
    ]);
    expect(() => parseArrayLiteral('{{1,2},{3,4}}')).toThrow(/Multi-dimensional/);
  });
});
