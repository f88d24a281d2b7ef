/**
 * Connect data → JSON text, as Kafka Connect's `JsonConverter.convertToJson` and
 * `asJsonSchema` write it through Jackson: the same key order, number formats (Java's),
 * string escapes and base64, so the bytes are identical.
 */
import {
  ConnectSchema,
  DataError,
  type DecimalValue,
  describeValue,
  type Field,
  isPlainObject,
  isStruct,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  mapEntries,
  type Schema,
  type StructView,
  schemaEquals,
  type Type,
} from 'serverless-connect/connect';
import { encodeBase64 } from './base64.js';
import { INT_RANGES, INT64_MAX, INT64_MIN } from './int64.js';
import { javaBigDecimalToString, javaDoubleToString, javaFloatToString } from './java-format.js';
import { quoteJson } from './json-quote.js';
import { LruCache } from './lru-cache.js';

/** How Decimal values are written: base64 of the unscaled bytes, or a JSON number. */
export type DecimalFormat = 'BASE64' | 'NUMERIC';

/** The JsonConverter settings that shape the JSON (`decimal.format`, `replace.null.with.default`). */
export interface JsonCodecOptions {
  readonly decimalFormat: DecimalFormat;
  readonly replaceNullWithDefault: boolean;
  /** `schemas.cache.size`. */
  readonly cacheSize: number;
}

/** Connect's JSON names of the schema types (`float` and `double` for the float types). */
export const JSON_TYPE_NAMES: Readonly<Record<Type, string>> = {
  int8: 'int8',
  int16: 'int16',
  int32: 'int32',
  int64: 'int64',
  float32: 'float',
  float64: 'double',
  boolean: 'boolean',
  string: 'string',
  bytes: 'bytes',
  array: 'array',
  map: 'map',
  struct: 'struct',
};

/** Connect's `Invalid type for INT32: ...` error. */
export function invalidType(schema: Schema | null, value: unknown): DataError {
  const type = schema === null ? 'unknown schema' : schema.type.toUpperCase();
  return new DataError(`Invalid type for ${type}: ${describeValue(value)}`);
}

/** A finite number as Java prints it, or Jackson's quoted `"NaN"`, `"Infinity"`, `"-Infinity"`. */
function floatJson(text: string, value: number): string {
  return Number.isFinite(value) ? text : `"${text}"`;
}

/** An int64 (a safe number or a bigint in range) as JSON; DataError for anything else. */
function int64Json(schema: Schema | null, value: unknown): string {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX) return String(value);
  throw invalidType(schema, value);
}

/**
 * A value of a number, boolean or string schema as Connect's JsonConverter writes it (floats as
 * Java prints them); DataError when the value does not fit the type (or the schema is not one of
 * those). Shared by the JSON
 * converters (JsonConverter, JsonSchemaConverter).
 */
export function primitiveJson(schema: Schema, value: unknown): string {
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32': {
      const [min, max] = INT_RANGES[schema.type];
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
        throw invalidType(schema, value);
      }
      return String(value);
    }
    case 'int64':
      return int64Json(schema, value);
    case 'float32':
      if (typeof value !== 'number') throw invalidType(schema, value);
      return floatJson(javaFloatToString(value), value);
    case 'float64':
      if (typeof value !== 'number') throw invalidType(schema, value);
      return floatJson(javaDoubleToString(value), value);
    case 'boolean':
      if (typeof value !== 'boolean') throw invalidType(schema, value);
      return value ? 'true' : 'false';
    case 'string':
      if (typeof value !== 'string') throw invalidType(schema, value);
      return quoteJson(value);
    default:
      throw invalidType(schema, value);
  }
}

/** Whether `value` is a Decimal's value (an unscaled bigint and a scale). */
export function isDecimal(value: unknown): value is DecimalValue {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as DecimalValue).unscaled === 'bigint' &&
    Number.isSafeInteger((value as DecimalValue).scale)
  );
}

function asDate(what: string, value: unknown): Date {
  if (!(value instanceof Date)) {
    throw new DataError(`Invalid type for ${what}, expected Date but was ${describeValue(value)}`);
  }
  return value;
}

