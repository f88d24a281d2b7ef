import { describe, expect, it } from 'vitest';
import { BigDecimal } from '../../../../../../shared/connect/logical-types.js';
import {
  byteValue,
  intValue,
  javaFloatToString,
  longValue,
  NumberFormatError,
  parseJavaDouble,
  parseJavaInteger,
  shortValue,
} from '../../../../../../shared/plugins/transforms/util/java-numbers.js';

describe('java-numbers', () => {
  it('narrows like Java casts', () => {
    // Act / Assess
    expect(byteValue(300)).toBe(44);
    expect(byteValue(-129)).toBe(127);
    expect(shortValue(70000)).toBe(4464);
    expect(intValue(1e20)).toBe(2147483647);
    expect(intValue(Number.NaN)).toBe(0);
    expect(intValue(2n ** 40n + 5n)).toBe(5);
    expect(longValue(1e30)).toBe(2n ** 63n - 1n);
    expect(longValue(-12.9)).toBe(-12n);
    expect(intValue(new BigDecimal(-1299n, 2))).toBe(-12);
  });

  it('parses integers and doubles as Java does', () => {
    // Act / Assess
    expect(parseJavaInteger('+127', 8)).toBe(127);
    expect(() => parseJavaInteger('128', 8)).toThrow(NumberFormatError);
    expect(() => parseJavaInteger(' 1', 32)).toThrow(NumberFormatError);
    expect(parseJavaInteger('9223372036854775807', 64)).toBe(9223372036854775807n);
    expect(parseJavaDouble(' 1.5e3d ')).toBe(1500);
    expect(parseJavaDouble('-Infinity')).toBe(Number.NEGATIVE_INFINITY);
    expect(() => parseJavaDouble('1,5')).toThrow(NumberFormatError);
  });

  it('prints floats with the fewest digits that read back', () => {
    // Act / Assess
    expect(javaFloatToString(Math.fround(0.1))).toBe('0.1');
    expect(javaFloatToString(Math.fround(3.4028235e38))).toBe('3.4028235E38');
    expect(javaFloatToString(1)).toBe('1.0');
  });
});
