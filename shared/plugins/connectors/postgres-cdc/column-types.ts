/**
 * Debezium's PostgreSQL type mapping: each column's Connect schema (Debezium's logical type
 * names) and the reading of its text value, per `decimal.handling.mode` and
 * `time.precision.mode`. Pure: types that are not built in (enums, domains, arrays of them) are
 * described by the caller ({@link UserType}, read from the catalog).
 */
import {
  BigDecimal,
  bigintToBytes,
  DataError,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  type Schema,
  SchemaBuilder,
  Struct,
} from 'serverless-connect/connect';
import {
  formatZonedTime,
  formatZonedTimestamp,
  int64Value,
  parseArrayLiteral,
  parseBigInteger,
  parseBoolean,
  parseBytea,
  parseDateDays,
  parseDouble,
  parseInteger,
  parseIntervalMicros,
  parseMoney,
  parseNumeric,
  parseTimeMicros,
  parseTimestampMicros,
} from './text-values.js';
import { ARRAY_ELEMENTS, OID } from './type-oids.js';

export type DecimalHandlingMode = 'precise' | 'double' | 'string';
export type TimePrecisionMode = 'adaptive' | 'adaptive_time_microseconds' | 'connect';

export interface TypeMappingOptions {
  readonly decimalHandling: DecimalHandlingMode;
  readonly timePrecision: TimePrecisionMode;
  /** Debezium's `unavailable.value.placeholder`, for unchanged TOASTed values. */
  readonly unavailablePlaceholder: string;
}

/** A column as the catalog or a Relation message describes it. */
export interface ColumnDescriptor {
  readonly name: string;
  readonly typeOid: number;
  /** `atttypmod`; -1 when none. */
  readonly typmod: number;
  readonly notNull: boolean;
}

/** What the catalog says about a type that is not built in. */
export type UserType =
  | { readonly kind: 'enum'; readonly labels: readonly string[] }
  | { readonly kind: 'domain'; readonly baseOid: number; readonly baseTypmod: number }
  | { readonly kind: 'array'; readonly elementOid: number }
  | { readonly kind: 'other'; readonly name: string };

/** A column's field schema and how its text becomes the field's value. */
export interface ColumnMapping {
  readonly name: string;
  readonly schema: Schema;
  /** The field value of a non-null text. @throws DataError when the text is not the type's. */
  read(text: string): unknown;
  /** The value standing for an unchanged TOASTed value (Debezium's placeholder), or `null`. */
  readonly unavailable: unknown;
  /** The value of a required field whose column came without a value (Debezium's fallback). */
  readonly fallback: unknown;
}

export const DEBEZIUM_TYPES = Object.freeze({
  DATE: 'io.debezium.time.Date',
  TIME: 'io.debezium.time.Time',
  MICRO_TIME: 'io.debezium.time.MicroTime',
  TIMESTAMP: 'io.debezium.time.Timestamp',
  MICRO_TIMESTAMP: 'io.debezium.time.MicroTimestamp',
  ZONED_TIMESTAMP: 'io.debezium.time.ZonedTimestamp',
  ZONED_TIME: 'io.debezium.time.ZonedTime',
  MICRO_DURATION: 'io.debezium.time.MicroDuration',
  UUID: 'io.debezium.data.Uuid',
  JSON: 'io.debezium.data.Json',
  XML: 'io.debezium.data.Xml',
  ENUM: 'io.debezium.data.Enum',
  VARIABLE_SCALE_DECIMAL: 'io.debezium.data.VariableScaleDecimal',
});

/** Debezium's schema parameter with a decimal column's precision. */
export const DECIMAL_PRECISION_PARAMETER = 'connect.decimal.precision';

/** Fractional second digits of a time type's typmod (6 when unspecified). */
function timePrecision(typmod: number): number {
  return typmod < 0 ? 6 : typmod;
}

const VARIABLE_SCALE_DECIMAL = SchemaBuilder.struct()
  .name(DEBEZIUM_TYPES.VARIABLE_SCALE_DECIMAL)
  .version(1)
  .doc('Variable scaled decimal')
  .field('scale', SchemaBuilder.int32())
  .field('value', SchemaBuilder.bytes())
  .build();

/** A base schema (not yet optional) and its reader. */
interface Base {
  readonly builder: () => SchemaBuilder;
  readonly read: (text: string) => unknown;
  readonly fallback: unknown;
  readonly unavailable?: 'string' | 'bytes';
}

const named = (builder: SchemaBuilder, name: string) => builder.name(name).version(1);
const text = (name?: string): Base => ({
  builder: () =>
    name === undefined ? SchemaBuilder.string() : named(SchemaBuilder.string(), name),
  read: (t) => t,
  fallback: '',
  unavailable: 'string',
});

