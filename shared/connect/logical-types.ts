/**
 * Connect's logical types (`org.apache.kafka.connect.data.Decimal`, `Date`, `Time`,
 * `Timestamp`): a named schema over a base type, with conversions between the logical value
 * (what connectors and transformations see) and the raw value (what converters serialize).
 *
 * | logical type | base type | raw value                        | logical value                  |
 * |--------------|-----------|----------------------------------|--------------------------------|
 * | Decimal      | bytes     | big-endian two's-complement      | `DecimalValue` / `BigDecimal`  |
 * | Date         | int32     | days since the epoch             | `Date` at UTC midnight         |
 * | Time         | int32     | milliseconds since UTC midnight  | `Date` on 1970-01-01 (UTC)     |
 * | Timestamp    | int64     | milliseconds since the epoch     | `Date`                         |
 */
import { DataError } from './errors.js';
import { type Schema, SchemaBuilder } from './schema.js';

/** A decimal value: `unscaled × 10^-scale`. Accepted wherever a Decimal value is expected. */
export interface DecimalValue {
  readonly unscaled: bigint;
  readonly scale: number;
}

const DECIMAL_PATTERN = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * An immutable arbitrary-precision decimal, the logical value of a Decimal schema (a small
 * stand-in for Java's `BigDecimal`): `unscaled × 10^-scale`. Equality includes the scale, as
 * in Java (`1.0` and `1.00` differ); use {@link BigDecimal.compareTo} for numeric order.
 */
export class BigDecimal implements DecimalValue {
  readonly unscaled: bigint;
  readonly scale: number;

  constructor(unscaled: bigint, scale: number) {
    if (!Number.isSafeInteger(scale)) throw new DataError(`Invalid decimal scale: ${scale}`);
    this.unscaled = unscaled;
    this.scale = scale;
    Object.freeze(this);
  }

  static from(value: DecimalValue): BigDecimal {
    return value instanceof BigDecimal ? value : new BigDecimal(value.unscaled, value.scale);
  }

  /** Parses `'-12.345'`, `'1e3'`, `'0.5E-2'`; the scale is the number of fraction digits. */
  static parse(text: string): BigDecimal {
    const match = DECIMAL_PATTERN.exec(text.trim());
    const [, sign = '', whole = '', fraction = '', exponent = '0'] = match ?? [];
    if (match === null || whole + fraction === '') {
      throw new DataError(`Not a decimal number: ${JSON.stringify(text)}`);
    }
    const unscaled = BigInt(whole + fraction);
    return new BigDecimal(sign === '-' ? -unscaled : unscaled, fraction.length - Number(exponent));
  }

  /** The decimal nearest a finite number, with the shortest scale that round-trips it. */
  static fromNumber(value: number): BigDecimal {
    if (!Number.isFinite(value)) throw new DataError(`Not a finite number: ${value}`);
    return BigDecimal.parse(String(value));
  }

  /** This value at another scale; throws DataError when digits would be lost. */
  setScale(scale: number): BigDecimal {
    if (scale >= this.scale) {
      return new BigDecimal(this.unscaled * 10n ** BigInt(scale - this.scale), scale);
    }
    const divisor = 10n ** BigInt(this.scale - scale);
    if (this.unscaled % divisor !== 0n) {
      throw new DataError(`Rounding necessary to rescale ${this.toString()} to scale ${scale}`);
    }
    return new BigDecimal(this.unscaled / divisor, scale);
  }

  /** -1, 0 or 1 as this value is numerically less than, equal to or greater than `other`. */
  compareTo(other: DecimalValue): number {
    const scale = Math.max(this.scale, other.scale);
    const a = this.unscaled * 10n ** BigInt(scale - this.scale);
    const b = other.unscaled * 10n ** BigInt(scale - other.scale);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** Same unscaled value and same scale. */
  equals(other: unknown): boolean {
    return (
      typeof other === 'object' &&
      other !== null &&
      (other as DecimalValue).unscaled === this.unscaled &&
      (other as DecimalValue).scale === this.scale
    );
  }

  /** Nearest double (may lose precision). */
  toNumber(): number {
    return Number(this.toString());
  }

  /** Plain notation, like Java's `toPlainString()`: `-12.345`, `1200`, `0.001`. */
  toString(): string {
    const negative = this.unscaled < 0n;
    const digits = (negative ? -this.unscaled : this.unscaled).toString();
    let text: string;
    if (this.scale <= 0) {
      text = digits === '0' ? '0' : digits + '0'.repeat(-this.scale);
    } else {
      const padded = digits.padStart(this.scale + 1, '0');
      text = `${padded.slice(0, -this.scale)}.${padded.slice(-this.scale)}`;
    }
    return negative ? `-${text}` : text;
  }

  toJSON(): string {
    return this.toString();
  }
}

function checkName(schema: Schema, name: string, what: string): void {
  if (schema.name !== name) {
    throw new DataError(`Requested conversion of ${what} object but the schema does not match.`);
  }
}

/** Minimal big-endian two's-complement bytes of `value` (Java's `BigInteger.toByteArray`). */
export function bigintToBytes(value: bigint): Uint8Array {
  const magnitude = value < 0n ? -value - 1n : value;
  const bits = magnitude === 0n ? 0 : magnitude.toString(2).length;
  const length = Math.floor(bits / 8) + 1;
  const hex = BigInt.asUintN(length * 8, value)
    .toString(16)
    .padStart(length * 2, '0');
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** The signed integer of big-endian two's-complement bytes (Java's `new BigInteger(bytes)`). */
export function bytesToBigint(bytes: Uint8Array): bigint {
  if (bytes.length === 0) throw new DataError('Zero length BigInteger');
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return BigInt.asIntN(bytes.length * 8, BigInt(`0x${hex}`));
}

/** The Decimal logical type: bytes holding the unscaled value, `scale` as a schema parameter. */
export const LogicalDecimal = Object.freeze({
  LOGICAL_NAME: 'org.apache.kafka.connect.data.Decimal',
  SCALE_FIELD: 'scale',

  /** A builder for a Decimal schema of `scale` (version 1), to add `optional()` etc. */
  builder(scale: number): SchemaBuilder {
    return SchemaBuilder.bytes()
      .name(LogicalDecimal.LOGICAL_NAME)
      .parameter(LogicalDecimal.SCALE_FIELD, String(scale))
      .version(1);
  },

  schema(scale: number): Schema {
    return LogicalDecimal.builder(scale).build();
  },

  /** The `scale` parameter of a Decimal schema; DataError when missing or not an integer. */
  scale(schema: Schema): number {
    const text = schema.parameters[LogicalDecimal.SCALE_FIELD];
    if (text === undefined)
      throw new DataError('Invalid Decimal schema: scale parameter not found.');
    const scale = Number(text);
    if (!/^[+-]?\d+$/.test(text.trim()) || !Number.isSafeInteger(scale)) {
      throw new DataError(`Invalid scale parameter found in Decimal schema: ${text}`);
    }
    return scale;
  },

  /** Raw bytes of a decimal; DataError when its scale differs from the schema's. */
  fromLogical(schema: Schema, value: DecimalValue): Uint8Array {
    checkName(schema, LogicalDecimal.LOGICAL_NAME, 'Decimal');
    const scale = LogicalDecimal.scale(schema);
    if (value.scale !== scale) {
      throw new DataError(
        `Decimal value has mismatching scale for given Decimal schema. Schema has scale ${scale}, value has scale ${value.scale}.`,
      );
    }
    return bigintToBytes(value.unscaled);
  },

  toLogical(schema: Schema, raw: Uint8Array): BigDecimal {
    checkName(schema, LogicalDecimal.LOGICAL_NAME, 'Decimal');
    if (!(raw instanceof Uint8Array)) throw new DataError('Decimal raw value must be a Uint8Array');
    return new BigDecimal(bytesToBigint(raw), LogicalDecimal.scale(schema));
  },
});

const MILLIS_PER_DAY = 24 * 60 * 60 * 1000;

function checkDate(value: Date, what: string): number {
  const millis = value instanceof Date ? value.getTime() : Number.NaN;
  if (Number.isNaN(millis)) throw new DataError(`Invalid ${what} value: not a valid Date`);
  return millis;
}

/** The Date logical type: int32 days since the epoch; the value is a Date at UTC midnight. */
export const LogicalDate = Object.freeze({
  LOGICAL_NAME: 'org.apache.kafka.connect.data.Date',

  builder(): SchemaBuilder {
    return SchemaBuilder.int32().name(LogicalDate.LOGICAL_NAME).version(1);
  },

  schema(): Schema {
    return LogicalDate.builder().build();
  },

  /** Days since the epoch; DataError when the Date is not at UTC midnight. */
  fromLogical(schema: Schema, value: Date): number {
    checkName(schema, LogicalDate.LOGICAL_NAME, 'Date');
    const millis = checkDate(value, 'Date');
    if (millis % MILLIS_PER_DAY !== 0) {
      throw new DataError(
        'Kafka Connect Date type should not have any time fields set to non-zero values.',
      );
    }
    return millis / MILLIS_PER_DAY;
  },

  toLogical(schema: Schema, raw: number): Date {
    checkName(schema, LogicalDate.LOGICAL_NAME, 'Date');
    if (!Number.isInteger(raw)) throw new DataError(`Date raw value must be an integer: ${raw}`);
    return new Date(raw * MILLIS_PER_DAY);
  },
});

/** The Time logical type: int32 milliseconds since midnight; the value is a Date on 1970-01-01. */
export const LogicalTime = Object.freeze({
  LOGICAL_NAME: 'org.apache.kafka.connect.data.Time',

  builder(): SchemaBuilder {
    return SchemaBuilder.int32().name(LogicalTime.LOGICAL_NAME).version(1);
  },

  schema(): Schema {
    return LogicalTime.builder().build();
  },

  /** Milliseconds since midnight; DataError when the Date is not on 1970-01-01 (UTC). */
  fromLogical(schema: Schema, value: Date): number {
    checkName(schema, LogicalTime.LOGICAL_NAME, 'Time');
    const millis = checkDate(value, 'Time');
    if (millis < 0 || millis >= MILLIS_PER_DAY) {
      throw new DataError(
        'Kafka Connect Time type should not have any date fields set to non-zero values.',
      );
    }
    return millis;
  },

  toLogical(schema: Schema, raw: number): Date {
    checkName(schema, LogicalTime.LOGICAL_NAME, 'Time');
    if (!Number.isInteger(raw) || raw < 0 || raw >= MILLIS_PER_DAY) {
      throw new DataError(
        `Time values must use number of milliseconds greater than 0 and less than ${MILLIS_PER_DAY}`,
      );
    }
    return new Date(raw);
  },
});

/** The Timestamp logical type: int64 milliseconds since the epoch; the value is a Date. */
export const LogicalTimestamp = Object.freeze({
  LOGICAL_NAME: 'org.apache.kafka.connect.data.Timestamp',

  builder(): SchemaBuilder {
    return SchemaBuilder.int64().name(LogicalTimestamp.LOGICAL_NAME).version(1);
  },

  schema(): Schema {
    return LogicalTimestamp.builder().build();
  },

  /** Milliseconds since the epoch, as a number (every valid Date fits a safe integer). */
  fromLogical(schema: Schema, value: Date): number {
    checkName(schema, LogicalTimestamp.LOGICAL_NAME, 'Timestamp');
    return checkDate(value, 'Timestamp');
  },

  /** Accepts a number or a bigint (int64); DataError when outside the range of a Date. */
  toLogical(schema: Schema, raw: number | bigint): Date {
    checkName(schema, LogicalTimestamp.LOGICAL_NAME, 'Timestamp');
    const date = new Date(Number(raw));
    checkDate(date, 'Timestamp');
    return date;
  },
});

/** The names of the four logical types. */
export const LOGICAL_TYPE_NAMES: readonly string[] = Object.freeze([
  LogicalDecimal.LOGICAL_NAME,
  LogicalDate.LOGICAL_NAME,
  LogicalTime.LOGICAL_NAME,
  LogicalTimestamp.LOGICAL_NAME,
]);

/** True when `schema` is one of the four logical types. */
export function isLogicalSchema(schema: Schema | null): boolean {
  return schema?.name != null && LOGICAL_TYPE_NAMES.includes(schema.name);
}

/**
 * Logical value → raw value for any schema: the logical conversion for a logical schema,
 * `value` unchanged otherwise (and for `null`). What a converter calls before serializing.
 */
export function fromLogicalValue(schema: Schema, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (schema.name) {
    case LogicalDecimal.LOGICAL_NAME:
      return LogicalDecimal.fromLogical(schema, value as DecimalValue);
    case LogicalDate.LOGICAL_NAME:
      return LogicalDate.fromLogical(schema, value as Date);
    case LogicalTime.LOGICAL_NAME:
      return LogicalTime.fromLogical(schema, value as Date);
    case LogicalTimestamp.LOGICAL_NAME:
      return LogicalTimestamp.fromLogical(schema, value as Date);
    default:
      return value;
  }
}

/** Raw value → logical value for any schema; the inverse of {@link fromLogicalValue}. */
export function toLogicalValue(schema: Schema, raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  switch (schema.name) {
    case LogicalDecimal.LOGICAL_NAME:
      return LogicalDecimal.toLogical(schema, raw as Uint8Array);
    case LogicalDate.LOGICAL_NAME:
      return LogicalDate.toLogical(schema, raw as number);
    case LogicalTime.LOGICAL_NAME:
      return LogicalTime.toLogical(schema, raw as number);
    case LogicalTimestamp.LOGICAL_NAME:
      return LogicalTimestamp.toLogical(schema, raw as number | bigint);
    default:
      return raw;
  }
}
