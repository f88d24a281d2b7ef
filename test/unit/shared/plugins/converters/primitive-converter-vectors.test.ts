import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../../../shared/connect/headers.js';
import {
  type Schema,
  type SchemaAndValue,
  SchemaBuilder,
  Schemas,
  schemaEquals,
  type Type,
} from '../../../../../shared/connect/schema.js';
import { BooleanConverter } from '../../../../../shared/plugins/converters/boolean-converter.js';
import {
  DoubleConverter,
  FloatConverter,
  IntegerConverter,
  LongConverter,
  ShortConverter,
} from '../../../../../shared/plugins/converters/number-converters.js';

// The vectors were written by Apache Kafka Connect 4.4.0's own converters
// (scripts/vectors/PrimitiveConverterVectors.java; see test/fixtures/README.md).

type ConverterName =
  | 'LongConverter'
  | 'IntegerConverter'
  | 'ShortConverter'
  | 'FloatConverter'
  | 'DoubleConverter'
  | 'BooleanConverter';

/** A Java value: its class, its `toString()`, and the raw bits of a Float or Double. */
interface JavaValue {
  readonly type: 'Long' | 'Integer' | 'Short' | 'Float' | 'Double' | 'Boolean' | 'String';
  readonly text: string;
  readonly bits?: string;
}

interface JavaSchema {
  readonly type: string;
  readonly optional: boolean;
}

/** A DataException: its message and its cause's message. */
interface JavaError {
  readonly message: string;
  readonly cause: string | null;
}

/** `fromConnectData(schema, value)`: the bytes written (hex, or null) or the error. */
interface FromConnectVector {
  readonly converter: ConverterName;
  readonly direction: 'fromConnect';
  readonly name: string;
  readonly schema: JavaSchema | null;
  readonly value: JavaValue | null;
  readonly bytes?: string | null;
  readonly error?: JavaError;
}

/** `toConnectData(bytes)`: the schema and value read and the bytes they write again, or the error. */
interface ToConnectVector {
  readonly converter: ConverterName;
  readonly direction: 'toConnect';
  readonly name: string;
  readonly bytes: string | null;
  readonly schema?: JavaSchema;
  readonly value?: JavaValue | null;
  readonly roundTrip?: string | null;
  readonly error?: JavaError;
}

type Vector = FromConnectVector | ToConnectVector;

const VECTORS: readonly Vector[] = JSON.parse(
  readFileSync(
    new URL('../../../../fixtures/primitive-converter-vectors.json', import.meta.url),
    'utf8',
  ),
) as Vector[];

/** The primitive converters, synchronous (their results are values, never promises). */
type PrimitiveConverter =
  | LongConverter
  | IntegerConverter
  | ShortConverter
  | FloatConverter
  | DoubleConverter
  | BooleanConverter;

const CONVERTERS: Readonly<Record<ConverterName, () => PrimitiveConverter>> = {
  LongConverter: () => new LongConverter(),
  IntegerConverter: () => new IntegerConverter(),
  ShortConverter: () => new ShortConverter(),
  FloatConverter: () => new FloatConverter(),
  DoubleConverter: () => new DoubleConverter(),
  BooleanConverter: () => new BooleanConverter(),
};

const OPTIONAL_SCHEMAS: Readonly<Record<ConverterName, Schema>> = {
  LongConverter: Schemas.OPTIONAL_INT64,
  IntegerConverter: Schemas.OPTIONAL_INT32,
  ShortConverter: Schemas.OPTIONAL_INT16,
  FloatConverter: Schemas.OPTIONAL_FLOAT32,
  DoubleConverter: Schemas.OPTIONAL_FLOAT64,
  BooleanConverter: Schemas.OPTIONAL_BOOLEAN,
};

/**
 * Java rejects these for their boxed class (an Integer is not a Long, a Double not a Float):
 * Connect's NumberConverter casts to its own type. A JS number has no such class: `5` is a
 * valid int32, int64, float32 and float64, so ours writes it in the converter's own format.
 */
const JAVA_BOXED_TYPE_ONLY = [
  'LongConverter/an Integer',
  'LongConverter/an integral Double',
  'IntegerConverter/a Long',
  'IntegerConverter/a Short',
  'ShortConverter/an Integer',
  'FloatConverter/a Double',
  'FloatConverter/an Integer',
  'DoubleConverter/a Float',
  'DoubleConverter/a Long',
];

/**
 * A signalling float NaN read into a JS number comes back quiet (the float-to-double
 * conversion sets the quiet bit), so its round trip writes `7fc00001` where Java, keeping the
 * raw float, writes `7f800001`. Both are NaN; every quiet NaN keeps its bits, as in Java.
 */
const QUIETED_NAN: Readonly<Record<string, string>> = {
  'FloatConverter/signalling NaN': '7fc00001',
};

const key = (v: Vector) => `${v.converter}/${v.name}`;

function fromHex(hex: string | null): Uint8Array | null {
  return hex === null ? null : Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16));
}

function toHex(bytes: Uint8Array | null): string | null {
  return bytes === null ? null : Buffer.from(bytes).toString('hex');
}

/** Every JS representation of a Java value: a Long is a number (when safe) and a bigint. */
function jsValues(value: JavaValue | null): unknown[] {
  if (value === null) return [null];
  const bits = () => new DataView((fromHex(value.bits ?? '') ?? new Uint8Array()).buffer);
  switch (value.type) {
    case 'Long': {
      const big = BigInt(value.text);
      return Number.isSafeInteger(Number(big)) ? [Number(big), big] : [big];
    }
    case 'Integer':
    case 'Short':
      return [Number(value.text)];
    case 'Float':
      return [bits().getFloat32(0)];
    case 'Double':
      return [bits().getFloat64(0)];
    case 'Boolean':
      return [value.text === 'true'];
    case 'String':
      return [value.text];
  }
}

