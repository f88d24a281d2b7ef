import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../shared/connect/errors.js';
import {
  LogicalDate,
  LogicalTime,
  LogicalTimestamp,
} from '../../../../../shared/connect/logical-types.js';
import { SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import {
  TimestampConverterKey,
  TimestampConverterValue,
} from '../../../../../shared/plugins/transforms/timestamp-converter.js';
import { configured, sinkRecord, thrown } from './fixtures.js';

const DATE = new Date(86_400_000);
const TIME = new Date(1_000);
const DATE_PLUS_TIME = new Date(86_401_000);
const DATE_PLUS_TIME_UNIX = 86_401_000;
const FORMAT = 'yyyy MM dd HH mm ss SSS z';
const DATE_PLUS_TIME_STRING = '1970 01 02 00 00 01 000 UTC';

const converter = (props: Record<string, string>) =>
  configured(new TimestampConverterValue(), { format: FORMAT, ...props });
const convert = (props: Record<string, string>, value: unknown) =>
  converter(props).apply(sinkRecord({ value }))?.value;

describe('TimestampConverter', () => {
  it('converts schemaless timestamps between every representation', () => {
    // Act / Assess
    expect(convert({ 'target.type': 'Timestamp' }, DATE_PLUS_TIME)).toEqual(DATE_PLUS_TIME);
    expect(convert({ 'target.type': 'Date' }, DATE_PLUS_TIME)).toEqual(DATE);
    expect(convert({ 'target.type': 'Time' }, DATE_PLUS_TIME)).toEqual(TIME);
    expect(convert({ 'target.type': 'unix' }, DATE_PLUS_TIME)).toBe(DATE_PLUS_TIME_UNIX);
    expect(convert({ 'target.type': 'string' }, DATE_PLUS_TIME)).toBe(DATE_PLUS_TIME_STRING);
    expect(convert({ 'target.type': 'Timestamp' }, DATE_PLUS_TIME_UNIX)).toEqual(DATE_PLUS_TIME);
    expect(convert({ 'target.type': 'Timestamp' }, DATE_PLUS_TIME_STRING)).toEqual(DATE_PLUS_TIME);
    expect(convert({ 'target.type': 'unix' }, BigInt(DATE_PLUS_TIME_UNIX))).toBe(
      DATE_PLUS_TIME_UNIX,
    );
  });

  it('honours unix.precision in both directions', () => {
    // Act / Assess
    expect(convert({ 'target.type': 'unix', 'unix.precision': 'seconds' }, DATE_PLUS_TIME)).toBe(
      86_401,
    );
    expect(
      convert({ 'target.type': 'unix', 'unix.precision': 'microseconds' }, DATE_PLUS_TIME),
    ).toBe(86_401_000_000);
    expect(
      convert(
        { 'target.type': 'unix', 'unix.precision': 'nanoseconds' },
        new Date(1_700_000_000_000),
      ),
    ).toBe(1_700_000_000_000_000_000n);
    expect(
      convert({ 'target.type': 'Timestamp', 'unix.precision': 'microseconds' }, 86_401_000_999),
    ).toEqual(DATE_PLUS_TIME);
    expect(convert({ 'target.type': 'Timestamp', 'unix.precision': 'seconds' }, 86_401)).toEqual(
      DATE_PLUS_TIME,
    );
  });

  it("converts schema'd values by their schema and sets the target schema", () => {
    // Prepare
    const toDate = converter({ 'target.type': 'Date' });
    const toText = converter({ 'target.type': 'string' });

    // Act
    const date = toDate.apply(
      sinkRecord({ valueSchema: LogicalTimestamp.schema(), value: DATE_PLUS_TIME }),
    );
    const text = toText.apply(
      sinkRecord({ valueSchema: Schemas.INT64, value: DATE_PLUS_TIME_UNIX }),
    );
    const optional = toDate.apply(
      sinkRecord({ valueSchema: LogicalTimestamp.builder().optional().build(), value: null }),
    );

    // Assess
    expect(date?.valueSchema).toEqual(LogicalDate.schema());
    expect(date?.value).toEqual(DATE);
    expect(text?.valueSchema).toEqual(Schemas.STRING);
    expect(text?.value).toBe(DATE_PLUS_TIME_STRING);
    expect(optional?.valueSchema?.optional).toBe(true);
    expect(optional?.value).toBeNull();
  });

  it("converts one field of a Struct, changing only that field's schema", () => {
    // Prepare
    const schema = SchemaBuilder.struct()
      .field('ts', Schemas.STRING)
      .field('other', Schemas.STRING)
      .build();
    const transform = converter({ field: 'ts', 'target.type': 'Time' });
    const value = new Struct(schema).put('ts', DATE_PLUS_TIME_STRING).put('other', 'x');

    // Act
    const out = transform.apply(sinkRecord({ valueSchema: schema, value }));

    // Assess
    expect(out?.valueSchema?.field('ts')?.schema).toEqual(LogicalTime.schema());
    expect(out?.valueSchema?.field('other')?.schema).toEqual(Schemas.STRING);
    expect((out?.value as Struct | undefined)?.get('ts')).toEqual(TIME);
    expect(value.get('ts')).toBe(DATE_PLUS_TIME_STRING);
  });

  it('converts one field of a schemaless key with the $Key variant', () => {
    // Prepare
    const transform = configured(new TimestampConverterKey(), {
      field: 'ts',
      'target.type': 'unix',
    });

    // Act
    const out = transform.apply(sinkRecord({ key: { ts: DATE_PLUS_TIME, other: 1 } }));

    // Assess
    expect(out?.key).toEqual({ ts: DATE_PLUS_TIME_UNIX, other: 1 });
  });

  it('keeps null timestamps null', () => {
    // Act / Assess
    expect(convert({ 'target.type': 'unix' }, null)).toBeNull();
    expect(convert({ field: 'ts', 'target.type': 'unix' }, { ts: null })).toEqual({ ts: null });
  });

  it('rejects values that are not timestamps and strings that do not match the format', () => {
    // Act / Assess
    expect(() => convert({ 'target.type': 'unix' }, true)).toThrow(
      new DataError('TimestampConverter does not support Boolean objects as timestamps'),
    );
    expect(() => convert({ 'target.type': 'unix' }, 'not a date')).toThrow(
      new DataError(
        `Could not parse timestamp: value (not a date) does not match pattern (${FORMAT})`,
      ),
    );
    expect(() =>
      converter({ 'target.type': 'unix' }).apply(
        sinkRecord({ valueSchema: Schemas.BOOLEAN, value: true }),
      ),
    ).toThrow(DataError);
  });

  it('rejects a missing or unknown target type and a string target without format', () => {
    // Act / Assess
    expect(thrown(() => new TimestampConverterValue().configure({}))).toMatchObject({
      name: ConfigError.name,
      key: 'target.type',
    });
    expect(
      thrown(() => new TimestampConverterValue().configure({ 'target.type': 'invalid' })),
    ).toMatchObject({
      message:
        'Invalid value invalid for configuration target.type: String must be one of: string, unix, Date, Time, Timestamp',
    });
    expect(() => new TimestampConverterValue().configure({ 'target.type': 'string' })).toThrow(
      'TimestampConverter requires format option to be specified when using string timestamps',
    );
    expect(
      thrown(() =>
        new TimestampConverterValue().configure({ 'target.type': 'unix', format: "'bad" }),
      ),
    ).toMatchObject({ name: ConfigError.name, key: 'format' });
    expect(
      thrown(() =>
        new TimestampConverterValue().configure({
          'target.type': 'unix',
          'unix.precision': 'days',
        }),
      ),
    ).toMatchObject({ name: ConfigError.name, key: 'unix.precision' });
  });
});
