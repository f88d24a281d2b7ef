/**
 * A `java.text.SimpleDateFormat` work-alike fixed to UTC and the US locale, as Connect's
 * TimestampRouter and TimestampConverter configure theirs. Supported letters: `G y Y M L w W D
 * d F E u a H k K h m s S z Z X`, quoted text (`'T'`) and `''` for a quote. Parsing is
 * lenient like Java's default (out-of-range fields roll over) and ignores trailing text.
 * Two-digit years (`yy`) parse into 1950–2049 (Java uses a window around the current date).
 */
import { parseDate } from './java-date-parse.js';
import { compilePattern, DAYS, type DateToken, MONTHS, utcMillis } from './java-date-tokens.js';

export { compilePattern, type DateToken } from './java-date-tokens.js';

function pad(value: number, width: number): string {
  const digits = String(Math.abs(value)).padStart(width, '0');
  return value < 0 ? `-${digits}` : digits;
}

const MILLIS_PER_DAY = 86_400_000;

function midnight(date: Date): number {
  return utcMillis(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}

/** Day of the year, 1-based. */
function dayOfYear(date: Date): number {
  return (midnight(date) - utcMillis(date.getUTCFullYear(), 0, 1)) / MILLIS_PER_DAY + 1;
}

/** US week fields: weeks start on Sunday and week 1 is the week holding January 1st. */
function weekOfYear(date: Date): { week: number; weekYear: number } {
  const year = date.getUTCFullYear();
  const nextJan1 = utcMillis(year + 1, 0, 1);
  const sundayOf = (millis: number) => millis - new Date(millis).getUTCDay() * MILLIS_PER_DAY;
  if (sundayOf(midnight(date)) === sundayOf(nextJan1)) return { week: 1, weekYear: year + 1 };
  const jan1Weekday = new Date(utcMillis(year, 0, 1)).getUTCDay();
  return { week: Math.floor((dayOfYear(date) - 1 + jan1Weekday) / 7) + 1, weekYear: year };
}

function formatField(letter: string, count: number, date: Date): string {
  const year = date.getUTCFullYear();
  const hours = date.getUTCHours();
  switch (letter) {
    case 'G':
      return year > 0 ? 'AD' : 'BC';
    case 'y':
    case 'Y': {
      const y = letter === 'y' ? year : weekOfYear(date).weekYear;
      const eraYear = y > 0 ? y : 1 - y;
      return count === 2 ? pad(eraYear % 100, 2) : pad(eraYear, count);
    }
    case 'M':
    case 'L': {
      const month = date.getUTCMonth();
      if (count >= 4) return MONTHS[month] ?? '';
      if (count === 3) return (MONTHS[month] ?? '').slice(0, 3);
      return pad(month + 1, count);
    }
    case 'w':
      return pad(weekOfYear(date).week, count);
    case 'W': {
      const first = new Date(date.getTime());
      first.setUTCDate(1);
      return pad(Math.floor((date.getUTCDate() - 1 + first.getUTCDay()) / 7) + 1, count);
    }
    case 'D':
      return pad(dayOfYear(date), count);
    case 'd':
      return pad(date.getUTCDate(), count);
    case 'F':
      return pad(Math.floor((date.getUTCDate() - 1) / 7) + 1, count);
    case 'E': {
      const day = DAYS[date.getUTCDay()] ?? '';
      return count >= 4 ? day : day.slice(0, 3);
    }
    case 'u':
      return pad(date.getUTCDay() === 0 ? 7 : date.getUTCDay(), count);
    case 'a':
      return hours < 12 ? 'AM' : 'PM';
    case 'H':
      return pad(hours, count);
    case 'k':
      return pad(hours === 0 ? 24 : hours, count);
    case 'K':
      return pad(hours % 12, count);
    case 'h':
      return pad(hours % 12 === 0 ? 12 : hours % 12, count);
    case 'm':
      return pad(date.getUTCMinutes(), count);
    case 's':
      return pad(date.getUTCSeconds(), count);
    case 'S':
      return pad(date.getUTCMilliseconds(), count);
    case 'z':
      return count >= 4 ? 'Coordinated Universal Time' : 'UTC';
    case 'Z':
      return '+0000';
    default:
      return 'Z'; // 'X': ISO 8601 zone, which is Z for UTC
  }
}

/**
 * A compiled date pattern in UTC (Java's `SimpleDateFormat` with `setTimeZone(UTC)`).
 *
 * @example
 * new JavaDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").format(new Date(0)); // 1970-01-01T00:00:00.000Z
 */
export class JavaDateFormat {
  readonly tokens: readonly DateToken[];

  /** Throws Error (Java's IllegalArgumentException message) for an invalid pattern. */
  constructor(readonly pattern: string) {
    this.tokens = Object.freeze(compilePattern(pattern));
  }

  format(date: Date): string {
    return this.tokens
      .map((t) => (t.kind === 'literal' ? t.text : formatField(t.letter, t.count, date)))
      .join('');
  }

  /** The instant `text` denotes; throws Error(`Unparseable date: "text"`) when it does not match. */
  parse(text: string): Date {
    return parseDate(this.tokens, text);
  }

  toString(): string {
    return this.pattern;
  }
}
