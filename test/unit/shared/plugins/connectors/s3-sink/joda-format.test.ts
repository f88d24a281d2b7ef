import { describe, expect, it } from 'vitest';
import {
  compileJodaPattern,
  JodaFormatter,
} from '../../../../../../shared/plugins/connectors/s3-sink/joda-format.js';
import { localToUtc, timeZoneOf } from '../../../../../../shared/plugins/connectors/time-zone.js';

const HOURLY = "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH";

describe('JodaFormatter', () => {
  it('prints the documented Confluent example in UTC', () => {
    // Prepare
    const formatter = new JodaFormatter(HOURLY, 'UTC', 'en-US');

    // Act
    const path = formatter.print(Date.UTC(2015, 11, 7, 15, 30));

    // Assess
    expect(path).toBe('year=2015/month=12/day=07/hour=15');
  });

  it('prints wall time of the zone on both sides of a daylight saving change', () => {
    // Prepare
    const formatter = new JodaFormatter("dd'T'HH:mm ZZ", 'America/New_York', 'en-US');

    // Act
    const before = formatter.print(Date.UTC(2024, 2, 10, 6, 30));
    const after = formatter.print(Date.UTC(2024, 2, 10, 7, 30));

    // Assess
    expect([before, after]).toEqual(['10T01:30 -05:00', '10T03:30 -04:00']);
  });

  it('rolls the date over in zones east of UTC and in fixed offsets', () => {
    // Prepare
    const paris = new JodaFormatter(HOURLY, 'Europe/Paris', 'en-US');
    const kolkata = new JodaFormatter('yyyy-MM-dd HH:mm Z', '+05:30', 'en-US');

    // Act
    const newYear = paris.print(Date.UTC(2024, 11, 31, 23, 30));
    const fixed = kolkata.print(Date.UTC(2024, 0, 1, 20, 0));

    // Assess
    expect(newYear).toBe('year=2025/month=01/day=01/hour=00');
    expect(fixed).toBe('2024-01-02 01:30 +0530');
  });

  it('reads Y as the year of era and x as the ISO week year, unlike SimpleDateFormat', () => {
    // Prepare
    const formatter = new JodaFormatter("YYYY xxxx-'W'ww e", 'UTC', 'en-US');

    // Act
    const text = formatter.print(Date.UTC(2024, 11, 30));

    // Assess
    expect(text).toBe('2024 2025-W01 1');
  });

  it('prints month and day names in the locale, and 12-hour fields', () => {
    // Prepare
    const french = new JodaFormatter('EEEE d MMMM', 'UTC', 'fr_FR');
    const english = new JodaFormatter('EEE MMM hh a D SSS yy', 'UTC', 'en-US');

    // Act
    const fr = french.print(Date.UTC(2024, 0, 1));
    const en = english.print(Date.UTC(2024, 1, 3, 15, 4, 5, 42));

    // Assess
    expect(fr).toBe('lundi 1 janvier');
    expect(en).toBe('Sat Feb 03 PM 34 042 24');
  });

  it('keeps quoted text and doubled quotes literal', () => {
    // Prepare
    const formatter = new JodaFormatter("'o''clock' HH '-' ''", 'UTC', 'en-US');

    // Act
    const text = formatter.print(Date.UTC(2024, 0, 1, 9));

    // Assess
    expect(text).toBe("o'clock 09 - '");
  });
});

describe('compileJodaPattern', () => {
  it('refuses unknown letters and unterminated quotes', () => {
    // Act and Assess
    expect(() => compileJodaPattern('YYYY/q')).toThrow('Illegal pattern component: q');
    expect(() => compileJodaPattern("'year=YYYY")).toThrow('Unterminated quote');
  });
});

describe('localToUtc', () => {
  it('maps local midnight back to UTC across a daylight saving change', () => {
    // Prepare
    const zone = timeZoneOf('America/New_York');

    // Act
    const march10 = localToUtc(zone, Date.UTC(2024, 2, 10));
    const march11 = localToUtc(zone, Date.UTC(2024, 2, 11));

    // Assess
    expect(new Date(march10).toISOString()).toBe('2024-03-10T05:00:00.000Z');
    expect(new Date(march11).toISOString()).toBe('2024-03-11T04:00:00.000Z');
  });

  it('moves a wall time inside a spring-forward gap past the gap, as Joda does', () => {
    // Prepare
    const zone = timeZoneOf('America/New_York');

    // Act
    const utc = localToUtc(zone, Date.UTC(2024, 2, 10, 2, 30));

    // Assess
    expect(new Date(utc).toISOString()).toBe('2024-03-10T07:30:00.000Z');
  });

  it('refuses an unknown zone', () => {
    // Act and Assess
    expect(() => timeZoneOf('Mars/Olympus')).toThrow(RangeError);
  });
});
