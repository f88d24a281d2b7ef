/**
 * PostgreSQL's date and time text (DateStyle ISO, what node-postgres and every default server
 * use) read to the microsecond, and instants written back as statement parameters. Pure.
 *
 * Instants are microseconds since the epoch as `bigint` (PostgreSQL's own precision). A
 * `timestamp` (without time zone) is a wall time: it is read as the instant it names in
 * `db.timezone`, and an instant is written back as the wall time there, as Confluent's JDBC
 * source does through `db.timezone`.
 */
import { DataError } from 'serverless-connect/connect';
import { localToUtc, type TimeZone } from '../time-zone.js';

export const MICROS_PER_MILLI = 1000n;
export const MICROS_PER_SECOND = 1_000_000n;
const MICROS_PER_DAY = 86_400n * MICROS_PER_SECOND;
const MILLIS_PER_DAY = 86_400_000;

/** The most distant instants a JS Date holds (±8.64e15 ms): `infinity` and `-infinity` become them. */
export const MAX_MICROS = 8_640_000_000_000_000n * MICROS_PER_MILLI;
export const MIN_MICROS = -MAX_MICROS;

/** How a timestamp expression is typed, for reading its values and writing parameters. */
export type TimestampKind = 'timestamp' | 'timestamptz' | 'date';

const DATE = /^(\d{4,})-(\d{2})-(\d{2})( BC)?$/;
const TIME =
  /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?$/;
const TIMESTAMP =
  /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?( BC)?$/;

/** Days since 1970-01-01 of a proleptic Gregorian date (year 0 = 1 BC). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The proleptic Gregorian date of a day number (the inverse of {@link daysFromCivil}). */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function invalid(what: string, text: string): DataError {
  return new DataError(`Cannot read PostgreSQL ${what} value ${JSON.stringify(text)}`);
}

function yearOf(digits: string, bc: string | undefined): number {
  const year = Number(digits);
  return bc === undefined ? year : 1 - year;
}

/** Seconds east of UTC of a `+HH[:MM[:SS]]` suffix. */
function offsetSeconds(sign: string, hours: string, minutes?: string, seconds?: string): number {
  const total = Number(hours) * 3600 + Number(minutes ?? '0') * 60 + Number(seconds ?? '0');
  return sign === '-' ? -total : total;
}

function fractionMicros(fraction: string | undefined): bigint {
  return BigInt((fraction ?? '').padEnd(6, '0'));
}

/** Milliseconds, floored (for Connect's millisecond types). */
export function microsToMillis(micros: bigint): number {
  const millis = micros / MICROS_PER_MILLI;
  return Number(micros < 0n && millis * MICROS_PER_MILLI !== micros ? millis - 1n : millis);
}

/** The instant of a `timestamptz` value, or of a `timestamp` value read as wall time in `zone`. */
export function parseTimestamp(text: string, zone: TimeZone): bigint {
  if (text === 'infinity') return MAX_MICROS;
  if (text === '-infinity') return MIN_MICROS;
  const m = TIMESTAMP.exec(text);
  if (m === null) throw invalid('timestamp', text);
  const [, y = '', mo = '', d = '', h = '', mi = '', s = '', frac, sign, oh, om, os, bc] = m;
  const days = daysFromCivil(yearOf(y, bc), Number(mo), Number(d));
  const seconds = BigInt(days) * 86_400n + BigInt(Number(h) * 3600 + Number(mi) * 60 + Number(s));
  const wall = seconds * MICROS_PER_SECOND + fractionMicros(frac);
  if (sign !== undefined) {
    return wall - BigInt(offsetSeconds(sign, oh ?? '0', om, os)) * MICROS_PER_SECOND;
  }
  const wallMillis = microsToMillis(wall);
  const offsetMillis = wallMillis - localToUtc(zone, wallMillis);
  return wall - BigInt(offsetMillis) * MICROS_PER_MILLI;
}

/** Days since the epoch of a `date` value (`infinity`: the most distant Date). */
export function parseDateDays(text: string): number {
  if (text === 'infinity') return Math.floor(Number(MAX_MICROS / MICROS_PER_DAY));
  if (text === '-infinity') return Math.ceil(Number(MIN_MICROS / MICROS_PER_DAY));
  const m = DATE.exec(text);
  if (m === null) throw invalid('date', text);
  const [, y = '', mo = '', d = '', bc] = m;
  return daysFromCivil(yearOf(y, bc), Number(mo), Number(d));
}

/**
 * Milliseconds since midnight of a `time` value, or for a `timetz` value of its UTC time of day.
 * `24:00:00` (a valid PostgreSQL time) is the day's last millisecond.
 */
export function parseTimeMillis(text: string): number {
  const m = TIME.exec(text);
  if (m === null) throw invalid('time', text);
  const [, h = '', mi = '', s = '', frac, sign, oh, om, os] = m;
  let millis =
    (Number(h) * 3600 + Number(mi) * 60 + Number(s)) * 1000 +
    Math.floor(Number(fractionMicros(frac)) / 1000);
  if (sign !== undefined) {
    millis = (millis - offsetSeconds(sign, oh ?? '0', om, os) * 1000) % MILLIS_PER_DAY;
    if (millis < 0) millis += MILLIS_PER_DAY;
  }
  return Math.min(millis, MILLIS_PER_DAY - 1);
}

/** The instant of a `date` value as a timestamp expression: midnight of that date in `zone`. */
export function dateToMicros(text: string, zone: TimeZone): bigint {
  const days = parseDateDays(text);
  return BigInt(localToUtc(zone, days * MILLIS_PER_DAY)) * MICROS_PER_MILLI;
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** `YYYY-MM-DD HH:MM:SS.ffffff[ BC]` of wall-time microseconds. */
function formatWall(wall: bigint): string {
  let days = wall / MICROS_PER_DAY;
  let inDay = wall - days * MICROS_PER_DAY;
  if (inDay < 0n) {
    inDay += MICROS_PER_DAY;
    days -= 1n;
  }
  const { year, month, day } = civilFromDays(Number(days));
  const seconds = Number(inDay / MICROS_PER_SECOND);
  const micros = Number(inDay % MICROS_PER_SECOND);
  const bc = year <= 0;
  const date = `${pad(bc ? 1 - year : year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
  const time = `${pad(Math.floor(seconds / 3600), 2)}:${pad(Math.floor(seconds / 60) % 60, 2)}:${pad(seconds % 60, 2)}.${pad(micros, 6)}`;
  return `${date} ${time}${bc ? ' BC' : ''}`;
}

/**
 * An instant as a parameter of a timestamp expression of `kind`: the UTC time with `+00` for
 * `timestamptz`, the wall time in `zone` for `timestamp` and `date` (compared as timestamps).
 */
export function formatTimestampParameter(
  micros: bigint,
  kind: TimestampKind,
  zone: TimeZone,
): string {
  if (kind === 'timestamptz') {
    const text = formatWall(micros);
    return text.endsWith(' BC') ? `${text.slice(0, -3)}+00 BC` : `${text}+00`;
  }
  const offsetMillis = zone.offsetAt(microsToMillis(micros));
  return formatWall(micros + BigInt(offsetMillis) * MICROS_PER_MILLI);
}
