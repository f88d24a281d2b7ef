import { describe, expect, it } from 'vitest';
import { BigDecimal } from '../../../../../../shared/connect/logical-types.js';
import {
  columnMapping,
  type TypeMappingOptions,
  type UserType,
} from '../../../../../../shared/plugins/connectors/postgres-cdc/column-types.js';
import { OID } from '../../../../../../shared/plugins/connectors/postgres-cdc/type-oids.js';

const options: TypeMappingOptions = {
  decimalHandling: 'precise',
  timePrecision: 'adaptive',
  unavailablePlaceholder: '__debezium_unavailable_value',
};
const column = (typeOid: number, typmod = -1, notNull = false) => ({
  name: 'c',
  typeOid,
  typmod,
  notNull,
});

describe('columnMapping', () => {
  it('reads numeric typmods into Decimal scale and precision, negative scales included', () => {
    const money = columnMapping(column(OID.NUMERIC, ((12 << 16) | 3) + 4), options);
    const negative = columnMapping(column(OID.NUMERIC, ((5 << 16) | (-2 & 0x7ff)) + 4), options);

    expect(money.schema.parameters).toEqual({ scale: '3', 'connect.decimal.precision': '12' });
    expect(money.read('1.5')).toEqual(new BigDecimal(1500n, 3));
    expect(negative.schema.parameters.scale).toBe('-2');
    expect(
      columnMapping(column(OID.NUMERIC, ((12 << 16) | 3) + 4), {
        ...options,
        decimalHandling: 'double',
      }).read('1.5'),
    ).toBe(1.5);
  });

  it('makes NOT NULL columns required and gives their fallback for a missing value', () => {
    const required = columnMapping(column(OID.INT4, -1, true), options);
    const optional = columnMapping(column(OID.TEXT), options);

    expect(required.schema.optional).toBe(false);
    expect(required.fallback).toBe(0);
    expect(optional.schema.optional).toBe(true);
  });

  it("stands in Debezium's placeholder for unchanged TOASTed strings, bytes and string arrays", () => {
    expect(columnMapping(column(OID.TEXT), options).unavailable).toBe(
      '__debezium_unavailable_value',
    );
    expect(
      new TextDecoder().decode(columnMapping(column(OID.BYTEA), options).unavailable as Uint8Array),
    ).toBe('__debezium_unavailable_value');
    expect(columnMapping(column(1009), options).unavailable).toEqual([
      '__debezium_unavailable_value',
    ]);
    expect(columnMapping(column(OID.INT8), options).unavailable).toBeNull();
  });

  it('maps enums, domains and arrays of user types from their catalog description', () => {
    const types = new Map<number, UserType>([
      [70_001, { kind: 'enum', labels: ['sad', 'happy'] }],
      [70_002, { kind: 'array', elementOid: 70_001 }],
      [70_003, { kind: 'domain', baseOid: OID.INT8, baseTypmod: -1 }],
    ]);
    const moods = columnMapping(column(70_002), options, types);

    expect(columnMapping(column(70_001), options, types).schema.name).toBe('io.debezium.data.Enum');
    expect(moods.schema.type).toBe('array');
    expect(moods.schema.valueSchema?.parameters).toEqual({ allowed: 'sad,happy' });
    expect(moods.read('{sad,happy}')).toEqual(['sad', 'happy']);
    expect(columnMapping(column(70_003), options, types).read('12')).toBe(12);
  });

  it('names the column when its text is not its type', () => {
    expect(() => columnMapping(column(OID.INT4), options).read('x')).toThrow(
      /Column c: Invalid PostgreSQL integer value/,
    );
  });
});
