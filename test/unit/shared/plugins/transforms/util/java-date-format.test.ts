import { describe, expect, it } from 'vitest';
import { JavaDateFormat } from '../../../../../../shared/plugins/transforms/util/java-date-format.js';

const instant = new Date(Date.UTC(2017, 0, 3, 18, 30, 1, 864)); // a Tuesday

describe('JavaDateFormat', () => {
  it('formats the common SimpleDateFormat letters in UTC', () => {
    // Act / Assess
    expect(new JavaDateFormat('yyyyMMdd').format(instant)).toBe('20170103');
    expect(new JavaDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSSZ").format(instant)).toBe(
      '2017-01-03T18:30:01.864+0000',
    );
    expect(new JavaDateFormat('yy-M-d h:m:s a').format(instant)).toBe('17-1-3 6:30:1 PM');
    expect(new JavaDateFormat('EEE, d MMM yyyy').format(instant)).toBe('Tue, 3 Jan 2017');
    expect(new JavaDateFormat('EEEE MMMM D u z X').format(instant)).toBe(
      'Tuesday January 3 2 UTC Z',
    );
    expect(new JavaDateFormat("''HH'o''clock'''").format(instant)).toBe("'18o'clock'");
    expect(new JavaDateFormat('k K G').format(new Date(Date.UTC(2017, 0, 1, 0)))).toBe('24 0 AD');
  });

  it('formats US week-of-year fields, rolling the last days of a year into week 1', () => {
    // Act / Assess
    expect(new JavaDateFormat('w Y').format(new Date(Date.UTC(2017, 0, 1)))).toBe('1 2017');
    expect(new JavaDateFormat('w Y').format(new Date(Date.UTC(2016, 11, 31)))).toBe('53 2016');
    expect(new JavaDateFormat('w Y').format(new Date(Date.UTC(2019, 11, 30)))).toBe('1 2020');
  });

  it('parses what it formats', () => {
    // Prepare
    const patterns = [
      "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'",
      'yyyyMMddHHmmssSSS',
      'dd MMM yyyy hh:mm:ss.SSS a',
      'EEEE, MMMM d, yyyy HH:mm:ss.SSS zzzz',
    ];

    // Act / Assess
    for (const pattern of patterns) {
      const format = new JavaDateFormat(pattern);
      expect(format.parse(format.format(instant))).toEqual(instant);
    }
  });

  it('parses zone offsets, rolls over out-of-range fields and ignores trailing text', () => {
    // Act / Assess
    expect(new JavaDateFormat('yyyy-MM-dd HH:mm XXX').parse('2017-01-03 20:30 +02:00')).toEqual(
      new Date(Date.UTC(2017, 0, 3, 18, 30)),
    );
    expect(new JavaDateFormat('yyyy-MM-dd HH:mm Z').parse('2017-01-03 13:30 -0500')).toEqual(
      new Date(Date.UTC(2017, 0, 3, 18, 30)),
    );
    expect(new JavaDateFormat('yyyy-MM-dd').parse('2017-13-01')).toEqual(
      new Date(Date.UTC(2018, 0, 1)),
    );
    expect(new JavaDateFormat('yyyy-MM-dd').parse('2017-01-03 and more')).toEqual(
      new Date(Date.UTC(2017, 0, 3)),
    );
    expect(new JavaDateFormat('yy-MM-dd').parse('49-01-01').getUTCFullYear()).toBe(2049);
    expect(new JavaDateFormat('yyyy').parse('0017').getUTCFullYear()).toBe(17);
  });

  it('rejects text that does not match', () => {
    // Act / Assess
    expect(() => new JavaDateFormat('yyyy-MM-dd').parse('2017/01/03')).toThrow(
      'Unparseable date: "2017/01/03"',
    );
    expect(() => new JavaDateFormat('MMM').parse('Foo')).toThrow('Unparseable date');
  });

  it("rejects invalid patterns with Java's messages", () => {
    // Act / Assess
    expect(() => new JavaDateFormat('yyyy-qq')).toThrow("Illegal pattern character 'q'");
    expect(() => new JavaDateFormat("'open")).toThrow('Unterminated quote');
    expect(() => new JavaDateFormat('XXXX')).toThrow('invalid ISO 8601 format: length=4');
  });
});
