/**
 * PostgreSQL's text output of values, read into the values of Debezium's PostgreSQL type mapping.
 * Both paths speak this form: pgoutput streams text, and the snapshot reads every column as text.
 * The session settings the connector sets on its connections fix the formats read here:
 * `DateStyle=ISO`, `TimeZone=UTC`, `IntervalStyle=postgres`, `bytea_output=hex`,
 * `extra_float_digits=3`. Pure.
 */
import { BigDecimal, DataError } from 'serverless-connect/connect';

const MICROS_PER_SECOND = 1_000_000n;
const MICROS_PER_DAY = 86_400n * MICROS_PER_SECOND;
/** Debezium's average month (365.25 / 12 days) for interval durations. */
const MICROS_PER_AVERAGE_MONTH = 2_629_800n * MICROS_PER_SECOND;

function invalid(what: string, text: string): DataError {
  return new DataError(`Invalid PostgreSQL ${what} value: ${JSON.stringify(text)}`);
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A bigint as a number when it is a safe integer (Connect's int64 convention). */
export function int64Value(value: bigint): number | bigint {
  return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value;
}

export function parseBoolean(text: string): boolean {
  if (text === 't' || text === 'true') return true;
  if (text === 'f' || text === 'false') return false;
  throw invalid('boolean', text);
}

export function parseInteger(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value)) throw invalid('integer', text);
  return value;
}

const INTEGER = /^-?\d+$/;

export function parseBigInteger(text: string): number | bigint {
  if (!INTEGER.test(text)) throw invalid('bigint', text);
  // Up to 15 digits is always a safe integer: no bigint on the common path.
  return text.length <= 15 ? Number(text) : int64Value(BigInt(text));
}

/** float4/float8: numbers, `NaN`, `Infinity`, `-Infinity`. */
export function parseDouble(text: string): number {
  const value = Number(text);
  if (Number.isNaN(value) && text !== 'NaN') throw invalid('floating point', text);
  return value;
}

/** numeric: a decimal, or `null` for NaN and the infinities (no Decimal holds them). */
export function parseNumeric(text: string): BigDecimal | null {
  if (text === 'NaN' || text === 'Infinity' || text === '-Infinity') return null;
  return BigDecimal.parse(text);
}

/** money as `lc_monetary` C prints it (`$1,234.56`, `-$0.50`): a decimal of `scale` digits. */
export function parseMoney(text: string, scale: number): BigDecimal {
  const negative = text.includes('-') || text.startsWith('(');
  const digits = text.replace(/[^0-9.]/g, '');
  if (digits === '') throw invalid('money', text);
  const value = BigDecimal.parse(negative ? `-${digits}` : digits);
  return value.setScale(Math.max(scale, value.scale)).setScale(scale);
}

/** bytea in hex output (`\x0102`). */
export function parseBytea(text: string): Uint8Array {
  if (!text.startsWith('\\x') || text.length % 2 !== 0) throw invalid('bytea (hex)', text);
  return Uint8Array.from(Buffer.from(text.slice(2), 'hex'));
}

const DATE = /^(\d{4,})-(\d{2})-(\d{2})( BC)?$/;

/** Days since 1970-01-01 of a proleptic Gregorian date (year 0 is 1 BC). */
function epochDays(year: number, month: number, day: number): number {
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return Math.round(date.getTime() / 86_400_000);
}

/** date → days since the epoch; `infinity` and `-infinity` → the int32 extremes. */
export function parseDateDays(text: string): number {
  if (text === 'infinity') return 2_147_483_647;
  if (text === '-infinity') return -2_147_483_648;
  const match = DATE.exec(text);
  if (match === null) throw invalid('date', text);
  const year = Number(match[1]);
  return epochDays(match[4] === undefined ? year : 1 - year, Number(match[2]), Number(match[3]));
}

const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;

function timeMicros(hours: string, minutes: string, seconds: string, fraction = ''): bigint {
  return (
    (BigInt(hours) * 3600n + BigInt(minutes) * 60n + BigInt(seconds)) * MICROS_PER_SECOND +
    BigInt(fraction.padEnd(6, '0') || '0')
  );
}

/** time → microseconds since midnight (`24:00:00` is a whole day). */
export function parseTimeMicros(text: string): bigint {
  const match = TIME.exec(text);
  if (match === null) throw invalid('time', text);
  return timeMicros(match[1] ?? '0', match[2] ?? '0', match[3] ?? '0', match[4]);
}

