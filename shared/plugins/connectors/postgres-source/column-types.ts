/**
 * PostgreSQL column types as Connect schemas, and their text values as Connect values, as
 * Confluent's JDBC source maps them for PostgreSQL (integers by width, `numeric` as Decimal or
 * per `numeric.mapping`, date/time types as Connect's logical types, json, jsonb and uuid as
 * strings), plus what it drops: arrays become Connect arrays, every other type its text. Pure.
 */
import {
  BigDecimal,
  DataError,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  type Schema,
  SchemaBuilder,
} from 'serverless-connect/connect';
import type { TimeZone } from '../time-zone.js';
import { parseArrayLiteral, parseBytea } from './pg-text.js';
import { microsToMillis, parseDateDays, parseTimeMillis, parseTimestamp } from './pg-time.js';

/** `numeric.mapping`: how `numeric` columns map (Confluent's `NumericMapping`). */
export type NumericMapping = 'none' | 'best_fit' | 'best_fit_eager_double' | 'precision_only';
export const NUMERIC_MAPPINGS: readonly NumericMapping[] = Object.freeze([
  'none',
  'best_fit',
  'best_fit_eager_double',
  'precision_only',
]);

type SimpleKind =
  | 'int16'
  | 'int32'
  | 'int64'
  | 'float32'
  | 'float64'
  | 'boolean'
  | 'string'
  | 'bytes'
  | 'date'
  | 'time'
  | 'timetz'
  | 'timestamp'
  | 'timestamptz';

/** What a column holds, domains resolved to their base type. */
export type ColumnKind =
  | { readonly kind: SimpleKind }
  | { readonly kind: 'numeric'; readonly precision: number | null; readonly scale: number | null }
  | { readonly kind: 'bit'; readonly length: number }
  | { readonly kind: 'array'; readonly element: ColumnKind };

/** Built-in type OIDs (pg_type.dat), by the kind of their values. */
const BUILTIN: ReadonlyMap<number, SimpleKind | 'numeric' | 'bit'> = new Map([
  [16, 'boolean'],
  [17, 'bytes'],
  [20, 'int64'],
  [21, 'int16'],
  [23, 'int32'],
  [26, 'int64'], // oid
  [700, 'float32'],
  [701, 'float64'],
  [1082, 'date'],
  [1083, 'time'],
  [1114, 'timestamp'],
  [1184, 'timestamptz'],
  [1266, 'timetz'],
  [1560, 'bit'],
  [1700, 'numeric'],
]);

/** Built-in array type OIDs and their element type OIDs. */
export const BUILTIN_ARRAYS: ReadonlyMap<number, number> = new Map([
  [1000, 16],
  [1001, 17],
  [1005, 21],
  [1007, 23],
  [1009, 25],
  [1014, 1042],
  [1015, 1043],
  [1016, 20],
  [1021, 700],
  [1022, 701],
  [1115, 1114],
  [1182, 1082],
  [1183, 1083],
  [1185, 1184],
  [1231, 1700],
  [1270, 1266],
  [2951, 2950],
  [199, 114],
  [3807, 3802],
]);

/** Whether `oid` is a built-in type this module knows (anything else needs pg_type). */
export function isBuiltinType(oid: number): boolean {
  return oid < 10_000;
}

/** `numeric(p,s)` of a type modifier (PostgreSQL 15+ allows a negative scale); null when unconstrained. */
export function numericTypmod(typmod: number): { precision: number; scale: number } | null {
  if (typmod < 4) return null;
  const packed = typmod - 4;
  return { precision: (packed >> 16) & 0xffff, scale: ((packed & 0x7ff) ^ 1024) - 1024 };
}

/** The kind of a built-in, non-array type; other built-in types are strings (their text). */
export function builtinKind(oid: number, typmod: number): ColumnKind {
  const kind = BUILTIN.get(oid) ?? 'string';
  if (kind === 'numeric') {
    const declared = numericTypmod(typmod);
    return { kind, precision: declared?.precision ?? null, scale: declared?.scale ?? null };
  }
  if (kind === 'bit') return { kind, length: typmod > 0 ? typmod : 1 };
  return { kind };
}

/** How a column's values map: its field schema and a reader of its text values. */
export interface ColumnMapping {
  readonly schema: Schema;
  read(text: string): unknown;
}

export interface MappingSettings {
  readonly numericMapping: NumericMapping;
  /** `db.timezone`: the zone of `timestamp` (without time zone) values. */
  readonly zone: TimeZone;
}

const MAX_INTEGER_PRECISION = 18;

