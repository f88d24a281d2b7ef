/**
 * Time zones as Kafka Connect's Java connectors take them (Joda-Time's `DateTimeZone`, Java's
 * `ZoneId`): IANA ids through `Intl`, plus fixed offsets (`+08:00`, `-0700`, `UTC+05:30`), which
 * `Intl` on Node 20 does not accept. For the S3 sink's time-based partitioner (`timezone`) and
 * the PostgreSQL source's `db.timezone`.
 */

/** A time zone: its id and its offset from UTC at any instant. */
export interface TimeZone {
  readonly id: string;
  /** Milliseconds to add to a UTC instant to get the local wall time at `epochMs`. */
  offsetAt(epochMs: number): number;
}

const FIXED_OFFSET = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$/;
const MINUTE = 60_000;
const CACHE_LIMIT = 4096;

function fixedZone(id: string, sign: string, hours: string, minutes: string | undefined): TimeZone {
  const h = Number(hours);
  const m = Number(minutes ?? '0');
  if (h > 18 || m > 59) throw new RangeError(`Invalid time zone offset: ${id}`);
  const offset = (sign === '-' ? -1 : 1) * (h * 60 + m) * MINUTE;
  return { id, offsetAt: () => offset };
}

/** An IANA zone; offsets are read through `Intl` and cached per minute. */
function intlZone(id: string): TimeZone {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: id,
    hourCycle: 'h23',
    era: 'short',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  });
  const cache = new Map<number, number>();
  return {
    id: format.resolvedOptions().timeZone,
    offsetAt(epochMs) {
      const minute = Math.floor(epochMs / MINUTE);
      const cached = cache.get(minute);
      if (cached !== undefined) return cached;
      const fields: Record<string, number> = {};
      let bc = false;
      for (const part of format.formatToParts(minute * MINUTE)) {
        if (part.type === 'era') bc = part.value.startsWith('B');
        else if (part.type !== 'literal') fields[part.type] = Number(part.value);
      }
      const year = bc ? 1 - (fields.year ?? 0) : (fields.year ?? 0);
      const local = new Date(0);
      local.setUTCFullYear(year, (fields.month ?? 1) - 1, fields.day ?? 1);
      local.setUTCHours(fields.hour ?? 0, fields.minute ?? 0, 0, 0);
      const offset = local.getTime() - minute * MINUTE;
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(minute, offset);
      return offset;
    },
  };
}

/**
 * The zone named `id`: `UTC`, an IANA id (`America/Los_Angeles`) or a fixed offset
 * (`+08:00`, `-0700`, `UTC+5`). Throws RangeError for an unknown id.
 */
export function timeZoneOf(id: string): TimeZone {
  const fixed = FIXED_OFFSET.exec(id);
  if (fixed !== null) return fixedZone(id, fixed[1] ?? '+', fixed[2] ?? '0', fixed[3]);
  if (id === 'UTC' || id === 'GMT' || id === 'Z') return { id: 'UTC', offsetAt: () => 0 };
  return intlZone(id);
}

/**
 * The UTC instant of the local wall time `localMs` (epoch milliseconds as if local were UTC),
 * as Joda's `DateTimeZone.convertLocalToUTC(localMs, false)` computes it (the time-based
 * partitioner relies on it to floor timestamps in local time).
 */
export function localToUtc(zone: TimeZone, localMs: number): number {
  const offsetLocal = zone.offsetAt(localMs);
  let offset = zone.offsetAt(localMs - offsetLocal);
  // Joda keeps the first guess west of UTC when a transition lies between the two guesses.
  if (offset !== offsetLocal && offsetLocal < 0 && zone.offsetAt(localMs - offset) !== offset) {
    offset = offsetLocal;
  }
  return localMs - offset;
}