/** Writes Connect values and schemas as JSON text. One per converter (it caches schemas). */
export class JsonEncoder {
  readonly #options: JsonCodecOptions;
  readonly #schemaCache: LruCache<Schema, string>;

  constructor(options: JsonCodecOptions) {
    this.#options = options;
    this.#schemaCache = new LruCache(options.cacheSize);
  }

  /** `{"schema":…,"payload":…}`; the schema is `null` when `schema` is. */
  envelope(schema: Schema | null, value: unknown): string {
    const schemaJson = schema === null ? 'null' : this.schema(schema);
    return `{"schema":${schemaJson},"payload":${this.value(schema, value)}}`;
  }

  /**
   * The JSON form of a schema: `type`, then `items` / `keys` and `values` / `fields`,
   * `optional`, `name`, `version`, `doc`, `parameters`, `default` (struct fields end with
   * `field`), as Connect's `asJsonSchema`.
   */
  schema(schema: Schema): string {
    const cached = this.#schemaCache.get(schema);
    if (cached !== undefined) return cached;
    let out = `{"type":"${JSON_TYPE_NAMES[schema.type]}"`;
    const nested = (s: Schema | null) => (s === null ? 'null' : this.schema(s));
    if (schema.type === 'array') out += `,"items":${nested(schema.valueSchema)}`;
    else if (schema.type === 'map') {
      out += `,"keys":${nested(schema.keySchema)},"values":${nested(schema.valueSchema)}`;
    } else if (schema.type === 'struct') {
      const fields = schema.fields.map(
        (f) => `${this.schema(f.schema).slice(0, -1)},"field":${quoteJson(f.name)}}`,
      );
      out += `,"fields":[${fields.join(',')}]`;
    }
    out += `,"optional":${schema.optional}`;
    if (schema.name !== null) out += `,"name":${quoteJson(schema.name)}`;
    if (schema.version !== null) out += `,"version":${schema.version}`;
    if (schema.doc !== null) out += `,"doc":${quoteJson(schema.doc)}`;
    const parameters = Object.entries(schema.parameters);
    if (parameters.length > 0) {
      out += `,"parameters":{${parameters.map(([k, v]) => `${quoteJson(k)}:${quoteJson(v)}`).join(',')}}`;
    }
    if (schema.defaultValue !== null) {
      out += `,"default":${this.value(schema, schema.defaultValue)}`;
    }
    out += '}';
    this.#schemaCache.set(schema, out);
    return out;
  }