function numericBase(typmod: number, options: TypeMappingOptions): Base {
  const constrained = typmod >= 4;
  const precision = constrained ? ((typmod - 4) >> 16) & 0xffff : 0;
  const scale = constrained ? (((typmod - 4) & 0x7ff) ^ 1024) - 1024 : 0;
  switch (options.decimalHandling) {
    case 'double':
      return { builder: () => SchemaBuilder.float64(), read: parseDouble, fallback: 0 };
    case 'string':
      return { ...text(), unavailable: 'string' };
    default:
      if (!constrained) {
        return {
          builder: () => copyOf(VARIABLE_SCALE_DECIMAL),
          read: (t) => {
            const value = parseNumeric(t);
            if (value === null) return null;
            return { scale: value.scale, value: bigintToBytes(value.unscaled) };
          },
          fallback: { scale: 0, value: new Uint8Array([0]) },
        };
      }
      return {
        builder: () =>
          LogicalDecimal.builder(scale).parameter(DECIMAL_PRECISION_PARAMETER, String(precision)),
        read: (t) => parseNumeric(t)?.setScale(scale) ?? null,
        fallback: new BigDecimal(0n, scale),
      };
  }
}

/** A struct schema rebuilt as a builder (to make it optional). */
function copyOf(schema: Schema): SchemaBuilder {
  const builder = SchemaBuilder.struct().name(schema.name).version(schema.version).doc(schema.doc);
  for (const field of schema.fields) builder.field(field.name, field.schema);
  return builder;
}

function moneyBase(options: TypeMappingOptions): Base {
  if (options.decimalHandling === 'double') {
    return {
      builder: () => SchemaBuilder.float64(),
      read: (t) => parseMoney(t, 2).toNumber(),
      fallback: 0,
    };
  }
  if (options.decimalHandling === 'string') {
    return { ...text(), read: (t) => parseMoney(t, 2).toString() };
  }
  return {
    builder: () => LogicalDecimal.builder(2),
    read: (t) => parseMoney(t, 2),
    fallback: new BigDecimal(0n, 2),
  };
}

const micros = (value: bigint) => int64Value(value);
const millisOf = (value: bigint) => value / 1000n - (value % 1000n < 0n ? 1n : 0n);

function temporalBase(oid: number, typmod: number, mode: TimePrecisionMode): Base {
  const precision = timePrecision(typmod);
  const connect = mode === 'connect';
  switch (oid) {
    case OID.DATE:
      return connect
        ? {
            builder: () => LogicalDate.builder(),
            read: (t) => new Date(parseDateDays(t) * 86_400_000),
            fallback: new Date(0),
          }
        : {
            builder: () => named(SchemaBuilder.int32(), DEBEZIUM_TYPES.DATE),
            read: parseDateDays,
            fallback: 0,
          };
    case OID.TIME:
      if (connect) {
        return {
          builder: () => LogicalTime.builder(),
          read: (t) => new Date(Number(millisOf(parseTimeMicros(t)))),
          fallback: new Date(0),
        };
      }
      return mode === 'adaptive' && precision <= 3
        ? {
            builder: () => named(SchemaBuilder.int32(), DEBEZIUM_TYPES.TIME),
            read: (t) => Number(millisOf(parseTimeMicros(t))),
            fallback: 0,
          }
        : {
            builder: () => named(SchemaBuilder.int64(), DEBEZIUM_TYPES.MICRO_TIME),
            read: (t) => micros(parseTimeMicros(t)),
            fallback: 0,
          };
    default: // TIMESTAMP
      if (connect) {
        return {
          builder: () => LogicalTimestamp.builder(),
          read: (t) => new Date(Number(millisOf(parseTimestampMicros(t)))),
          fallback: new Date(0),
        };
      }
      return precision <= 3
        ? {
            builder: () => named(SchemaBuilder.int64(), DEBEZIUM_TYPES.TIMESTAMP),
            read: (t) => int64Value(millisOf(parseTimestampMicros(t))),
            fallback: 0,
          }
        : {
            builder: () => named(SchemaBuilder.int64(), DEBEZIUM_TYPES.MICRO_TIMESTAMP),
            read: (t) => micros(parseTimestampMicros(t)),
            fallback: 0,
          };
  }
}

