import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BigDecimal } from '../../../../../shared/connect/logical-types.js';
import {
  javaBigDecimalToString,
  javaDoubleToString,
  javaFloatToString,
} from '../../../../../shared/plugins/converters/java-format.js';

/** The number of significant digits in a decimal's text (`1.0E-7` has 1, `0.0125` has 3). */
function significantDigits(text: string): number {
  return text
    .replace(/^-|[eE].*$|\./g, '')
    .replace(/^0+/, '')
    .replace(/0+$/, '').length;
}

describe('javaDoubleToString', () => {
  it.each([
    [2, '2.0'],
    [-0.5, '-0.5'],
    [0, '0.0'],
    [-0, '-0.0'],
    [100, '100.0'],
    [0.001, '0.001'],
    [9.999999e-4, '9.999999E-4'],
    [9999999, '9999999.0'],
    [1e7, '1.0E7'],
    [1e-7, '1.0E-7'],
    [1e21, '1.0E21'],
    [1e23, '1.0E23'],
    [Math.PI, '3.141592653589793'],
    [1.2345678901234568e25, '1.2345678901234568E25'],
    [Number.MAX_VALUE, '1.7976931348623157E308'],
    [Number.MIN_VALUE, '4.9E-324'],
    [Number.NaN, 'NaN'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
  ])('prints %s as Java prints %s', (value, expected) => {
    // Act
    const text = javaDoubleToString(value);

    // Assess
    expect(text).toBe(expected);
  });

  it('prints every double in as few digits as JavaScript (or two), parsing back to the same double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        // Act
        const text = javaDoubleToString(x);

        // Assess
        expect(Object.is(Number(text), x)).toBe(true);
        expect(significantDigits(text)).toBeLessThanOrEqual(
          Math.max(2, significantDigits(x.toExponential())),
        );
      }),
    );
  });
});

describe('javaFloatToString', () => {
  it.each([
    [1.5, '1.5'],
    [0.1, '0.1'],
    [0.3, '0.3'],
    [33.3, '33.3'],
    [1e10, '1.0E10'],
    [16777216, '1.6777216E7'],
    [3.4028235e38, '3.4028235E38'],
    [1.4e-45, '1.4E-45'],
  ])('prints the float nearest %s as Java prints %s', (value, expected) => {
    // Act
    const text = javaFloatToString(value);

    // Assess
    expect(text).toBe(expected);
  });

  it('prints every float so that it parses back to the same float', () => {
    fc.assert(
      fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (f) => {
        // Act
        const text = javaFloatToString(f);

        // Assess
        expect(Object.is(Math.fround(Number(text)), f)).toBe(true);
      }),
    );
  });
});

describe('javaBigDecimalToString', () => {
  it.each([
    ['-98765.43', '-98765.43'],
    ['12.50', '12.50'],
    ['0.000001', '0.000001'],
    ['0.0000001', '1E-7'],
    ['0.00000015', '1.5E-7'],
    ['1E+3', '1E+3'],
    ['0', '0'],
  ])('prints %s as Java prints %s', (decimal, expected) => {
    // Act
    const text = javaBigDecimalToString(BigDecimal.parse(decimal));

    // Assess
    expect(text).toBe(expected);
  });

  it('prints every decimal in a form that parses back to the same unscaled value and scale', () => {
    fc.assert(
      fc.property(fc.bigInt(), fc.integer({ min: -20, max: 20 }), (unscaled, scale) => {
        // Act
        const back = BigDecimal.parse(javaBigDecimalToString(new BigDecimal(unscaled, scale)));

        // Assess
        expect([back.unscaled, back.scale]).toEqual([unscaled, scale]);
      }),
    );
  });
});
