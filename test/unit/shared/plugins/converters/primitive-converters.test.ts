import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../../../shared/connect/headers.js';
import { Schemas } from '../../../../../shared/connect/schema.js';
import { BooleanConverter } from '../../../../../shared/plugins/converters/boolean-converter.js';
import {
  DoubleConverter,
  FloatConverter,
  IntegerConverter,
  LongConverter,
  ShortConverter,
} from '../../../../../shared/plugins/converters/number-converters.js';

// Byte compatibility with Connect is proven by primitive-converter-vectors.test.ts; these are
// the cases Java cannot express (JS values outside a type, bigint vs number, buffer views).

const write = (c: LongConverter | IntegerConverter | ShortConverter, value: unknown) =>
  c.fromConnectData('topic', EMPTY_HEADERS, null, value);
const hex = (bytes: Uint8Array | null) =>
  bytes === null ? null : Buffer.from(bytes).toString('hex');

describe('LongConverter', () => {
  it('writes a bigint beyond the safe integers and reads it back as that bigint', () => {
    // Prepare
    const c = new LongConverter();
    c.configure({}, true);

    // Act
    const bytes = write(c, 2n ** 62n + 1n);
    const read = c.toConnectData('topic', EMPTY_HEADERS, bytes);

    // Assess
    expect(hex(bytes)).toBe('4000000000000001');
    expect(read).toEqual({ schema: Schemas.OPTIONAL_INT64, value: 2n ** 62n + 1n });
  });

  it.each([
    ['an unsafe integer number', 2 ** 53],
    ['a fraction', 1.5],
    ['a bigint beyond int64', 2n ** 63n],
    ['a numeric string', '42'],
  ])('rejects %s with a DataError naming what it accepts', (_case, value) => {
    // Act
    const act = () => write(new LongConverter(), value);

    // Assess
    expect(act).toThrow(DataError);
    expect(act).toThrow(/^Failed to serialize to long \(was .*bigint in the int64 range\)$/);
  });
});

describe('IntegerConverter and ShortConverter', () => {
  it.each([
    ['IntegerConverter', 2 ** 31, 'integer'],
    ['IntegerConverter', 7n, 'integer'],
    ['ShortConverter', 32768, 'short'],
    ['ShortConverter', -32769, 'short'],
    ['ShortConverter', 0.5, 'short'],
  ] as const)('%s rejects %s, which is not of its type', (name, value, typeName) => {
    // Prepare
    const converter = name === 'IntegerConverter' ? new IntegerConverter() : new ShortConverter();

    // Act
    const act = () => write(converter, value);

    // Assess
    expect(act).toThrow(DataError);
    expect(act).toThrow(`Failed to serialize to ${typeName} (was`);
  });
});

describe('FloatConverter and DoubleConverter', () => {
  it('rounds a number to the nearest float32, as a Java (float) cast', () => {
    // Prepare
    const c = new FloatConverter();

    // Act
    const tenth = c.toConnectData(
      't',
      EMPTY_HEADERS,
      c.fromConnectData('t', EMPTY_HEADERS, null, 0.1),
    );
    const huge = c.toConnectData(
      't',
      EMPTY_HEADERS,
      c.fromConnectData('t', EMPTY_HEADERS, null, 1e39),
    );

    // Assess
    expect(tenth.value).toBe(Math.fround(0.1));
    expect(huge.value).toBe(Number.POSITIVE_INFINITY);
  });

  it('keeps a double exactly, -0 included', () => {
    // Prepare
    const c = new DoubleConverter();

    // Act
    const read = c.toConnectData(
      't',
      EMPTY_HEADERS,
      c.fromConnectData('t', EMPTY_HEADERS, null, -0),
    );

    // Assess
    expect(Object.is(read.value, -0)).toBe(true);
    expect(read.schema).toBe(Schemas.OPTIONAL_FLOAT64);
  });
});

describe('number converters', () => {
  it('read from a view into a larger buffer (a Kafka record slice)', () => {
    // Prepare
    const record = Buffer.from('ffff0000002aff', 'hex');

    // Act
    const read = new IntegerConverter().toConnectData('t', EMPTY_HEADERS, record.subarray(2, 6));

    // Assess
    expect(read.value).toBe(42);
  });

  it('write null for an undefined value and ignore the schema, as Connect', () => {
    // Prepare
    const c = new LongConverter();

    // Act
    const nothing = c.fromConnectData('t', EMPTY_HEADERS, Schemas.INT64, undefined);
    const stringSchema = c.fromConnectData('t', EMPTY_HEADERS, Schemas.STRING, 1);

    // Assess
    expect(nothing).toBeNull();
    expect(hex(stringSchema)).toBe('0000000000000001');
  });
});

describe('primitive converter config', () => {
  const converters = () => [
    new LongConverter(),
    new IntegerConverter(),
    new ShortConverter(),
    new FloatConverter(),
    new DoubleConverter(),
    new BooleanConverter(),
  ];

  it('declares converter.type only, as Connect (converter.encoding is not theirs)', () => {
    // Act
    const names = converters().map((c) => c.config().names());

    // Assess
    for (const n of names) expect(n).toEqual(['converter.type']);
  });

  it('accepts the converter.type the worker sets, and ignores other keys', () => {
    for (const c of converters()) {
      // Act
      const act = () => {
        c.configure({ 'converter.encoding': 'UTF-16' }, true);
        c.configure({ 'converter.type': 'header' });
        c.configure({});
      };

      // Assess
      expect(act).not.toThrow();
    }
  });

  it('rejects a converter.type that is not key, value or header', () => {
    for (const c of converters()) {
      // Act
      const act = () => c.configure({ 'converter.type': 'sideways' });

      // Assess
      expect(act).toThrow(ConfigError);
    }
  });
});

describe('BooleanConverter', () => {
  it('works as a header converter', () => {
    // Prepare
    const c = new BooleanConverter();
    c.configure({});

    // Act
    const bytes = c.fromConnectHeader('t', 'flag', Schemas.OPTIONAL_BOOLEAN, false);
    const read = c.toConnectHeader('t', 'flag', bytes);

    // Assess
    expect(hex(bytes)).toBe('00');
    expect(read).toEqual({ schema: Schemas.OPTIONAL_BOOLEAN, value: false });
  });
});
