/**
 * Printing dates with Joda-Time `DateTimeFormat` patterns, the syntax of Confluent's
 * `path.format` (e.g. `'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH`), in a time zone and a
 * locale. Joda letters differ from `SimpleDateFormat`'s: `Y` is the year of era (not the week
 * year), `x` the ISO week year, `w` the ISO week, `e` the ISO day of week (1 = Monday).
 *
 * Supported letters: `G C Y y x w e E D M d a K h H k m s S z Z`; text in single quotes is
 * literal (`''` is a quote); other non-letters are literal. Other letters are refused.
 */
import { type TimeZone, timeZoneOf } from '../time-zone.js';

/** One element of a compiled pattern. */
export type JodaToken =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'field'; readonly letter: string; readonly count: number };

const LETTERS = new Set('GCYyxweEDMdaKhHkmsSzZ');
const DAY = 86_400_000;

/**
 * Compiles a Joda pattern. Throws Error naming the first unsupported letter or an unclosed
 * quote.
 */
export function compileJodaPattern(pattern: string): JodaToken[] {
  const tokens: JodaToken[] = [];
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
      if (pattern.charAt(i + 1) === "'") {
        literal("'");
        i += 2;
        continue;
      }
      let text = '';
      let j = i + 1;
      for (;;) {
        if (j >= pattern.length) throw new Error(`Unterminated quote in pattern: ${pattern}`);
        if (pattern.charAt(j) === "'") {
          if (pattern.charAt(j + 1) !== "'") break;
          text += "'";
          j += 2;
        } else {
          text += pattern.charAt(j);
          j++;
        }
      }
      literal(text);
      i = j + 1;
    } else if (/[A-Za-z]/.test(c)) {
      if (!LETTERS.has(c)) throw new Error(`Illegal pattern component: ${c}`);
      let j = i;
      while (pattern.charAt(j) === c) j++;
      tokens.push({ kind: 'field', letter: c, count: j - i });
      i = j;
    } else {
      literal(c);
      i++;
    }
  }
  return tokens;
}

function pad(value: number, width: number): string {
  const digits = String(Math.abs(value)).padStart(width, '0');
  return value < 0 ? `-${digits}` : digits;
}

/** ISO week and week year (weeks start on Monday; week 1 holds the year's first Thursday). */
function isoWeek(local: Date): { week: number; weekYear: number } {
  const midnight = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate());
  const isoDay = ((local.getUTCDay() + 6) % 7) + 1;
  const thursday = new Date(midnight + (4 - isoDay) * DAY);
  const weekYear = thursday.getUTCFullYear();
  const jan1 = Date.UTC(weekYear, 0, 1);
  return { week: Math.floor((thursday.getTime() - jan1) / DAY / 7) + 1, weekYear };
}

/** Locale texts (month and day names, AM/PM, eras), computed once per locale. */
interface LocaleTexts {
  readonly months: { long: string[]; short: string[] };
  readonly days: { long: string[]; short: string[] };
  readonly halfDays: [string, string];
  readonly eras: [string, string];
}

const textsCache = new Map<string, LocaleTexts>();

function partOf(locale: string, options: Intl.DateTimeFormatOptions, at: number, type: string) {
  const parts = new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' }).formatToParts(at);
  return parts.find((p) => p.type === type)?.value ?? '';
}

function textsOf(locale: string): LocaleTexts {
  const cached = textsCache.get(locale);
  if (cached !== undefined) return cached;
  const month = (m: number, style: 'long' | 'short') =>
    partOf(locale, { month: style, day: 'numeric' }, Date.UTC(2001, m, 15), 'month');
  // 2000-12-31 was a Sunday: index 0 is Sunday, as in Date.getUTCDay.
  const day = (d: number, style: 'long' | 'short') =>
    partOf(locale, { weekday: style }, Date.UTC(2000, 11, 31 + d), 'weekday');
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  const half = (h: number) =>
    partOf(locale, { hour: 'numeric', hour12: true }, Date.UTC(2001, 0, 1, h), 'dayPeriod');
  const era = (year: number) =>
    partOf(locale, { era: 'short', year: 'numeric' }, Date.UTC(year, 0, 1), 'era');
  const texts: LocaleTexts = {
    months: {
      long: range(12).map((m) => month(m, 'long')),
      short: range(12).map((m) => month(m, 'short')),
    },
    days: {
      long: range(7).map((d) => day(d, 'long')),
      short: range(7).map((d) => day(d, 'short')),
    },
    halfDays: [half(9) || 'AM', half(21) || 'PM'],
    eras: [era(-100) || 'BC', era(2001) || 'AD'],
  };
  textsCache.set(locale, texts);
  return texts;
}

