/**
 * Default values between Connect and Avro: whether a field's default fits its Avro type, as
 * Apache Avro 1.12's Java library decides (`Schema.isValidDefault`: a union's default may fit
 * any of its branches; Confluent's `AvroData` leaves out a default that does not fit), and the
 * conversions of Confluent's `defaultValueFromConnect` / `defaultValueFromAvro`.
 */
import {
  fromLogicalValue,
  mapEntries,
  type Schema,
  Struct,
  type StructView,
  toLogicalValue,
} from 'serverless-connect/connect';
import { isUnionSchema, scrubName } from './avro-data-options.js';
import {
  type AvroJson,
  type AvroObject,
  isAvroObject,
  JsonDouble,
  JsonFloat,
} from './avro-json.js';
import type { ResolvedSchema } from './avro-names.js';

function latin1Bytes(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff);
}

/** The named types (record, enum, fixed) defined so far, by full name. */
export type NamedTypes = ReadonlyMap<string, AvroObject>;

const PRIMITIVES = new Set([
  'null',
  'boolean',
  'int',
  'long',
  'float',
  'double',
  'bytes',
  'string',
]);
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/** The definition a type name stands for in namespace `space`, or undefined. */
export function resolveName(
  name: string,
  named: NamedTypes,
  space: string | null,
): AvroObject | undefined {
  if (name.includes('.')) return named.get(name);
  return named.get(space === null || space === '' ? name : `${space}.${name}`) ?? named.get(name);
}

function isIntegral(value: AvroJson): value is number | bigint {
  return typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value));
}

function isNumber(value: AvroJson): boolean {
  return (
    typeof value === 'number' ||
    typeof value === 'bigint' ||
    value instanceof JsonFloat ||
    value instanceof JsonDouble
  );
}