/** The base mapping of a type; `userTypes` describes types that are not built in. */
function baseOf(
  oid: number,
  typmod: number,
  options: TypeMappingOptions,
  userTypes: ReadonlyMap<number, UserType>,
): Base {
  switch (oid) {
    case OID.BOOL:
      return { builder: () => SchemaBuilder.bool(), read: parseBoolean, fallback: false };
    case OID.INT2:
      return { builder: () => SchemaBuilder.int16(), read: parseInteger, fallback: 0 };
    case OID.INT4:
      return { builder: () => SchemaBuilder.int32(), read: parseInteger, fallback: 0 };
    case OID.INT8:
    case OID.OID:
      return { builder: () => SchemaBuilder.int64(), read: parseBigInteger, fallback: 0 };
    case OID.FLOAT4:
      return { builder: () => SchemaBuilder.float32(), read: parseDouble, fallback: 0 };
    case OID.FLOAT8:
      return { builder: () => SchemaBuilder.float64(), read: parseDouble, fallback: 0 };
    case OID.NUMERIC:
      return numericBase(typmod, options);
    case OID.MONEY:
      return moneyBase(options);
    case OID.BYTEA:
      return {
        builder: () => SchemaBuilder.bytes(),
        read: parseBytea,
        fallback: new Uint8Array(0),
        unavailable: 'bytes',
      };
    case OID.BIT:
      if (typmod === 1)
        return { builder: () => SchemaBuilder.bool(), read: (t) => t === '1', fallback: false };
      return text();
    case OID.DATE:
    case OID.TIME:
    case OID.TIMESTAMP:
      return temporalBase(oid, typmod, options.timePrecision);
    case OID.TIMESTAMPTZ: {
      const digits = timePrecision(typmod);
      return {
        ...text(DEBEZIUM_TYPES.ZONED_TIMESTAMP),
        read: (t) => formatZonedTimestamp(t, digits),
      };
    }
    case OID.TIMETZ:
      return { ...text(DEBEZIUM_TYPES.ZONED_TIME), read: formatZonedTime };
    case OID.INTERVAL:
      return {
        builder: () => named(SchemaBuilder.int64(), DEBEZIUM_TYPES.MICRO_DURATION),
        read: (t) => int64Value(parseIntervalMicros(t)),
        fallback: 0,
      };
    case OID.UUID:
      return text(DEBEZIUM_TYPES.UUID);
    case OID.JSON:
    case OID.JSONB:
      return text(DEBEZIUM_TYPES.JSON);
    case OID.XML:
      return text(DEBEZIUM_TYPES.XML);
  }
  const element = ARRAY_ELEMENTS.get(oid);
  const user = userTypes.get(oid);
  if (element !== undefined || user?.kind === 'array') {
    const elementOid = element ?? (user as { elementOid: number }).elementOid;
    // An array column's typmod is its element's.
    const inner = baseOf(elementOid, typmod, options, userTypes);
    return {
      builder: () => SchemaBuilder.array(inner.builder().optional().build()),
      read: (t) => parseArrayLiteral(t).map((e) => (e === null ? null : inner.read(e))),
      fallback: [],
    };
  }
  if (user?.kind === 'enum') {
    return {
      ...text(),
      builder: () =>
        named(SchemaBuilder.string(), DEBEZIUM_TYPES.ENUM).parameter(
          'allowed',
          user.labels.join(','),
        ),
    };
  }
  if (user?.kind === 'domain') return baseOf(user.baseOid, user.baseTypmod, options, userTypes);
  // Anything else (inet, ranges, geometric types, extension types): its text, as a string.
  return text();
}

/**
 * The mapping of `column`: a required field for a NOT NULL column (or a key column), optional
 * otherwise.
 */
export function columnMapping(
  column: ColumnDescriptor,
  options: TypeMappingOptions,
  userTypes: ReadonlyMap<number, UserType> = new Map(),
  required = column.notNull,
): ColumnMapping {
  const base = baseOf(column.typeOid, column.typmod, options, userTypes);
  const builder = base.builder();
  const schema = (required ? builder : builder.optional()).build();
  const placeholder = options.unavailablePlaceholder;
  const unavailable =
    base.unavailable === 'string'
      ? placeholder
      : base.unavailable === 'bytes'
        ? new TextEncoder().encode(placeholder)
        : schema.type === 'array' && schema.valueSchema?.type === 'string'
          ? [placeholder]
          : null;
  // A struct type's reader gives its fields; the Struct takes the field's own schema.
  const finish =
    schema.type === 'struct'
      ? (v: unknown) => {
          if (v === null) return null;
          const struct = new Struct(schema);
          for (const [k, x] of Object.entries(v as Record<string, unknown>)) struct.put(k, x);
          return struct;
        }
      : (v: unknown) => v;
  return {
    name: column.name,
    schema,
    read: (t) => {
      try {
        return finish(base.read(t));
      } catch (error) {
        if (error instanceof DataError) {
          throw new DataError(`Column ${column.name}: ${error.message}`, { cause: error });
        }
        throw error;
      }
    },
    unavailable,
    fallback: finish(base.fallback),
  };
}
