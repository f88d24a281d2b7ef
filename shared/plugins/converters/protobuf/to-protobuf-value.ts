/**
 * Connect value → the plain object protobufjs encodes, compiled once per (Connect schema,
 * message type), as Confluent's `ProtobufData.fromConnectData` builds a `DynamicMessage`:
 * - A field Protobuf would not write is left out: a null value, an empty array, and (as
 *   `DynamicMessage` clears them) a proto3 scalar or enum equal to its default, unless the
 *   field has presence (proto3 `optional`, a oneof member). So the bytes equal Java's.
 * - A union struct sets the oneof member of its first non-null field.
 * - Logical types become confluent.type.Decimal, google.type.Date / TimeOfDay and
 *   google.protobuf.Timestamp; a value for a google.protobuf wrapper field is wrapped.
 * - int64 values beyond 2^53 (bigints) go to protobufjs as `{low, high}` bits.
 */

import type { Enum, Field, Type } from 'protobufjs';
import protobuf from 'protobufjs';
import {
  bigintToBytes,
  DataError,
  type DecimalValue,
  isStruct,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  mapEntries,
  type Schema,
  type StructView,
  schemaEquals,
} from 'serverless-connect/connect';
import { isEnumSchema, isUnionSchema } from './from-connect-schema.js';
import { isWrapperType } from './known-types.js';
import {
  KEY_FIELD,
  PROTOBUF_TYPE_ENUM_PREFIX,
  scrubName,
  VALUE_FIELD,
} from './protobuf-data-options.js';
import { fullName } from './to-connect-schema.js';

/** A Connect value (never null) → a protobufjs value, or `undefined` for "leave unset". */
type Encode = (value: unknown) => unknown;

const MILLIS_PER_DAY = 86_400_000;

function isDefault(field: Field, value: unknown): boolean {
  if (field.repeated || field.options?.proto3_optional === true || field.partOf !== null) {
    return false;
  }
  if (field.resolvedType instanceof protobuf.Type) return false;
  if (field.resolvedType instanceof protobuf.Enum) {
    return value === Object.values(field.resolvedType.values)[0];
  }
  if (typeof value === 'number') return Object.is(value, 0);
  if (typeof value === 'object' && value !== null && 'low' in value) {
    const bits = value as { low: number; high: number };
    return bits.low === 0 && bits.high === 0;
  }
  if (value instanceof Uint8Array) return value.length === 0;
  return value === '' || value === false;
}

/** A number or bigint as protobufjs takes a 64-bit integer. */
function int64(value: unknown): number | { low: number; high: number } {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new DataError(`Invalid type for INT64: ${value}`);
    return value;
  }
  if (typeof value !== 'bigint') throw new DataError(`Invalid type for INT64: ${typeof value}`);
  const bits = BigInt.asUintN(64, value);
  return { low: Number(bits & 0xffffffffn) | 0, high: Number(bits >> 32n) | 0 };
}

/** Omits the fields of a known message (Decimal, Date, …) that equal their defaults. */
function nonZero(entries: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entries)) {
    const zero = value === 0 || (value instanceof Uint8Array && value.length === 0);
    if (!zero) out[key] = value;
  }
  return out;
}

function decimalDigits(unscaled: bigint): number {
  return (unscaled < 0n ? -unscaled : unscaled).toString().length;
}

function logical(schema: Schema): Encode | null {
  switch (schema.name) {
    case LogicalDecimal.LOGICAL_NAME:
      return (v) => {
        const d = v as DecimalValue;
        if (typeof d?.unscaled !== 'bigint')
          throw new DataError('Invalid type for Decimal, expected BigDecimal');
        return nonZero({
          value: bigintToBytes(d.unscaled),
          precision: decimalDigits(d.unscaled),
          scale: d.scale,
        });
      };
    case LogicalDate.LOGICAL_NAME:
      return (v) => {
        const days = LogicalDate.fromLogical(schema, v as Date);
        const date = new Date(days * MILLIS_PER_DAY);
        return nonZero({
          year: date.getUTCFullYear(),
          month: date.getUTCMonth() + 1,
          day: date.getUTCDate(),
        });
      };
    case LogicalTime.LOGICAL_NAME:
      return (v) => {
        const ms = LogicalTime.fromLogical(schema, v as Date);
        return nonZero({
          hours: Math.floor(ms / 3_600_000),
          minutes: Math.floor(ms / 60_000) % 60,
          seconds: Math.floor(ms / 1000) % 60,
          nanos: (ms % 1000) * 1_000_000,
        });
      };
    case LogicalTimestamp.LOGICAL_NAME:
      return (v) => {
        const ms = LogicalTimestamp.fromLogical(schema, v as Date);
        return nonZero({
          seconds: Math.floor(ms / 1000),
          nanos: (((ms % 1000) + 1000) % 1000) * 1_000_000,
        });
      };
    default:
      return null;
  }
}

