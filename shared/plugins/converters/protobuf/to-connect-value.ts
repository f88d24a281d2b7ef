/**
 * A decoded protobufjs message → Connect value, compiled once per (message type, Connect
 * schema), as Confluent's `ProtobufData.toConnectData` reads a `DynamicMessage`:
 * - Scalars, enums and repeated fields are always set (to Protobuf's default when absent);
 *   message fields and proto3 `optional` fields only when present.
 * - A oneof becomes its union struct with the one member that is set.
 * - int64 as a number when safe, else a bigint; uint64 and fixed64 keep Java's signed view.
 * - An enum number without a symbol reads as `UNKNOWN_ENUM_VALUE_<Enum>_<number>`, as Java's.
 */

import type { Field, Message, Type } from 'protobufjs';
import protobuf from 'protobufjs';
import {
  BigDecimal,
  bytesToBigint,
  DataError,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  type Schema,
  Struct,
} from 'serverless-connect/connect';
import { declaredFields } from './proto-root.js';
import { KEY_FIELD, type ProtobufDataOptions, VALUE_FIELD } from './protobuf-data-options.js';
import { inRealOneof, realOneofs, unionFieldName } from './to-connect-schema.js';

/** A protobufjs value (never undefined) → a Connect value. */
type Decode = (value: unknown) => unknown;

type Fields = Record<string, unknown>;

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function has(message: Fields, name: string): boolean {
  return Object.hasOwn(message, name) && message[name] !== null && message[name] !== undefined;
}

/** A protobufjs 64-bit integer (a number, or a Long) as Connect's int64, signed. */
function int64(value: unknown): number | bigint {
  if (typeof value === 'number') return value;
  const { low, high } = value as { low: number; high: number };
  const n = BigInt.asIntN(64, (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0));
  return n >= MIN_SAFE && n <= MAX_SAFE ? Number(n) : n;
}

function num(message: Fields, name: string): number {
  const v = message[name];
  return v === undefined || v === null ? 0 : Number(int64(v));
}

function logical(schema: Schema): Decode | null {
  switch (schema.name) {
    case LogicalDecimal.LOGICAL_NAME:
      return (v) => {
        const m = v as Fields;
        const bytes = (m.value as Uint8Array | undefined) ?? new Uint8Array(0);
        return new BigDecimal(bytesToBigint(bytes), num(m, 'scale'));
      };
    case LogicalDate.LOGICAL_NAME:
      return (v) => {
        const m = v as Fields;
        const [year, month, day] = [num(m, 'year'), num(m, 'month'), num(m, 'day')];
        const date = new Date(Date.UTC(year, month - 1, day));
        date.setUTCFullYear(year);
        if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
          throw new DataError(`Invalid google.type.Date ${year}-${month}-${day}`);
        }
        return date;
      };
    case LogicalTime.LOGICAL_NAME:
      return (v) => {
        const m = v as Fields;
        const [h, min, s, nanos] = [
          num(m, 'hours'),
          num(m, 'minutes'),
          num(m, 'seconds'),
          num(m, 'nanos'),
        ];
        if (h > 23 || min > 59 || s > 59 || nanos > 999_999_999 || Math.min(h, min, s, nanos) < 0) {
          throw new DataError(`Invalid google.type.TimeOfDay ${h}:${min}:${s}.${nanos}`);
        }
        return new Date(((h * 60 + min) * 60 + s) * 1000 + Math.floor(nanos / 1_000_000));
      };
    case LogicalTimestamp.LOGICAL_NAME:
      return (v) => {
        const m = v as Fields;
        const seconds = int64(m.seconds ?? 0);
        const millis = Number(seconds) * 1000 + Math.trunc(num(m, 'nanos') / 1_000_000);
        return LogicalTimestamp.toLogical(schema, millis);
      };
    default:
      return null;
  }
}

class ToConnect {
  readonly #options: ProtobufDataOptions;

  constructor(options: ProtobufDataOptions) {
    this.#options = options;
  }