function offsetText(offsetMs: number, colon: boolean): string {
  const minutes = Math.round(Math.abs(offsetMs) / 60_000);
  const sign = offsetMs < 0 ? '-' : '+';
  return `${sign}${pad(Math.floor(minutes / 60), 2)}${colon ? ':' : ''}${pad(minutes % 60, 2)}`;
}

function zoneName(zone: TimeZone, locale: string, at: number, long: boolean): string {
  try {
    return partOf(
      locale,
      { timeZone: zone.id, timeZoneName: long ? 'long' : 'short' },
      at,
      'timeZoneName',
    );
  } catch {
    return zone.id;
  }
}

function yearText(year: number, count: number): string {
  return count === 2 ? pad(((year % 100) + 100) % 100, 2) : pad(year, count);
}

function printField(
  token: { letter: string; count: number },
  local: Date,
  ctx: { zone: TimeZone; locale: string; texts: LocaleTexts; utc: number; offset: number },
): string {
  const { letter, count } = token;
  const year = local.getUTCFullYear();
  const hour = local.getUTCHours();
  switch (letter) {
    case 'G':
      return ctx.texts.eras[year > 0 ? 1 : 0];
    case 'C':
      return pad(Math.floor((year > 0 ? year : 1 - year) / 100), count);
    case 'Y':
      return yearText(year > 0 ? year : 1 - year, count);
    case 'y':
      return yearText(year, count);
    case 'x':
      return yearText(isoWeek(local).weekYear, count);
    case 'w':
      return pad(isoWeek(local).week, count);
    case 'e':
      return pad(((local.getUTCDay() + 6) % 7) + 1, count);
    case 'E':
      return ctx.texts.days[count >= 4 ? 'long' : 'short'][local.getUTCDay()] ?? '';
    case 'D':
      return pad(
        Math.floor(
          (Date.UTC(year, local.getUTCMonth(), local.getUTCDate()) - Date.UTC(year, 0, 1)) / DAY,
        ) + 1,
        count,
      );
    case 'M':
      if (count >= 3)
        return ctx.texts.months[count >= 4 ? 'long' : 'short'][local.getUTCMonth()] ?? '';
      return pad(local.getUTCMonth() + 1, count);
    case 'd':
      return pad(local.getUTCDate(), count);
    case 'a':
      return ctx.texts.halfDays[hour < 12 ? 0 : 1];
    case 'K':
      return pad(hour % 12, count);
    case 'h':
      return pad(hour % 12 === 0 ? 12 : hour % 12, count);
    case 'H':
      return pad(hour, count);
    case 'k':
      return pad(hour === 0 ? 24 : hour, count);
    case 'm':
      return pad(local.getUTCMinutes(), count);
    case 's':
      return pad(local.getUTCSeconds(), count);
    case 'S':
      return pad(local.getUTCMilliseconds(), 3).slice(0, count).padEnd(count, '0');
    case 'z':
      return zoneName(ctx.zone, ctx.locale, ctx.utc, count >= 4);
    default:
      // 'Z': +0800, 'ZZ': +08:00, 'ZZZ': the zone id.
      return count >= 3 ? ctx.zone.id : offsetText(ctx.offset, count === 2);
  }
}

/**
 * A compiled Joda pattern bound to a zone and a locale.
 *
 * @example
 * const f = new JodaFormatter("'year'=YYYY/'month'=MM", 'Europe/Paris', 'en-US');
 * f.print(Date.UTC(2024, 11, 31, 23, 30)); // 'year=2025/month=01'
 */
export class JodaFormatter {
  readonly tokens: readonly JodaToken[];
  readonly zone: TimeZone;
  readonly locale: string;
  readonly #texts: LocaleTexts;

  /**
   * `zone` as {@link timeZoneOf} takes it; `locale` a BCP 47 tag or a Java locale (`en_US`).
   * Throws Error (or RangeError) for a bad pattern, zone or locale.
   */
  constructor(pattern: string, zone: string | TimeZone, locale: string) {
    this.tokens = compileJodaPattern(pattern);
    this.zone = typeof zone === 'string' ? timeZoneOf(zone) : zone;
    const [canonical] = Intl.getCanonicalLocales(locale.replace(/_/g, '-'));
    this.locale = canonical ?? 'en-US';
    this.#texts = textsOf(this.locale);
  }

  /** `epochMs` printed in the zone. */
  print(epochMs: number): string {
    const offset = this.zone.offsetAt(epochMs);
    const local = new Date(epochMs + offset);
    const ctx = { zone: this.zone, locale: this.locale, texts: this.#texts, utc: epochMs, offset };
    return this.tokens
      .map((t) => (t.kind === 'literal' ? t.text : printField(t, local, ctx)))
      .join('');
  }
}