const TIMESTAMP =
  /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?([+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?( BC)?$/;

function offsetSeconds(offset: string): bigint {
  const sign = offset.startsWith('-') ? -1n : 1n;
  const [h = '0', m = '0', s = '0'] = offset.slice(1).split(':');
  return sign * (BigInt(h) * 3600n + BigInt(m) * 60n + BigInt(s));
}

/** The largest and smallest int64, Debezium's values for `infinity` and `-infinity` timestamps. */
export const INFINITY_MICROS = (1n << 63n) - 1n;
export const MINUS_INFINITY_MICROS = -(1n << 63n);

/**
 * timestamp (read as UTC) or timestamptz (its offset applied) → microseconds since the epoch;
 * `infinity`/`-infinity` → the int64 extremes.
 */
export function parseTimestampMicros(text: string): bigint {
  if (text === 'infinity') return INFINITY_MICROS;
  if (text === '-infinity') return MINUS_INFINITY_MICROS;
  const m = TIMESTAMP.exec(text);
  if (m === null) throw invalid('timestamp', text);
  const year = Number(m[1]);
  const days = epochDays(m[9] === undefined ? year : 1 - year, Number(m[2]), Number(m[3]));
  const local =
    BigInt(days) * MICROS_PER_DAY + timeMicros(m[4] ?? '0', m[5] ?? '0', m[6] ?? '0', m[7]);
  return m[8] === undefined ? local : local - offsetSeconds(m[8]) * MICROS_PER_SECOND;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function fractionOf(micros: bigint, digits: number | 'trim'): string {
  const text = pad(Number(micros), 6);
  if (digits === 'trim') {
    const trimmed = text.replace(/0+$/, '');
    return trimmed === '' ? '' : `.${trimmed}`;
  }
  return digits <= 0 ? '' : `.${text.slice(0, Math.min(digits, 6)).padEnd(digits, '0')}`;
}

const UTC_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;

/**
 * timestamptz → Debezium's ZonedTimestamp: ISO-8601 in UTC with `fractionDigits` fraction digits
 * (the column's precision), e.g. `2024-05-01T10:00:00.123456Z`; `infinity` stays as is.
 */
export function formatZonedTimestamp(text: string, fractionDigits: number): string {
  if (text === 'infinity' || text === '-infinity') return text;
  // The sessions' TimeZone=UTC makes nearly every value `YYYY-MM-DD HH:MM:SS[.f]+00`: rewritten.
  const utc = UTC_TIMESTAMP.exec(text);
  if (utc !== null) {
    const fraction =
      fractionDigits <= 0
        ? ''
        : `.${(utc[3] ?? '').padEnd(6, '0').slice(0, Math.min(fractionDigits, 6)).padEnd(fractionDigits, '0')}`;
    return `${utc[1]}T${utc[2]}${fraction}Z`;
  }
  const micros = parseTimestampMicros(text);
  const millis = Number(micros / 1000n - (micros % 1000n < 0n ? 1n : 0n));
  const date = new Date(millis);
  const subSecond = ((micros % MICROS_PER_SECOND) + MICROS_PER_SECOND) % MICROS_PER_SECOND;
  const year = date.getUTCFullYear();
  const yearText = year > 9999 ? `+${year}` : year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
  return (
    `${yearText}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}T` +
    `${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}` +
    `${fractionOf(subSecond, fractionDigits)}Z`
  );
}

const TIMETZ = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?([+-]\d{2}(?::\d{2}(?::\d{2})?)?)$/;

/** timetz → Debezium's ZonedTime: the time in UTC, ISO-8601 (`10:15:30.5Z`). */
export function formatZonedTime(text: string): string {
  const m = TIMETZ.exec(text);
  if (m === null) throw invalid('timetz', text);
  const local = timeMicros(m[1] ?? '0', m[2] ?? '0', m[3] ?? '0', m[4]);
  const utc =
    (((local - offsetSeconds(m[5] ?? '+00') * MICROS_PER_SECOND) % MICROS_PER_DAY) +
      MICROS_PER_DAY) %
    MICROS_PER_DAY;
  const seconds = Number(utc / MICROS_PER_SECOND);
  return (
    `${pad(Math.floor(seconds / 3600), 2)}:${pad(Math.floor(seconds / 60) % 60, 2)}:${pad(seconds % 60, 2)}` +
    `${fractionOf(utc % MICROS_PER_SECOND, 'trim')}Z`
  );
}

const INTERVAL_PART = /([+-]?\d+) (year|years|mon|mons|day|days)(?= |$)/g;
const INTERVAL_TIME = /([+-])?(\d+):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;

/**
 * interval (IntervalStyle=postgres, `1 year 2 mons -3 days +04:05:06.5`) → Debezium's
 * MicroDuration: microseconds, a month counted as 365.25 / 12 days.
 */
export function parseIntervalMicros(text: string): bigint {
  let months = 0n;
  let days = 0n;
  let matched = false;
  for (const part of text.matchAll(INTERVAL_PART)) {
    matched = true;
    const amount = BigInt(part[1] ?? '0');
    const unit = part[2] ?? '';
    if (unit.startsWith('year')) months += amount * 12n;
    else if (unit.startsWith('mon')) months += amount;
    else days += amount;
  }
  const time = INTERVAL_TIME.exec(text);
  let clock = 0n;
  if (time !== null) {
    matched = true;
    clock = timeMicros(time[2] ?? '0', time[3] ?? '0', time[4] ?? '0', time[5]);
    if (time[1] === '-') clock = -clock;
  }
  if (!matched) throw invalid('interval', text);
  return months * MICROS_PER_AVERAGE_MONTH + days * MICROS_PER_DAY + clock;
}

/**
 * A one-dimensional array literal (`{a,"b c",NULL}`) → its elements' texts (`null` for NULL).
 * @throws DataError for a malformed or multi-dimensional literal.
 */
export function parseArrayLiteral(text: string): (string | null)[] {
  const body = text.replace(/^\[[^\]]*\]=/, ''); // an explicit lower bound: [0:2]={...}
  if (!body.startsWith('{') || !body.endsWith('}')) throw invalid('array', text);
  const elements: (string | null)[] = [];
  let i = 1;
  const end = body.length - 1;
  if (end === 1) return elements;
  while (i <= end) {
    let value = '';
    let quoted = false;
    if (body[i] === '{') throw new DataError(`Multi-dimensional arrays are not supported: ${text}`);
    if (body[i] === '"') {
      quoted = true;
      i += 1;
      while (i < end && body[i] !== '"') {
        if (body[i] === '\\') i += 1;
        value += body[i] ?? '';
        i += 1;
      }
      i += 1;
    } else {
      while (i < end && body[i] !== ',') {
        value += body[i];
        i += 1;
      }
    }
    elements.push(!quoted && value === 'NULL' ? null : value);
    if (i < end && body[i] !== ',') throw invalid('array', text);
    i += 1;
  }
  return elements;
}