  message(type: Type, schema: Schema): (message: Fields) => Struct {
    const steps: ((message: Fields, out: Struct) => void)[] = [];
    realOneofs(type).forEach((oneof, index) => {
      const members = oneof.fieldsArray.map((field) => ({ field, name: field.name }));
      if (this.#options.flattenUnions) {
        for (const { field } of members) steps.push(this.#present(field, schema, field.name));
        return;
      }
      const unionField = schema.field(unionFieldName(oneof, index, this.#options));
      if (unionField === null) return;
      const decoders = members.map(({ field, name }) => ({
        name,
        decode: this.value(field, (unionField.schema.field(name) as { schema: Schema }).schema),
      }));
      steps.push((message, out) => {
        for (const { name, decode } of decoders) {
          if (!has(message, name)) continue;
          const union = new Struct(unionField.schema).put(name, decode(message[name]));
          out.put(unionField, union);
          return;
        }
      });
    });
    for (const field of declaredFields(type)) {
      if (inRealOneof(field)) continue;
      const always =
        (!(field.resolvedType instanceof protobuf.Type) || field.repeated) &&
        field.options?.proto3_optional !== true;
      steps.push(always ? this.#always(field, schema) : this.#present(field, schema, field.name));
    }
    return (message) => {
      const out = new Struct(schema);
      for (const step of steps) step(message, out);
      return out;
    };
  }

  #always(field: Field, schema: Schema): (message: Fields, out: Struct) => void {
    const connectField = schema.field(field.name);
    if (connectField === null) return () => {};
    const decode = this.value(field, connectField.schema);
    const fallback = field.repeated ? [] : defaultOf(field);
    return (message, out) => {
      const v = has(message, field.name) ? message[field.name] : fallback;
      out.put(connectField, decode(v));
    };
  }

  #present(field: Field, schema: Schema, name: string): (message: Fields, out: Struct) => void {
    const connectField = schema.field(name);
    if (connectField === null) return () => {};
    const decode = this.value(field, connectField.schema);
    return (message, out) => {
      if (has(message, field.name)) out.put(connectField, decode(message[field.name]));
    };
  }

  /** The value of Protobuf field `field` (a list when repeated) as Connect schema `schema`. */
  value(field: Field, schema: Schema): Decode {
    if (schema.type === 'map') {
      const entry = field.resolvedType as Type;
      const keyField = entry.fields[KEY_FIELD] as Field;
      const valueField = entry.fields[VALUE_FIELD] as Field;
      const key = this.value(keyField, schema.keySchema as Schema);
      const value = this.value(valueField, schema.valueSchema as Schema);
      const [keyDefault, valueDefault] = [defaultOf(keyField), defaultOf(valueField)];
      return (v) => {
        const out = new Map<unknown, unknown>();
        for (const e of v as Fields[]) {
          // An absent message key or value reads as the empty message, as Java's getField.
          const k = has(e, KEY_FIELD) ? e[KEY_FIELD] : (keyDefault ?? {});
          const item = has(e, VALUE_FIELD) ? e[VALUE_FIELD] : (valueDefault ?? {});
          out.set(key(k), value(item));
        }
        return out;
      };
    }
    if (schema.type === 'array') {
      const element = this.#single(field, schema.valueSchema as Schema);
      return (v) => (v as unknown[]).map(element);
    }
    return this.#single(field, schema);
  }

  #single(field: Field, schema: Schema): Decode {
    const known = logical(schema);
    if (known !== null) return known;
    const target = field.resolvedType;
    if (schema.type === 'struct') {
      if (!(target instanceof protobuf.Type))
        throw new DataError(`Field ${field.name} is not a message`);
      return this.message(target, schema) as Decode;
    }
    const primitive = this.#primitive(field, schema);
    if (target instanceof protobuf.Type) {
      // A google.protobuf wrapper read as the primitive it holds.
      const inner = target.fields.value;
      if (inner === undefined) throw new DataError(`Field ${field.name} is not a wrapper message`);
      const fallback = defaultOf(inner);
      return (v) => primitive(has(v as Fields, 'value') ? (v as Fields).value : fallback);
    }
    return primitive;
  }

  #primitive(field: Field, schema: Schema): Decode {
    const target = field.resolvedType;
    if (target instanceof protobuf.Enum) {
      if (schema.type !== 'string') return (v) => v;
      const names = target.valuesById;
      return (v) => names[v as number] ?? `UNKNOWN_ENUM_VALUE_${target.name}_${v as number}`;
    }
    switch (schema.type) {
      case 'int64':
        return int64;
      case 'float32':
        return (v) => Math.fround(v as number);
      case 'bytes':
        return (v) => Uint8Array.from(v as Uint8Array);
      case 'int8':
      case 'int16':
      case 'int32':
      case 'float64':
      case 'boolean':
      case 'string':
        return (v) => v;
      default:
        throw new DataError(`Field ${field.name} cannot be read as ${schema.type.toUpperCase()}`);
    }
  }
}

/** Protobuf's default of a scalar or enum field (for a message field: null). */
function defaultOf(field: Field): unknown {
  const target = field.resolvedType;
  if (target instanceof protobuf.Type) return null;
  if (target instanceof protobuf.Enum) return Object.values(target.values)[0] ?? 0;
  switch (field.type) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'bytes':
      return new Uint8Array(0);
    default:
      return 0;
  }
}

/**
 * The decoder of messages of `type` into values of Connect schema `schema` (a struct, or the
 * primitive a top-level wrapper holds).
 */
export function compileToConnect(
  type: Type,
  schema: Schema,
  options: ProtobufDataOptions,
): (message: Message) => unknown {
  const toConnect = new ToConnect(options);
  if (schema.type === 'struct')
    return toConnect.message(type, schema) as unknown as (m: Message) => unknown;
  const inner = type.fields.value;
  if (inner === undefined) throw new DataError(`${type.name} is not a wrapper message`);
  const decode = toConnect.value(inner, schema);
  const fallback = defaultOf(inner);
  return (message) => {
    const m = message as unknown as Fields;
    return decode(has(m, 'value') ? m.value : fallback);
  };
}