class ToProtobuf {
  constructor(readonly scrub: boolean) {}

  /** A struct (never null) → the message object of `type`. */
  message(schema: Schema, type: Type): (struct: StructView) => Record<string, unknown> {
    const steps = schema.fields.map((connectField) => {
      const name = scrubName(connectField.name, this.scrub);
      if (isUnionSchema(connectField.schema))
        return this.#union(connectField.name, connectField.schema, type);
      const field = type.fields[name];
      const encode = field === undefined ? null : this.field(connectField.schema, field);
      return (struct: StructView, out: Record<string, unknown>): void => {
        const value =
          struct.getWithoutDefault(connectField.name) ?? connectField.schema.defaultValue;
        if (value === null || value === undefined) return;
        if (field === undefined || encode === null)
          throw new DataError(`Cannot find field with name ${name}`);
        const encoded = encode(value);
        if (encoded !== undefined && !isDefault(field, encoded)) out[field.name] = encoded;
      };
    });
    return (struct) => {
      if (!isStruct(struct)) throw new DataError(`Invalid type for STRUCT: ${typeof struct}`);
      if (struct.schema !== schema && !schemaEquals(struct.schema, schema)) {
        throw new DataError('Mismatching struct schema');
      }
      const out: Record<string, unknown> = {};
      for (const step of steps) step(struct, out);
      return out;
    };
  }

