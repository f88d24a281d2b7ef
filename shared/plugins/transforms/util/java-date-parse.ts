/**
 * Parsing for {@link JavaDateFormat} (java-date-format.ts): Java `SimpleDateFormat.parse` in
 * UTC and lenient mode. Numeric fields take every digit available, or exactly `count` digits
 * when the next pattern element is also numeric ("abutting" fields like `yyyyMMdd`).
 */
import { DAYS, type DateToken, MONTHS, utcMillis } from './java-date-tokens.js';

interface ParsedFields {
  year: number | undefined;
  weekYear: number | undefined;
  bc: boolean;
  month: number | undefined;
  day: number | undefined;
  dayOfYear: number | undefined;
  hour24: number | undefined;
  hour12: number | undefined;
  pm: boolean | undefined;
  minute: number;
  second: number;
  millis: number;
  offsetMinutes: number;
}

const NUMERIC = new Set('yYwWDdFuHkKhmsS');

function isNumeric(token: DateToken | undefined): boolean {
  if (token?.kind !== 'field') return false;
  if (token.letter === 'M' || token.letter === 'L') return token.count <= 2;
  return NUMERIC.has(token.letter);
}

class Cursor {
  pos = 0;

  constructor(readonly text: string) {}

  fail(): never {
    throw new Error(`Unparseable date: "${this.text}"`);
  }

  /** Digits: exactly `width` of them when given, else as many as there are (at least one). */
  digits(width: number | undefined, signed = false): { value: number; length: number } {
    let start = this.pos;
    let negative = false;
    if (signed && (this.text[start] === '-' || this.text[start] === '+')) {
      negative = this.text[start] === '-';
      start++;
    }
    let end = start;
    const limit = width === undefined ? this.text.length : start + width;
    while (end < limit && end < this.text.length && /\d/.test(this.text.charAt(end))) end++;
    if (end === start || (width !== undefined && end - start !== width)) this.fail();
    this.pos = end;
    const value = Number(this.text.slice(start, end));
    return { value: negative ? -value : value, length: end - start };
  }

  /** The index in `names` of the longest name (case-insensitive) at the cursor. */
  oneOf(names: readonly string[]): number {
    let best = -1;
    let bestLength = 0;
    names.forEach((name, i) => {
      const candidate = this.text.slice(this.pos, this.pos + name.length);
      if (name.length > bestLength && candidate.toLowerCase() === name.toLowerCase()) {
        best = i;
        bestLength = name.length;
      }
    });
    if (best < 0) this.fail();
    this.pos += bestLength;
    return best;
  }

  /** A zone: `Z`, `UTC`/`GMT`/its long name (optionally with an offset), or `±hh`, `±hhmm`, `±hh:mm`. */
  zoneOffsetMinutes(): number {
    const rest = this.text.slice(this.pos);
    if (rest.startsWith('Z')) {
      this.pos++;
      return 0;
    }
    const named = /^(Coordinated Universal Time|UTC|GMT)/i.exec(rest);
    if (named !== null) {
      this.pos += named[0].length;
      if (!/^[+-]\d/.test(this.text.slice(this.pos))) return 0;
    }
    const offset = /^([+-])(\d{2}):?(\d{2})?/.exec(this.text.slice(this.pos));
    if (offset === null) this.fail();
    this.pos += offset[0].length;
    const minutes = Number(offset[2]) * 60 + Number(offset[3] ?? '0');
    return offset[1] === '-' ? -minutes : minutes;
  }
}

function twoDigitYear(value: number): number {
  return value < 50 ? 2000 + value : 1900 + value;
}

function parseField(
  token: Extract<DateToken, { kind: 'field' }>,
  abutting: boolean,
  cursor: Cursor,
  fields: ParsedFields,
): void {
  const width = abutting ? token.count : undefined;
  const number = () => cursor.digits(width).value;
  switch (token.letter) {
    case 'G':
      fields.bc = cursor.oneOf(['AD', 'BC']) === 1;
      return;
    case 'y':
    case 'Y': {
      const { value, length } = cursor.digits(width, true);
      const year = token.count <= 2 && length === 2 ? twoDigitYear(value) : value;
      if (token.letter === 'y') fields.year = year;
      else fields.weekYear = year;
      return;
    }
    case 'M':
    case 'L':
      if (token.count >= 3) {
        const index = cursor.oneOf([...MONTHS, ...MONTHS.map((m) => m.slice(0, 3))]);
        fields.month = (index % 12) + 1;
      } else {
        fields.month = number();
      }
      return;
    case 'E':
      cursor.oneOf([...DAYS, ...DAYS.map((d) => d.slice(0, 3))]);
      return;
    case 'a':
      fields.pm = cursor.oneOf(['AM', 'PM']) === 1;
      return;
    case 'd':
      fields.day = number();
      return;
    case 'D':
      fields.dayOfYear = number();
      return;
    case 'H':
      fields.hour24 = number();
      return;
    case 'k':
      fields.hour24 = number() % 24;
      return;
    case 'K':
      fields.hour12 = number();
      return;
    case 'h':
      fields.hour12 = number() % 12;
      return;
    case 'm':
      fields.minute = number();
      return;
    case 's':
      fields.second = number();
      return;
    case 'S':
      fields.millis = number();
      return;
    case 'z':
    case 'Z':
    case 'X':
      fields.offsetMinutes = cursor.zoneOffsetMinutes();
      return;
    default:
      number(); // w, W, F, u: read and ignored
  }
}

/** Parses `text` with compiled `tokens`; see the module comment. */
export function parseDate(tokens: readonly DateToken[], text: string): Date {
  const cursor = new Cursor(text);
  const fields: ParsedFields = {
    year: undefined,
    weekYear: undefined,
    bc: false,
    month: undefined,
    day: undefined,
    dayOfYear: undefined,
    hour24: undefined,
    hour12: undefined,
    pm: undefined,
    minute: 0,
    second: 0,
    millis: 0,
    offsetMinutes: 0,
  };
  tokens.forEach((token, i) => {
    if (token.kind === 'literal') {
      if (!text.startsWith(token.text, cursor.pos)) cursor.fail();
      cursor.pos += token.text.length;
      return;
    }
    parseField(token, isNumeric(token) && isNumeric(tokens[i + 1]), cursor, fields);
  });
  let year = fields.year ?? fields.weekYear ?? 1970;
  if (fields.bc) year = 1 - year;
  const hour = fields.hour24 ?? (fields.hour12 ?? 0) + (fields.pm === true ? 12 : 0);
  const useDayOfYear =
    fields.dayOfYear !== undefined && fields.month === undefined && fields.day === undefined;
  const month = useDayOfYear ? 0 : (fields.month ?? 1) - 1;
  const day = useDayOfYear ? (fields.dayOfYear ?? 1) : (fields.day ?? 1);
  const millis = utcMillis(year, month, day, hour, fields.minute, fields.second, fields.millis);
  const date = new Date(millis - fields.offsetMinutes * 60_000);
  if (Number.isNaN(date.getTime())) cursor.fail();
  return date;
}