/** True when `value` (a default's JSON) fits `type`, in namespace `space`. */
export function isValidDefault(
  type: AvroJson,
  value: AvroJson,
  named: NamedTypes,
  space: string | null,
): boolean {
  if (Array.isArray(type))
    return type.some((branch) => isValidDefault(branch, value, named, space));
  let schema: AvroObject;
  if (typeof type === 'string') {
    if (PRIMITIVES.has(type)) schema = { type };
    else {
      const definition = resolveName(type, named, space);
      if (definition === undefined) return false;
      schema = definition;
    }
  } else if (isAvroObject(type)) {
    schema = type;
  } else {
    return false;
  }
  const innerSpace = typeof schema.namespace === 'string' ? schema.namespace : (space ?? null);
  switch (schema.type) {
    case 'string':
    case 'bytes':
    case 'enum':
    case 'fixed':
      return typeof value === 'string';
    case 'int':
      return isIntegral(value) && value >= INT_MIN && value <= INT_MAX;
    case 'long':
      return isIntegral(value) && BigInt(value) >= -(2n ** 63n) && BigInt(value) < 2n ** 63n;
    case 'float':
    case 'double':
      return isNumber(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return (
        Array.isArray(value) &&
        value.every((v) => isValidDefault(schema.items as AvroJson, v, named, space))
      );
    case 'map':
      return (
        isAvroObject(value) &&
        Object.values(value).every((v) =>
          isValidDefault(schema.values as AvroJson, v, named, space),
        )
      );
    case 'record': {
      if (!isAvroObject(value)) return false;
      const fields = (schema.fields ?? []) as readonly AvroObject[];
      return fields.every((field) => {
        const name = field.name as string;
        const given = Object.hasOwn(value, name) ? value[name] : field.default;
        return (
          given !== undefined && isValidDefault(field.type as AvroJson, given, named, innerSpace)
        );
      });
    }
    default:
      // A primitive with properties: {"type": "int", ...}
      return typeof schema.type === 'string' && PRIMITIVES.has(schema.type)
        ? isValidDefault(schema.type, value, named, space)
        : false;
  }
}

/**
 * A default as Avro's Java library keeps it on a field (`JacksonUtils.toObject`, then back to
 * JSON): a float becomes the double of the float (`0.1f` is written `0.10000000149011612`).
 */
export function asFieldDefault(json: AvroJson): AvroJson {
  if (json instanceof JsonFloat) return new JsonDouble(Math.fround(json.value));
  if (Array.isArray(json)) return json.map(asFieldDefault);
  if (isAvroObject(json)) {
    return Object.fromEntries(Object.entries(json).map(([k, v]) => [k, asFieldDefault(v)]));
  }
  return json;
}

/** A Connect value as the JSON of an Avro default (Confluent's `defaultValueFromConnect`). */
export function connectDefaultJson(schema: Schema, value: unknown, scrub: boolean): AvroJson {
  if (value === null || value === undefined) return null;
  const raw = fromLogicalValue(schema, value);
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
      return raw as number | bigint;
    case 'float32':
      return new JsonFloat(raw as number);
    case 'float64':
      return new JsonDouble(raw as number);
    case 'boolean':
    case 'string':
      return raw as boolean | string;
    case 'bytes':
      return String.fromCharCode(...(raw as Uint8Array));
    case 'array':
      return (raw as unknown[]).map((e) =>
        connectDefaultJson(schema.valueSchema as Schema, e, scrub),
      );
    case 'map': {
      const entries = mapEntries(raw);
      const keySchema = schema.keySchema as Schema;
      const valueSchema = schema.valueSchema as Schema;
      if (keySchema.type === 'string' && !keySchema.optional) {
        return Object.fromEntries(
          entries.map(([k, v]) => [k as string, connectDefaultJson(valueSchema, v, scrub)]),
        );
      }
      return entries.map(([k, v]) => [
        connectDefaultJson(keySchema, k, scrub),
        connectDefaultJson(valueSchema, v, scrub),
      ]);
    }
    case 'struct': {
      const struct = raw as StructView & { get(name: string): unknown };
      const node: { [key: string]: AvroJson } = {};
      for (const field of schema.fields) {
        const json = connectDefaultJson(field.schema, struct.get(field.name), scrub);
        if (isUnionSchema(schema)) return json;
        node[scrubName(field.name, scrub)] = json;
      }
      return node;
    }
  }
}

/** A default's JSON as the raw Connect value of `schema` (Confluent's `defaultValueFromAvro`). */
export function defaultFromAvro(schema: Schema, avro: ResolvedSchema, json: unknown): unknown {
  if (json === null || json === undefined) return null;
  switch (avro.type) {
    case 'int':
    case 'long':
    case 'float':
    case 'double':
      return json as number;
    case 'boolean':
      return json === true;
    case 'string':
    case 'enum':
      return String(json);
    case 'bytes':
    case 'fixed':
      return latin1Bytes(String(json));
    case 'array':
      return (json as unknown[]).map((e) =>
        toLogicalValue(
          schema.valueSchema as Schema,
          defaultFromAvro(schema.valueSchema as Schema, avro.items as ResolvedSchema, e),
        ),
      );
    case 'map':
      return new Map(
        Object.entries(json as Record<string, unknown>).map(([k, v]) => [
          k,
          toLogicalValue(
            schema.valueSchema as Schema,
            defaultFromAvro(schema.valueSchema as Schema, avro.items as ResolvedSchema, v),
          ),
        ]),
      );
    case 'record': {
      const struct = new Struct(schema);
      for (const field of avro.fields ?? []) {
        const connectField = schema.field(field.name);
        if (connectField === null) continue;
        const value = (json as Record<string, unknown>)[field.name];
        struct.put(
          field.name,
          toLogicalValue(
            connectField.schema,
            defaultFromAvro(connectField.schema, field.schema, value),
          ),
        );
      }
      return struct;
    }
    case 'union': {
      const first = (avro.branches as ResolvedSchema[])[0] as ResolvedSchema;
      return first.type === 'null' ? null : defaultFromAvro(schema, first, json);
    }
    default:
      return null;
  }
}
