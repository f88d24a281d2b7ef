import { describe, expect, it } from 'vitest';
import { BigDecimal, LogicalDecimal } from '../../../../../../shared/connect/index.js';
import {
  builtinKind,
  type ColumnKind,
  columnMapping,
  type NumericMapping,
  numericTypmod,
} from '../../../../../../shared/plugins/connectors/postgres-source/column-types.js';
import { timeZoneOf } from '../../../../../../shared/plugins/connectors/time-zone.js';

const settings = (numericMapping: NumericMapping = 'none') => ({
  numericMapping,
  zone: timeZoneOf('UTC'),
});
/** numeric(p,s)'s type modifier. */
const typmod = (p: number, s: number) => ((p << 16) | (s & 0x7ff)) + 4;
const numeric = (p: number | null, s: number | null): ColumnKind => ({
  kind: 'numeric',
  precision: p,
  scale: s,
});

function describeSchema(kind: ColumnKind, mapping: NumericMapping = 'none'): string {
  const { schema } = columnMapping(kind, false, settings(mapping));
  return schema.name === LogicalDecimal.LOGICAL_NAME
    ? `Decimal(${schema.parameters.scale})`
    : schema.type;
}

describe('numeric type modifiers', () => {
  it('decode precision and scale, negative scales included, and none for unconstrained', () => {
    expect(numericTypmod(typmod(12, 3))).toEqual({ precision: 12, scale: 3 });
    expect(numericTypmod(typmod(5, -2))).toEqual({ precision: 5, scale: -2 });
    expect(numericTypmod(-1)).toBeNull();
    expect(builtinKind(1700, typmod(8, 2))).toEqual(numeric(8, 2));
    expect(builtinKind(1700, -1)).toEqual(numeric(null, null));
    expect(builtinKind(1560, 12)).toEqual({ kind: 'bit', length: 12 });
    expect(builtinKind(869, -1)).toEqual({ kind: 'string' }); // inet: its text
  });
});

describe('numeric.mapping', () => {
  it("maps numerics as Confluent's dialect does for each mode", () => {
    const kinds = [
      numeric(2, 0),
      numeric(9, 0),
      numeric(18, 0),
      numeric(19, 0),
      numeric(10, 2),
      numeric(30, 2),
      numeric(null, null),
    ];
    const table = (mode: NumericMapping) => kinds.map((k) => describeSchema(k, mode));
    expect(table('none')).toEqual([
      'Decimal(0)',
      'Decimal(0)',
      'Decimal(0)',
      'Decimal(0)',
      'Decimal(2)',
      'Decimal(2)',
      'string',
    ]);
    expect(table('best_fit')).toEqual([
      'int8',
      'int32',
      'int64',
      'Decimal(0)',
      'float64',
      'Decimal(2)',
      'float64',
    ]);
    expect(table('best_fit_eager_double')).toEqual([
      'int8',
      'int32',
      'int64',
      'Decimal(0)',
      'float64',
      'float64',
      'float64',
    ]);
    expect(table('precision_only')).toEqual([
      'int8',
      'int32',
      'int64',
      'Decimal(0)',
      'Decimal(2)',
      'Decimal(2)',
      'string',
    ]);
  });

  it('reads decimals at the schema scale, and refuses NaN', () => {
    const { read, schema } = columnMapping(numeric(10, 3), true, settings());
    expect(read('-12.500')).toEqual(new BigDecimal(-12500n, 3));
    expect(schema.optional).toBe(true);
    expect(schema.parameters['connect.decimal.precision']).toBe('10');
    expect(() => read('NaN')).toThrow(/Cannot represent PostgreSQL numeric value NaN/);
    expect(
      columnMapping(numeric(19, 0), false, settings('best_fit')).read('9223372036854775807'),
    ).toEqual(new BigDecimal(9223372036854775807n, 0));
    expect(
      columnMapping(numeric(18, 0), false, settings('best_fit')).read('123456789012345678'),
    ).toBe(123456789012345678n);
  });
});

describe('other types', () => {
  it('read int8 beyond 2^53 as bigint, floats with their specials, bits by length', () => {
    const int8 = columnMapping({ kind: 'int64' }, false, settings());
    expect([int8.read('42'), int8.read('9007199254740993')]).toEqual([42, 9007199254740993n]);
    const f8 = columnMapping({ kind: 'float64' }, false, settings());
    expect([f8.read('NaN'), f8.read('-Infinity'), f8.read('1e-7')]).toEqual([
      Number.NaN,
      -Infinity,
      1e-7,
    ]);
    expect(columnMapping({ kind: 'bit', length: 1 }, false, settings()).read('1')).toBe(true);
    expect(columnMapping({ kind: 'bit', length: 8 }, false, settings()).read('11111111')).toBe(-1);
    expect(
      columnMapping({ kind: 'bit', length: 10 }, false, settings()).read('1000000001'),
    ).toEqual(new Uint8Array([0x80, 0x40]));
  });

  it('read arrays element by element, and refuse a multi-dimensional value with advice', () => {
    const ints = columnMapping({ kind: 'array', element: { kind: 'int32' } }, true, settings());
    expect(ints.schema.valueSchema?.optional).toBe(true);
    expect(ints.read('{1,NULL,-3}')).toEqual([1, null, -3]);
    expect(() => ints.read('{{1},{2}}')).toThrow(/only one-dimensional arrays/);
    const stamps = columnMapping(
      { kind: 'array', element: { kind: 'timestamptz' } },
      true,
      settings(),
    );
    expect(stamps.read('{"2024-01-01 00:00:00+00"}')).toEqual([new Date('2024-01-01T00:00:00Z')]);
  });
});
