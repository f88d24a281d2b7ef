import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../shared/connect/errors.js';
import {
  BigDecimal,
  bigintToBytes,
  bytesToBigint,
  fromLogicalValue,
  isLogicalSchema,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  toLogicalValue,
} from '../../../../shared/connect/logical-types.js';
import { Schemas, validateValue } from '../../../../shared/connect/schema.js';

describe('LogicalDecimal', () => {
  it('builds a bytes schema named like Connect with the scale parameter', () => {
    // Act
    const schema = LogicalDecimal.schema(2);

    // Assess
    expect(schema).toMatchObject({
      type: 'bytes',
      name: 'org.apache.kafka.connect.data.Decimal',
      version: 1,
      parameters: { scale: '2' },
    });
    expect(isLogicalSchema(schema)).toBe(true);
  });

  it.each([
    [0n, [0x00]],
    [1n, [0x01]],
    [-1n, [0xff]],
    [127n, [0x7f]],
    [128n, [0x00, 0x80]],
    [-128n, [0x80]],
    [-129n, [0xff, 0x7f]],
    [12345n, [0x30, 0x39]],
  ])('encodes %s as Java BigInteger.toByteArray does', (value, bytes) => {
    // Act + Assess
    expect([...bigintToBytes(value)]).toEqual(bytes);
    expect(bytesToBigint(new Uint8Array(bytes))).toBe(value);
  });

  it('round-trips negative and very large decimals', () => {
    // Prepare
    const schema = LogicalDecimal.schema(4);
    const values = [BigDecimal.parse('-12.3456'), new BigDecimal(-(10n ** 40n) + 7n, 4)];

    // Act
    const back = values.map((v) =>
      LogicalDecimal.toLogical(schema, LogicalDecimal.fromLogical(schema, v)),
    );

    // Assess
    expect(back.map(String)).toEqual(['-12.3456', '-999999999999999999999999999999999999.9993']);
  });

  it('rejects a value whose scale differs from the schema', () => {
    // Act + Assess
    expect(() =>
      LogicalDecimal.fromLogical(LogicalDecimal.schema(2), BigDecimal.parse('1.5')),
    ).toThrow(/Schema has scale 2, value has scale 1/);
  });

  it('rejects a schema without a valid scale parameter', () => {
    // Act + Assess
    expect(() => LogicalDecimal.scale(Schemas.BYTES)).toThrow('scale parameter not found');
    expect(() =>
      LogicalDecimal.scale(LogicalDecimal.builder(0).parameter('scale', 'x').build()),
    ).toThrow(/Invalid scale parameter/);
  });

  it('rejects empty bytes', () => {
    // Act + Assess
    expect(() => LogicalDecimal.toLogical(LogicalDecimal.schema(0), new Uint8Array())).toThrow(
      DataError,
    );
  });

  it('round-trips arbitrary unscaled values and scales through bytes', () => {
    fc.assert(
      fc.property(fc.bigInt(), fc.integer({ min: -30, max: 30 }), (unscaled, scale) => {
        // Prepare
        const schema = LogicalDecimal.schema(scale);

        // Act
        const back = LogicalDecimal.toLogical(
          schema,
          LogicalDecimal.fromLogical(schema, new BigDecimal(unscaled, scale)),
        );

        // Assess
        expect(back.unscaled).toBe(unscaled);
        expect(back.scale).toBe(scale);
      }),
    );
  });

  it('is the value type the validator expects for Decimal schemas', () => {
    // Act + Assess
    expect(() => validateValue(LogicalDecimal.schema(1), new BigDecimal(5n, 1))).not.toThrow();
    expect(() => validateValue(LogicalDecimal.schema(1), { unscaled: 5n, scale: 1 })).not.toThrow();
    expect(() => validateValue(LogicalDecimal.schema(1), new Uint8Array([5]))).toThrow(
      /logical type org.apache.kafka.connect.data.Decimal/,
    );
  });
});

