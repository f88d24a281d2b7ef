/**
 * The pattern compiler and calendar helpers behind {@link JavaDateFormat} (java-date-format.ts)
 * and its parser (java-date-parse.ts).
 */

/** Throws the Error Java's `SimpleDateFormat` raises for an invalid pattern. */
export function invalidPattern(message: string): never {
  throw new Error(message);
}

/** Epoch millis of a UTC date-time; out-of-range fields roll over; years 0-99 are literal. */
export function utcMillis(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
  millis = 0,
): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime();
}

/** One compiled pattern element: literal text, or a letter repeated `count` times. */
export type DateToken =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'field'; readonly letter: string; readonly count: number };

const LETTERS = new Set('GyYMLwWDdFEuaHkKhmsSzZX');

export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;
export const DAYS = [
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
] as const;

/** Splits `pattern` into tokens; throws Error with Java's message for an invalid pattern. */
export function compilePattern(pattern: string): DateToken[] {
  const tokens: DateToken[] = [];
  const literal = (text: string) => {
    const last = tokens[tokens.length - 1];
    if (last?.kind === 'literal')
      tokens[tokens.length - 1] = { kind: 'literal', text: last.text + text };
    else tokens.push({ kind: 'literal', text });
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern.charAt(i);
    if (c === "'") {
      if (pattern[i + 1] === "'") {
        literal("'");
        i += 2;
        continue;
      }
      let text = '';
      i++;
      for (;;) {
        if (i >= pattern.length) invalidPattern('Unterminated quote');
        if (pattern[i] === "'") {
          if (pattern[i + 1] === "'") {
            text += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        text += pattern[i];
        i++;
      }
      literal(text);
      continue;
    }
    if (/[A-Za-z]/.test(c)) {
      if (!LETTERS.has(c)) invalidPattern(`Illegal pattern character '${c}'`);
      let count = 1;
      while (pattern[i + count] === c) count++;
      if (c === 'X' && count > 3) invalidPattern(`invalid ISO 8601 format: length=${count}`);
      tokens.push({ kind: 'field', letter: c, count });
      i += count;
      continue;
    }
    literal(c);
    i++;
  }
  return tokens;
}