function int64Of(text: string): number | bigint {
  const value = BigInt(text);
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

function integerBuilder(precision: number): SchemaBuilder {
  if (precision > 9) return SchemaBuilder.int64();
  if (precision > 4) return SchemaBuilder.int32();
  if (precision > 2) return SchemaBuilder.int16();
  return SchemaBuilder.int8();
}

/** `numeric` by `numeric.mapping` (Confluent's GenericDatabaseDialect): a builder and a reader. */
function numericOf(
  precision: number | null,
  scale: number | null,
  mapping: NumericMapping,
): { builder: SchemaBuilder; read: (text: string) => unknown } {
  const double = { builder: SchemaBuilder.float64(), read: (text: string) => Number(text) };
  if (precision === null || scale === null) {
    // Unconstrained numeric: no fixed scale fits every value, so its exact text (Confluent
    // rounds such values to scale 0), or a double when asked for the best fit.
    return mapping === 'best_fit' || mapping === 'best_fit_eager_double'
      ? double
      : { builder: SchemaBuilder.string(), read: (text) => text };
  }
  const integer = { builder: integerBuilder(precision), read: int64Of };
  const fits = precision <= MAX_INTEGER_PRECISION;
  if (mapping === 'precision_only' && scale === 0 && fits) return integer;
  if (mapping === 'best_fit' && fits) {
    if (scale <= 0) return integer;
    return double;
  }
  if (mapping === 'best_fit_eager_double') {
    if (scale <= 0 && fits) return integer;
    if (scale > 0) return double;
  }
  return {
    builder: LogicalDecimal.builder(scale).parameter(
      'connect.decimal.precision',
      String(precision),
    ),
    read: (text) => {
      if (!/^[+-]?\d/.test(text)) {
        throw new DataError(
          `Cannot represent PostgreSQL numeric value ${text} as a Connect Decimal`,
        );
      }
      return BigDecimal.parse(text).setScale(scale);
    },
  };
}

function bitsToBytes(bits: string): Uint8Array {
  const out = new Uint8Array(Math.ceil(bits.length / 8));
  for (let i = 0; i < bits.length; i++) {
    if (bits[i] === '1') out[i >> 3] = (out[i >> 3] ?? 0) | (0x80 >> (i & 7));
  }
  return out;
}

function bitOf(length: number): { builder: SchemaBuilder; read: (text: string) => unknown } {
  if (length <= 1) return { builder: SchemaBuilder.bool(), read: (text) => text === '1' };
  if (length <= 8) {
    return {
      builder: SchemaBuilder.int8(),
      read: (text) => Number(BigInt.asIntN(8, BigInt(`0b${text || '0'}`))),
    };
  }
  return { builder: SchemaBuilder.bytes(), read: bitsToBytes };
}

function simpleOf(
  kind: SimpleKind,
  zone: TimeZone,
): { builder: SchemaBuilder; read: (text: string) => unknown } {
  switch (kind) {
    case 'int16':
      return { builder: SchemaBuilder.int16(), read: Number };
    case 'int32':
      return { builder: SchemaBuilder.int32(), read: Number };
    case 'int64':
      return { builder: SchemaBuilder.int64(), read: int64Of };
    case 'float32':
      return { builder: SchemaBuilder.float32(), read: Number };
    case 'float64':
      return { builder: SchemaBuilder.float64(), read: Number };
    case 'boolean':
      return { builder: SchemaBuilder.bool(), read: (text) => text === 't' || text === 'true' };
    case 'bytes':
      return { builder: SchemaBuilder.bytes(), read: parseBytea };
    case 'date':
      return {
        builder: LogicalDate.builder(),
        read: (text) => new Date(parseDateDays(text) * 86_400_000),
      };
    case 'time':
    case 'timetz':
      return { builder: LogicalTime.builder(), read: (text) => new Date(parseTimeMillis(text)) };
    case 'timestamp':
    case 'timestamptz':
      return {
        builder: LogicalTimestamp.builder(),
        read: (text) => new Date(microsToMillis(parseTimestamp(text, zone))),
      };
    case 'string':
      return { builder: SchemaBuilder.string(), read: (text) => text };
  }
}

function partsOf(
  kind: ColumnKind,
  settings: MappingSettings,
): { builder: SchemaBuilder; read: (text: string) => unknown } {
  switch (kind.kind) {
    case 'numeric':
      return numericOf(kind.precision, kind.scale, settings.numericMapping);
    case 'bit':
      return bitOf(kind.length);
    case 'array': {
      const element = partsOf(kind.element, settings);
      const elementSchema = element.builder.optional().build();
      return {
        builder: SchemaBuilder.array(elementSchema),
        read: (text) => {
          const items = parseArrayLiteral(text);
          if (items === undefined) {
            throw new DataError(
              `Cannot read PostgreSQL array value ${text.slice(0, 60)} as a Connect array: only one-dimensional arrays are; select the column as text (::text) in a custom query`,
            );
          }
          return items.map((item) => (item === null ? null : element.read(item)));
        },
      };
    }
    default:
      return simpleOf(kind.kind, settings.zone);
  }
}

/** The field schema (optional when `optional`) and value reader of a column of `kind`. */
export function columnMapping(
  kind: ColumnKind,
  optional: boolean,
  settings: MappingSettings,
): ColumnMapping {
  const { builder, read } = partsOf(kind, settings);
  return { schema: (optional ? builder.optional() : builder).build(), read };
}