  #union(name: string, union: Schema, type: Type) {
    const members = union.fields.map((member) => {
      const field = type.fields[scrubName(member.name, this.scrub)];
      if (field === undefined) throw new DataError(`Cannot find field with name ${member.name}`);
      return { member, field, encode: this.field(member.schema, field) };
    });
    return (struct: StructView, out: Record<string, unknown>): void => {
      const value = struct.getWithoutDefault(name) as StructView | null;
      if (value === null || value === undefined) return;
      for (const { member, field, encode } of members) {
        const memberValue = value.getWithoutDefault(member.name) ?? member.schema.defaultValue;
        if (memberValue === null || memberValue === undefined) continue;
        const encoded = encode(memberValue);
        if (encoded !== undefined) out[field.name] = encoded;
        return;
      }
      throw new DataError('Cannot find non-null field');
    };
  }

  /** A value of `schema` for Protobuf field `field` (repeated fields: the whole list). */
  field(schema: Schema, field: Field): Encode {
    if (schema.type === 'array') {
      const element = this.value(schema.valueSchema as Schema, field);
      return (v) => {
        if (!Array.isArray(v)) throw new DataError(`Invalid type for ARRAY: ${typeof v}`);
        if (v.length === 0) return undefined;
        return v.map((e) => {
          if (e === null || e === undefined)
            throw new DataError(`Null element in array field ${field.name}`);
          return element(e);
        });
      };
    }
    if (schema.type === 'map') return this.#map(schema, field);
    return this.value(schema, field);
  }

  #map(schema: Schema, field: Field): Encode {
    const entry = field.resolvedType;
    const keyField = entry instanceof protobuf.Type ? entry.fields[KEY_FIELD] : undefined;
    const valueField = entry instanceof protobuf.Type ? entry.fields[VALUE_FIELD] : undefined;
    if (keyField === undefined || valueField === undefined) {
      throw new DataError(`Field ${field.name} is not a map of key and value`);
    }
    const key = this.field(schema.keySchema as Schema, keyField);
    const value = this.field(schema.valueSchema as Schema, valueField);
    return (v) =>
      mapEntries(v).map(([k, item]) => {
        const out: Record<string, unknown> = {};
        const ek = k === null || k === undefined ? undefined : key(k);
        const ev = item === null || item === undefined ? undefined : value(item);
        if (ek !== undefined && !isDefault(keyField, ek)) out[KEY_FIELD] = ek;
        if (ev !== undefined && !isDefault(valueField, ev)) out[VALUE_FIELD] = ev;
        return out;
      });
  }

  /** One (non-repeated) value of `schema` for `field`'s type. */
  value(schema: Schema, field: Field): Encode {
    const target = field.resolvedType;
    const known = logical(schema);
    if (known !== null) return known;
    if (target instanceof protobuf.Type && isWrapperType(fullName(target))) {
      const inner = this.#primitive(schema, target.fields.value as Field);
      return (v) => {
        const encoded = inner(v);
        return isDefault(target.fields.value as Field, encoded) ? {} : { value: encoded };
      };
    }
    if (schema.type === 'struct') {
      if (!(target instanceof protobuf.Type))
        throw new DataError(`Field ${field.name} is not a message`);
      return this.message(schema, target) as Encode;
    }
    return this.#primitive(schema, field);
  }

  #primitive(schema: Schema, field: Field): Encode {
    const target = field.resolvedType;
    if (isEnumSchema(schema) || target instanceof protobuf.Enum)
      return enumEncoder(schema, target as Enum | null);
    switch (schema.type) {
      case 'int8':
      case 'int16':
      case 'int32':
      case 'float32':
      case 'float64':
        return (v) => {
          if (typeof v !== 'number')
            throw new DataError(`Invalid type for ${schema.type.toUpperCase()}: ${typeof v}`);
          return v;
        };
      case 'int64':
        if (field.type === 'uint32' || field.type === 'fixed32')
          return (v) => Number(BigInt.asIntN(32, BigInt(v as number)));
        return int64;
      case 'boolean':
        return (v) => {
          if (typeof v !== 'boolean') throw new DataError(`Invalid type for BOOLEAN: ${typeof v}`);
          return v;
        };
      case 'string':
        return (v) => {
          if (typeof v !== 'string') throw new DataError(`Invalid type for STRING: ${typeof v}`);
          return v;
        };
      case 'bytes':
        return (v) => {
          if (!(v instanceof Uint8Array))
            throw new DataError(`Invalid type for BYTES: ${typeof v}`);
          return v;
        };
      default:
        throw new DataError(`Unknown schema type: ${schema.type}`);
    }
  }
}

/** A symbol (or, with `int.for.enums`, a number) → the enum number. */
function enumEncoder(schema: Schema, target: Enum | null): Encode {
  return (v) => {
    if (typeof v === 'number') return v;
    if (typeof v !== 'string') throw new DataError(`Invalid type for enum: ${typeof v}`);
    const tag = schema.parameters[`${PROTOBUF_TYPE_ENUM_PREFIX}${v}`] ?? target?.values[v];
    if (tag === undefined) throw new DataError(`Unknown symbol ${v} of enum ${schema.name ?? ''}`);
    return Number(tag);
  };
}

/**
 * The encoder of values of Connect schema `schema` as message `type`: a struct's fields, or a
 * primitive in a wrapper message (`{value}`).
 */
export function compileToProtobuf(
  schema: Schema,
  type: Type,
  scrubInvalidNames: boolean,
): (value: unknown) => Record<string, unknown> {
  const toProtobuf = new ToProtobuf(scrubInvalidNames);
  if (schema.type === 'struct') {
    return toProtobuf.message(schema, type) as (value: unknown) => Record<string, unknown>;
  }
  const valueField = type.fields.value;
  if (!isWrapperType(fullName(type)) || valueField === undefined) {
    throw new DataError(
      `A ${schema.type.toUpperCase()} value cannot be written as ${fullName(type)}`,
    );
  }
  const encode = toProtobuf.value(schema, valueField);
  return (value) => {
    const encoded = encode(value);
    return encoded === undefined || isDefault(valueField, encoded) ? {} : { value: encoded };
  };
}
