/**
 * Java's textual forms of numbers, so converters write the same bytes as Kafka Connect (whose
 * JSON goes through Jackson, which prints numbers with Java's `toString`):
 * `Double.toString`, `Float.toString` (the shortest-decimal algorithm of JDK 19+) and
 * `BigDecimal.toString`.
 */
import type { DecimalValue } from 'serverless-connect/connect';

/** A decimal `0.d1d2…dn × 10^(exponent + 1)`, i.e. `d1.d2…dn × 10^exponent`. */
interface Digits {
  readonly digits: string;
  readonly exponent: number;
}

/** `d.ddde±x` (what `toExponential` returns) → digits without trailing zeros and exponent. */
function splitExponential(text: string): Digits {
  const e = text.indexOf('e');
  const mantissa = text.slice(0, e).replace('.', '');
  const digits = mantissa.replace(/0+$/, '');
  return { digits: digits === '' ? '0' : digits, exponent: Number(text.slice(e + 1)) };
}

/** The `p`-digit decimal next to `d` (same length), one unit up or down. */
function neighbour(d: Digits, up: boolean, p: number): Digits {
  const padded = d.digits.padEnd(p, '0');
  let m = BigInt(padded) + (up ? 1n : -1n);
  let exponent = d.exponent;
  const low = 10n ** BigInt(p - 1);
  if (m >= low * 10n) {
    m /= 10n;
    exponent += 1;
  } else if (m < low) {
    m = m * 10n + 9n;
    exponent -= 1;
  }
  return { digits: m.toString().replace(/0+$/, '') || '0', exponent };
}

function toNumber(d: Digits): number {
  return Number(`${d.digits[0]}.${d.digits.slice(1) || '0'}e${d.exponent}`);
}

/**
 * The decimal Java prints for the positive finite `x`: among the shortest decimals that round
 * back to `x` (with `roundsBack`), where one and two digits count as the same length, the one
 * closest to `x`. `maxDigits` bounds the search (17 for doubles, 9 for floats).
 */
function javaDigits(x: number, roundsBack: (n: number) => boolean, maxDigits: number): Digits {
  for (let p = 2; p <= maxDigits; p++) {
    const closest = splitExponential(x.toExponential(p - 1));
    if (roundsBack(toNumber(closest))) return closest;
    // The rounding interval may be asymmetric (at powers of two): try the other side.
    const other = neighbour(closest, toNumber(closest) < x, p);
    if (roundsBack(toNumber(other))) return other;
  }
  return splitExponential(x.toExponential(maxDigits - 1));
}

/** Formats digits as Java does: plain for 10^-3 ≤ |x| < 10^7, else computerized scientific. */
function javaLayout(negative: boolean, d: Digits): string {
  const { digits, exponent } = d;
  let text: string;
  if (exponent >= -3 && exponent < 7) {
    if (exponent >= 0) {
      const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
      const fraction = digits.slice(exponent + 1);
      text = `${whole}.${fraction === '' ? '0' : fraction}`;
    } else {
      text = `0.${'0'.repeat(-exponent - 1)}${digits}`;
    }
  } else {
    text = `${digits[0]}.${digits.length > 1 ? digits.slice(1) : '0'}E${exponent}`;
  }
  return negative ? `-${text}` : text;
}

function nonFinite(x: number): string | null {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Number.POSITIVE_INFINITY) return 'Infinity';
  if (x === Number.NEGATIVE_INFINITY) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  return null;
}

/**
 * Java's `Double.toString(x)`: `2.0`, `3.141592653589793`, `1.0E-7`, `1.0E21`, `4.9E-324`,
 * `NaN`, `Infinity`.
 */
export function javaDoubleToString(x: number): string {
  const special = nonFinite(x);
  if (special !== null) return special;
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e7) {
    // JavaScript prints this range plain with the same shortest digits (a one-digit value of
    // a normal double is its own closest two-digit decimal).
    const plain = String(x);
    return plain.includes('.') ? plain : `${plain}.0`;
  }
  const shortest = splitExponential(abs.toExponential());
  const d = shortest.digits.length > 1 ? shortest : javaDigits(abs, (n) => n === abs, 17);
  return javaLayout(x < 0, d);
}

/**
 * Java's `Float.toString` of the float32 nearest `x`: `1.5`, `0.1` (not
 * `0.10000000149011612`), `1.0E10`.
 */
export function javaFloatToString(x: number): string {
  const f = Math.fround(x);
  const special = nonFinite(f);
  if (special !== null) return special;
  const abs = Math.abs(f);
  return javaLayout(
    f < 0,
    javaDigits(abs, (n) => Math.fround(n) === abs, 9),
  );
}

/**
 * Java's `BigDecimal.toString()` of `unscaled × 10^-scale`: plain when the scale is not negative
 * and the adjusted exponent is at least -6 (`-98765.43`, `12.7890`), scientific otherwise
 * (`1E+3`, `1.5E-7`).
 */
export function javaBigDecimalToString(value: DecimalValue): string {
  const negative = value.unscaled < 0n;
  const coefficient = (negative ? -value.unscaled : value.unscaled).toString();
  const scale = value.scale;
  const adjusted = -scale + (coefficient.length - 1);
  let text: string;
  if (scale >= 0 && adjusted >= -6) {
    if (scale === 0) text = coefficient;
    else if (coefficient.length > scale) {
      text = `${coefficient.slice(0, -scale)}.${coefficient.slice(-scale)}`;
    } else {
      text = `0.${'0'.repeat(scale - coefficient.length)}${coefficient}`;
    }
  } else {
    const mantissa =
      coefficient.length > 1 ? `${coefficient[0]}.${coefficient.slice(1)}` : coefficient;
    text = `${mantissa}E${adjusted > 0 ? '+' : ''}${adjusted}`;
  }
  return negative ? `-${text}` : text;
}