describe('BigDecimal', () => {
  it.each([
    ['0', 0n, 0, '0'],
    ['-0.05', -5n, 2, '-0.05'],
    ['1e3', 1n, -3, '1000'],
    ['12.50', 1250n, 2, '12.50'],
    ['.5', 5n, 1, '0.5'],
  ])('parses %s', (text, unscaled, scale, printed) => {
    // Act
    const value = BigDecimal.parse(text);

    // Assess
    expect([value.unscaled, value.scale, value.toString()]).toEqual([unscaled, scale, printed]);
  });

  it('rejects text that is not a number', () => {
    // Act + Assess
    expect(() => BigDecimal.parse('1.2.3')).toThrow(DataError);
    expect(() => BigDecimal.parse('')).toThrow(DataError);
  });

  it('rescales exactly or refuses', () => {
    // Prepare
    const value = BigDecimal.parse('1.50');

    // Act + Assess
    expect(value.setScale(4).toString()).toBe('1.5000');
    expect(value.setScale(1).toString()).toBe('1.5');
    expect(() => value.setScale(0)).toThrow(/Rounding necessary/);
  });

  it('compares numerically and equals by scale too', () => {
    // Prepare
    const a = BigDecimal.parse('1.0');
    const b = BigDecimal.parse('1.00');

    // Act + Assess
    expect(a.compareTo(b)).toBe(0);
    expect(a.equals(b)).toBe(false);
    expect(BigDecimal.fromNumber(0.1).compareTo(BigDecimal.parse('0.2'))).toBe(-1);
    expect(BigDecimal.parse('-2.5').toNumber()).toBe(-2.5);
  });
});

describe('LogicalDate', () => {
  it('converts a UTC midnight Date to days since the epoch and back', () => {
    // Prepare
    const schema = LogicalDate.schema();
    const date = new Date(Date.UTC(2024, 1, 29));

    // Act
    const raw = LogicalDate.fromLogical(schema, date);

    // Assess
    expect(raw).toBe(19782);
    expect(LogicalDate.toLogical(schema, raw)).toEqual(date);
    expect(LogicalDate.toLogical(schema, -1)).toEqual(new Date(Date.UTC(1969, 11, 31)));
  });

  it('rejects a Date with a time of day', () => {
    // Act + Assess
    expect(() => LogicalDate.fromLogical(LogicalDate.schema(), new Date(1000))).toThrow(
      'Kafka Connect Date type should not have any time fields set to non-zero values.',
    );
  });

  it('rejects a schema that is not a Date schema', () => {
    // Act + Assess
    expect(() => LogicalDate.fromLogical(Schemas.INT32, new Date(0))).toThrow(
      'Requested conversion of Date object but the schema does not match.',
    );
  });
});

describe('LogicalTime', () => {
  it('converts milliseconds of the day both ways', () => {
    // Prepare
    const schema = LogicalTime.schema();

    // Act + Assess
    expect(LogicalTime.fromLogical(schema, new Date(Date.UTC(1970, 0, 1, 13, 5, 1, 2)))).toBe(
      47101002,
    );
    expect(LogicalTime.toLogical(schema, 47101002).toISOString()).toBe('1970-01-01T13:05:01.002Z');
  });

  it('rejects a Date on another day and out-of-range millis', () => {
    // Act + Assess
    expect(() =>
      LogicalTime.fromLogical(LogicalTime.schema(), new Date(Date.UTC(2020, 0, 1))),
    ).toThrow(/should not have any date fields/);
    expect(() => LogicalTime.toLogical(LogicalTime.schema(), 86_400_000)).toThrow(DataError);
  });
});

describe('LogicalTimestamp', () => {
  it('converts epoch millis, as number or bigint, both ways', () => {
    // Prepare
    const schema = LogicalTimestamp.schema();
    const date = new Date('2024-05-01T10:00:00.123Z');

    // Act + Assess
    expect(schema.type).toBe('int64');
    expect(LogicalTimestamp.fromLogical(schema, date)).toBe(date.getTime());
    expect(LogicalTimestamp.toLogical(schema, date.getTime())).toEqual(date);
    expect(LogicalTimestamp.toLogical(schema, BigInt(date.getTime()))).toEqual(date);
  });

  it('rejects an invalid Date', () => {
    // Act + Assess
    expect(() =>
      LogicalTimestamp.fromLogical(LogicalTimestamp.schema(), new Date(Number.NaN)),
    ).toThrow(DataError);
  });
});

describe('fromLogicalValue and toLogicalValue', () => {
  it('convert logical schemas and pass other values through', () => {
    // Prepare
    const date = new Date(Date.UTC(2000, 0, 1));

    // Act + Assess
    expect(fromLogicalValue(LogicalDate.schema(), date)).toBe(10957);
    expect(toLogicalValue(LogicalDate.schema(), 10957)).toEqual(date);
    expect(fromLogicalValue(Schemas.STRING, 'x')).toBe('x');
    expect(toLogicalValue(LogicalDecimal.schema(1), null)).toBeNull();
  });
});