function schemaOf(schema: JavaSchema | null): Schema | null {
  if (schema === null) return null;
  const builder = SchemaBuilder.type(schema.type.toLowerCase() as Type);
  return (schema.optional ? builder.optional() : builder).build();
}

/** The converter configured as a key/value converter, and one configured as a header converter. */
function paths(name: ConverterName) {
  const data = CONVERTERS[name]();
  data.configure({}, false);
  const header = CONVERTERS[name]();
  header.configure({});
  return {
    data: {
      write: (schema: Schema | null, value: unknown) =>
        data.fromConnectData('topic', EMPTY_HEADERS, schema, value),
      read: (bytes: Uint8Array | null) => data.toConnectData('topic', EMPTY_HEADERS, bytes),
    },
    header: {
      write: (schema: Schema | null, value: unknown) =>
        header.fromConnectHeader('topic', 'header', schema, value),
      read: (bytes: Uint8Array | null) => header.toConnectHeader('topic', 'header', bytes),
    },
  };
}

/**
 * The message we must raise for Connect's. Where Connect names a Java class (`(was class
 * java.lang.String): `, `of type class java.lang.Integer`) we name the JS value instead, so only
 * the text before it must match; otherwise the message, with its cause's appended, is exact.
 */
function expectedMessage(error: JavaError): string | RegExp {
  const classAt = error.message.search(/(?<=\(was |of type )class /);
  if (classAt >= 0) {
    const prefix = error.message.slice(0, classAt).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`^${prefix}`);
  }
  return error.message + (error.cause ?? '');
}

function expectDataError(act: () => unknown, error: JavaError): void {
  expect(act).toThrow(DataError);
  expect(act).toThrow(expectedMessage(error));
}

function expectRead(read: SchemaAndValue, vector: ToConnectVector): void {
  expect(read.schema).toBe(OPTIONAL_SCHEMAS[vector.converter]);
  expect(schemaEquals(read.schema, schemaOf(vector.schema ?? null))).toBe(true);
  const [expected] = jsValues(vector.value ?? null);
  expect(Object.is(read.value, expected)).toBe(true);
}

const fromConnect = VECTORS.filter((v): v is FromConnectVector => v.direction === 'fromConnect');
const toConnect = VECTORS.filter((v): v is ToConnectVector => v.direction === 'toConnect');
const labelled = <V extends Vector>(vectors: readonly V[]) =>
  vectors.map((v) => [key(v), v] as const);

describe('Primitive converters against Connect 4.4.0 vectors', () => {
  it('holds every vector once, for all six converters in both directions', () => {
    // Assess
    expect(VECTORS).toHaveLength(191);
    expect(new Set(VECTORS.map((v) => `${v.direction}/${key(v)}`)).size).toBe(VECTORS.length);
    for (const name of Object.keys(CONVERTERS)) {
      expect(fromConnect.some((v) => v.converter === name)).toBe(true);
      expect(toConnect.some((v) => v.converter === name && v.error !== undefined)).toBe(true);
    }
  });

  it.each(labelled(fromConnect.filter((v) => !JAVA_BOXED_TYPE_ONLY.includes(key(v)))))(
    'writes %s as Connect does, as a value and as a header',
    (_name, vector) => {
      // Prepare
      const { data, header } = paths(vector.converter);
      const schema = schemaOf(vector.schema);

      for (const value of jsValues(vector.value)) {
        for (const path of [data, header]) {
          // Act
          const act = () => path.write(schema, value);

          // Assess
          if (vector.error === undefined) expect(toHex(act())).toBe(vector.bytes);
          else expectDataError(act, vector.error);
        }
      }
    },
  );

  it.each(labelled(fromConnect.filter((v) => JAVA_BOXED_TYPE_ONLY.includes(key(v)))))(
    'writes %s, a JS number that fits, where Java rejects its boxed class',
    (_name, vector) => {
      // Prepare
      const { data, header } = paths(vector.converter);
      const [value] = jsValues(vector.value);

      // Act
      const written = data.write(schemaOf(vector.schema), value);
      const asHeader = header.write(schemaOf(vector.schema), value);

      // Assess
      expect(vector.error?.message).toMatch(/^Failed to serialize to \w+ \(was class java/);
      expect(toHex(asHeader)).toBe(toHex(written));
      expect(data.read(written).value).toBe(value);
    },
  );

  it.each(labelled(toConnect))(
    'reads %s as Connect does, as a value and as a header',
    (_name, v) => {
      // Prepare
      const { data, header } = paths(v.converter);
      const bytes = fromHex(v.bytes);

      for (const path of [data, header]) {
        // Act
        const act = () => path.read(bytes);

        // Assess
        if (v.error !== undefined) {
          expectDataError(act, v.error);
          continue;
        }
        const read = act();
        expectRead(read, v);
        const again = toHex(path.write(read.schema, read.value));
        expect(again).toBe(QUIETED_NAN[key(v)] ?? v.roundTrip);
      }
    },
  );

  it('reads a long as a number when it is a safe integer, and as a bigint otherwise', () => {
    // Prepare
    const { data } = paths('LongConverter');
    const longs = toConnect.filter((v) => v.converter === 'LongConverter' && v.value);

    // Act
    const read = longs.map((v) => [v.value?.text, data.read(fromHex(v.bytes)).value] as const);

    // Assess
    expect(read.length).toBeGreaterThan(10);
    for (const [text, value] of read) {
      const safe = Number.isSafeInteger(Number(text));
      expect(typeof value).toBe(safe ? 'number' : 'bigint');
      expect(String(value)).toBe(text);
    }
  });
});