  /**
   * The JSON of `value` described by `schema` (`null` for schemaless values, whose type is
   * inferred). A null value becomes the schema's default (with `replace.null.with.default`),
   * or `null` when the schema is optional; DataError otherwise and when the value does not
   * fit the schema.
   */
  value(schema: Schema | null, value: unknown): string {
    if (value === null || value === undefined) {
      if (schema === null) return 'null';
      if (schema.defaultValue !== null && this.#options.replaceNullWithDefault) {
        return this.value(schema, schema.defaultValue);
      }
      if (schema.optional) return 'null';
      throw new DataError(
        'Conversion error: null value for field that is required and has no default value',
      );
    }
    if (schema === null) return this.#schemaless(value);
    if (schema.name !== null) {
      const logical = this.#logical(schema, value);
      if (logical !== null) return logical;
    }
    switch (schema.type) {
      case 'int8':
      case 'int16':
      case 'int32':
      case 'int64':
      case 'float32':
      case 'float64':
      case 'boolean':
      case 'string':
        return primitiveJson(schema, value);
      case 'bytes':
        if (!(value instanceof Uint8Array)) throw invalidType(schema, value);
        return `"${encodeBase64(value)}"`;
      case 'array': {
        if (!Array.isArray(value)) throw invalidType(schema, value);
        const element = schema.valueSchema;
        return this.#array(element, value);
      }
      case 'map':
        if (!(value instanceof Map) && !isPlainObject(value)) throw invalidType(schema, value);
        return this.#map(
          schema.keySchema,
          schema.valueSchema,
          value,
          schema.keySchema?.type === 'string',
        );
      case 'struct':
        if (!isStruct(value) || !this.#sameStructSchema(value.schema, schema)) {
          throw new DataError('Mismatching schema.');
        }
        return this.#struct(schema, value);
    }
  }

  /** The JSON of a logical value, or `null` when `schema` is not a logical type. */
  #logical(schema: Schema, value: unknown): string | null {
    switch (schema.name) {
      case LogicalDecimal.LOGICAL_NAME:
        if (!isDecimal(value)) {
          throw new DataError(
            `Invalid type for Decimal, expected BigDecimal but was ${describeValue(value)}`,
          );
        }
        return this.#options.decimalFormat === 'NUMERIC'
          ? javaBigDecimalToString(value)
          : `"${encodeBase64(LogicalDecimal.fromLogical(schema, value))}"`;
      case LogicalDate.LOGICAL_NAME:
        return String(LogicalDate.fromLogical(schema, asDate('Date', value)));
      case LogicalTime.LOGICAL_NAME:
        return String(LogicalTime.fromLogical(schema, asDate('Time', value)));
      case LogicalTimestamp.LOGICAL_NAME:
        return String(LogicalTimestamp.fromLogical(schema, asDate('Timestamp', value)));
      default:
        return null;
    }
  }

  #map(
    keySchema: Schema | null,
    valueSchema: Schema | null,
    value: object,
    objectMode: boolean,
  ): string {
    const entries = mapEntries(value);
    if (objectMode) {
      const members = entries.map(([k, v]) => {
        const key = k === null || k === undefined ? 'null' : this.#keyText(keySchema, k);
        return `${quoteJson(key)}:${this.value(valueSchema, v)}`;
      });
      return `{${members.join(',')}}`;
    }
    const pairs = entries.map(
      ([k, v]) => `[${this.value(keySchema, k)},${this.value(valueSchema, v)}]`,
    );
    return `[${pairs.join(',')}]`;
  }

  #keyText(keySchema: Schema | null, key: unknown): string {
    if (typeof key !== 'string') throw invalidType(keySchema, key);
    return key;
  }

  #struct(schema: Schema, struct: StructView): string {
    let out = '{';
    const fields = schema.fields;
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i] as Field;
      if (i > 0) out += ',';
      out += `${quoteJson(f.name)}:${this.value(f.schema, struct.getWithoutDefault(f.name))}`;
    }
    return `${out}}`;
  }

  #array(element: Schema | null, value: readonly unknown[]): string {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += this.value(element, value[i]);
    }
    return `${out}]`;
  }

  /**
   * Whether a struct of schema `actual` may be written with `expected`. Besides equal schemas,
   * a struct schema's own default value is built on the schema without that default.
   */
  #sameStructSchema(actual: Schema, expected: Schema): boolean {
    if (actual === expected || schemaEquals(actual, expected)) return true;
    return (
      expected.defaultValue !== null &&
      schemaEquals(actual, new ConnectSchema({ ...expected, defaultValue: null }))
    );
  }

  /** A value without a schema, typed as Connect infers it from its Java class. */
  #schemaless(value: unknown): string {
    switch (typeof value) {
      case 'number':
        return Number.isSafeInteger(value)
          ? String(value)
          : floatJson(javaDoubleToString(value), value);
      case 'bigint':
        return int64Json(null, value);
      case 'boolean':
        return value ? 'true' : 'false';
      case 'string':
        return quoteJson(value);
      default:
        break;
    }
    if (value instanceof Uint8Array) return `"${encodeBase64(value)}"`;
    if (Array.isArray(value)) return this.#array(null, value);
    if (value instanceof Map || isPlainObject(value)) {
      const objectMode = mapEntries(value).every(([k]) => typeof k === 'string');
      return this.#map(null, null, value, objectMode);
    }
    if (isStruct(value)) throw new DataError('Mismatching schema.');
    throw new DataError(`${describeValue(value)} does not have a corresponding schema type.`);
  }
}
