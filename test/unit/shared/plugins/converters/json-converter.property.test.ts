import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_HEADERS } from '../../../../../shared/connect/headers.js';
import {
  BigDecimal,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
} from '../../../../../shared/connect/logical-types.js';
import {
  type Schema,
  SchemaBuilder,
  Schemas,
  schemaEquals,
  valuesEqual,
} from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import { JsonConverter } from '../../../../../shared/plugins/converters/json-converter.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const MILLIS_PER_DAY = 86_400_000;

function int64(value: bigint): number | bigint {
  return Number.isSafeInteger(Number(value)) ? Number(value) : value;
}

function maybeOptional(builder: SchemaBuilder): fc.Arbitrary<Schema> {
  return fc.boolean().map((optional) => (optional ? builder.optional() : builder).build());
}

const primitiveSchema: fc.Arbitrary<Schema> = fc.oneof(
  ...['int8', 'int16', 'int32', 'int64', 'float32', 'float64', 'boolean', 'string', 'bytes'].map(
    (type) => maybeOptional(SchemaBuilder.type(type as Parameters<typeof SchemaBuilder.type>[0])),
  ),
  fc.integer({ min: 0, max: 6 }).chain((scale) => maybeOptional(LogicalDecimal.builder(scale))),
  fc.constant(null).chain(() => maybeOptional(LogicalDate.builder())),
  fc.constant(null).chain(() => maybeOptional(LogicalTime.builder())),
  fc.constant(null).chain(() => maybeOptional(LogicalTimestamp.builder())),
);

/** Schemas of every kind, nested up to a few levels. */
const schemaArb: fc.Arbitrary<Schema> = fc.letrec<{ schema: Schema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    primitiveSchema,
    tie('schema').chain((element) => maybeOptional(SchemaBuilder.array(element))),
    tie('schema').chain((value) => maybeOptional(SchemaBuilder.map(Schemas.STRING, value))),
    tie('schema').chain((value) => maybeOptional(SchemaBuilder.map(Schemas.INT32, value))),
    fc
      .uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), tie('schema')), {
        selector: ([name]) => name,
        maxLength: 4,
      })
      .chain((fields) => {
        const builder = SchemaBuilder.struct().name('com.example.Generated');
        for (const [name, schema] of fields) builder.field(name, schema);
        return maybeOptional(builder);
      }),
  ),
})).schema;

/** Values valid for `schema`, in the representation converters produce. */
function valueFor(schema: Schema): fc.Arbitrary<unknown> {
  const base = requiredValueFor(schema);
  return schema.optional ? fc.option(base, { nil: null }) : base;
}

function requiredValueFor(schema: Schema): fc.Arbitrary<unknown> {
  switch (schema.name) {
    case LogicalDecimal.LOGICAL_NAME: {
      const scale = LogicalDecimal.scale(schema);
      return fc.bigInt().map((unscaled) => new BigDecimal(unscaled, scale));
    }
    case LogicalDate.LOGICAL_NAME:
      return fc
        .integer({ min: -1_000_000, max: 1_000_000 })
        .map((d) => new Date(d * MILLIS_PER_DAY));
    case LogicalTime.LOGICAL_NAME:
      return fc.integer({ min: 0, max: MILLIS_PER_DAY - 1 }).map((ms) => new Date(ms));
    case LogicalTimestamp.LOGICAL_NAME:
      return fc.integer({ min: -8.64e15, max: 8.64e15 }).map((ms) => new Date(ms));
    default:
      break;
  }
  switch (schema.type) {
    case 'int8':
      return fc.integer({ min: -128, max: 127 });
    case 'int16':
      return fc.integer({ min: -32768, max: 32767 });
    case 'int32':
      return fc.integer();
    case 'int64':
      return fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(int64);
    case 'float32':
      return fc.float();
    case 'float64':
      return fc.double();
    case 'boolean':
      return fc.boolean();
    case 'string':
      return fc.string({ unit: 'binary' });
    case 'bytes':
      return fc.uint8Array({ maxLength: 16 });
    case 'array':
      return fc.array(valueFor(schema.valueSchema ?? Schemas.STRING), { maxLength: 4 });
    case 'map': {
      const key = schema.keySchema?.type === 'string' ? fc.string() : fc.integer();
      return fc
        .uniqueArray(fc.tuple(key, valueFor(schema.valueSchema ?? Schemas.STRING)), {
          selector: ([k]) => k,
          maxLength: 4,
        })
        .map((entries) => new Map<unknown, unknown>(entries));
    }
    case 'struct':
      return fc.tuple(...schema.fields.map((f) => valueFor(f.schema))).map((values) => {
        const struct = new Struct(schema);
        schema.fields.forEach((f, i) => {
          struct.put(f, values[i]);
        });
        return struct;
      });
  }
}

const schemaAndValue = schemaArb.chain((schema) =>
  valueFor(schema).map((value) => ({ schema, value })),
);

function converter(props: Record<string, string>): JsonConverter {
  const c = new JsonConverter();
  c.configure(props, false);
  return c;
}

/** JSON-like values that keep their type without a schema. */
const schemalessValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.string({ unit: 'binary' }),
    fc.maxSafeInteger(),
    fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(int64),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Number.isInteger(x)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .uniqueArray(fc.tuple(fc.string(), tie('value')), { selector: ([k]) => k, maxLength: 4 })
      .map((entries) => new Map(entries)),
  ),
})).value;

describe('JsonConverter round trips (property)', () => {
  it.each(['BASE64', 'NUMERIC'])(
    'gives back any schema and value with schemas.enable=true and decimal.format=%s',
    (decimalFormat) => {
      // Prepare
      const c = converter({ 'decimal.format': decimalFormat });

      fc.assert(
        fc.property(schemaAndValue, ({ schema, value }) => {
          // Act
          const bytes = c.fromConnectData('topic', EMPTY_HEADERS, schema, value);
          const back = c.toConnectData('topic', EMPTY_HEADERS, bytes);

          // Assess
          expect(schemaEquals(back.schema, schema)).toBe(true);
          expect(valuesEqual(back.value, value)).toBe(true);
        }),
        { numRuns: 300 },
      );
    },
  );

  it('writes the envelope payload alone with schemas.enable=false', () => {
    // Prepare
    const withSchemas = converter({});
    const without = converter({ 'schemas.enable': 'false' });

    fc.assert(
      fc.property(schemaAndValue, ({ schema, value }) => {
        // Act
        const enveloped = withSchemas.serializeToString(schema, value);
        const plain = without.serializeToString(schema, value);

        // Assess
        expect(enveloped).toBe(`{"schema":${withSchemas.schemaJson(schema)},"payload":${plain}}`);
      }),
      { numRuns: 200 },
    );
  });

  it('gives back schemaless JSON values with schemas.enable=false', () => {
    // Prepare
    const c = converter({ 'schemas.enable': 'false' });

    fc.assert(
      fc.property(schemalessValue, (value) => {
        // Act
        const bytes = c.fromConnectData('topic', EMPTY_HEADERS, null, value);
        const back = c.toConnectData('topic', EMPTY_HEADERS, bytes);

        // Assess
        expect(back.schema).toBeNull();
        expect(valuesEqual(back.value, value)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
