/**
 * JSON → Connect data, as Kafka Connect's `JsonConverter.asConnectSchema` and
 * `convertToConnect` read it. Where Connect silently coerces a JSON value of the wrong kind
 * (a string read as int32 gives 0), this decoder throws a DataError instead.
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
  Struct,
} from 'serverless-connect/connect';
import { decodeBase64 } from './base64.js';
import { exactInt64, INT_RANGES, INT64_MAX, INT64_MIN, int64Value } from './int64.js';
import type { JsonCodecOptions } from './json-encode.js';
import { type JsonNode, JsonNumber, nodeType, parseJsonText } from './json-text.js';
import { LruCache } from './lru-cache.js';

const BUILDERS: Readonly<Record<string, () => SchemaBuilder>> = {
  boolean: SchemaBuilder.bool,
  int8: SchemaBuilder.int8,
  int16: SchemaBuilder.int16,
  int32: SchemaBuilder.int32,
  int64: SchemaBuilder.int64,
  float: SchemaBuilder.float32,
  double: SchemaBuilder.float64,
  bytes: SchemaBuilder.bytes,
  string: SchemaBuilder.string,
};

const NON_FINITE: Readonly<Record<string, number>> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  '-Infinity': Number.NEGATIVE_INFINITY,
};

function mismatch(schema: Schema, node: JsonNode): DataError {
  return new DataError(
    `Invalid JSON ${nodeType(node)} for schema type ${schema.type.toUpperCase()}`,
  );
}

/** An int64 value of a JSON number (`12`, `1.0`, `1e3`); `null` for a fraction or beyond int64. */
export function int64Of(num: JsonNumber): number | bigint | null {
  if (num.integral && num.text.length <= 15) return Number(num.text);
  if (num.integral) {
    const value = BigInt(num.text);
    return value < INT64_MIN || value > INT64_MAX ? null : int64Value(value);
  }
  const value = exactInt64(BigDecimal.parse(num.text));
  return value === null ? null : int64Value(value);
}

/** Reads Connect schemas and values from parsed JSON. One per converter (it caches schemas). */
export class JsonDecoder {
  readonly #options: JsonCodecOptions;
  readonly #schemaCache: LruCache<string, Schema>;
  #lastSchemaText: string | undefined;

  constructor(options: JsonCodecOptions) {
    this.#options = options;
    this.#schemaCache = new LruCache(options.cacheSize);
  }

  /** The text of the last schema read: the likeliest text of the next one. */
  get lastSchemaText(): string | undefined {
    return this.#lastSchemaText;
  }

  /** The schema of a JSON schema text (`null` for `null`), cached by that text. */
  schemaFromText(text: string): Schema | null {
    const cached = this.#schemaCache.get(text);
    if (cached !== undefined) {
      this.#lastSchemaText = text;
      return cached;
    }
    const schema = this.schema(parseJsonText(text));
    if (schema !== null) {
      this.#schemaCache.set(text, schema);
      this.#lastSchemaText = text;
    }
    return schema;
  }

  /** The Connect schema a JSON schema describes; `null` for JSON `null`. Throws DataError. */
  schema(node: JsonNode | undefined): Schema | null {
    return node === null ? null : this.#parse(node);
  }

  #parse(node: JsonNode | undefined): Schema {
    const type = node instanceof Map ? node.get('type') : undefined;
    if (!(node instanceof Map) || typeof type !== 'string') {
      throw new DataError("Schema must contain 'type' field");
    }
    const builder = this.#builder(type, node);
    if (node.get('optional') === true) builder.optional();
    else builder.required();
    const name = node.get('name');
    if (typeof name === 'string') builder.name(name);
    const version = node.get('version');
    if (version instanceof JsonNumber && version.integral) builder.version(Number(version.text));
    const doc = node.get('doc');
    if (typeof doc === 'string') builder.doc(doc);
    const parameters = node.get('parameters');
    if (parameters instanceof Map) {
      for (const [key, value] of parameters) {
        if (typeof value !== 'string') {
          throw new DataError('Schema parameters must have string values.');
        }
        builder.parameter(key, value);
      }
    }
    if (node.has('default')) builder.defaultValue(this.value(builder.build(), node.get('default')));
    return builder.build();
  }

  #builder(type: string, node: Map<string, JsonNode>): SchemaBuilder {
    const primitive = BUILDERS[type];
    if (primitive !== undefined) return primitive();
    switch (type) {
      case 'array': {
        const items = node.get('items');
        if (items === undefined || items === null) {
          throw new DataError('Array schema did not specify the element type');
        }
        return SchemaBuilder.array(this.#parse(items));
      }
      case 'map': {
        const keys = node.get('keys');
        if (keys === undefined) throw new DataError('Map schema did not specify the key type');
        const values = node.get('values');
        if (values === undefined) throw new DataError('Map schema did not specify the value type');
        return SchemaBuilder.map(this.#parse(keys), this.#parse(values));
      }
      case 'struct': {
        const builder = SchemaBuilder.struct();
        const fields = node.get('fields');
        if (!Array.isArray(fields)) {
          throw new DataError('Struct schema\'s "fields" argument is not an array.');
        }
        for (const field of fields) {
          const fieldName = field instanceof Map ? field.get('field') : undefined;
          if (typeof fieldName !== 'string') {
            throw new DataError("Struct schema's field name not specified properly");
          }
          builder.field(fieldName, this.#parse(field));
        }
        return builder;
      }
      default:
        throw new DataError(`Unknown schema type: ${type}`);
    }
  }

  /**
   * The Connect value of `node` for `schema` (`null`: infer it, as Connect does for
   * schemaless JSON: integers are int64, other numbers float64, objects maps with string
   * keys). A missing or null node gives the schema's default (with
   * `replace.null.with.default`), or `null` when the schema is optional.
   */
  value(schema: Schema | null, node: JsonNode | undefined): unknown {
    if (schema === null) return this.#schemaless(node);
    if (node === undefined || node === null) {
      if (schema.defaultValue !== null && this.#options.replaceNullWithDefault) {
        return schema.defaultValue;
      }
      if (schema.optional) return null;
      throw new DataError(`Invalid null value for required ${schema.type.toUpperCase()} field`);
    }
    if (schema.name !== null) {
      const logical = this.#logical(schema, node);
      if (logical !== undefined) return logical;
    }
    switch (schema.type) {
      case 'int8':
      case 'int16':
      case 'int32': {
        const [min, max] = INT_RANGES[schema.type];
        const n = node instanceof JsonNumber ? int64Of(node) : null;
        if (typeof n !== 'number' || n < min || n > max) throw mismatch(schema, node);
        return n;
      }
      case 'int64': {
        const n = node instanceof JsonNumber ? int64Of(node) : null;
        if (n === null) throw mismatch(schema, node);
        return n;
      }
      case 'float32':
        return Math.fround(this.#float(schema, node));
      case 'float64':
        return this.#float(schema, node);
      case 'boolean':
        if (typeof node !== 'boolean') throw mismatch(schema, node);
        return node;
      case 'string':
        if (typeof node !== 'string') throw mismatch(schema, node);
        return node;
      case 'bytes':
        if (typeof node !== 'string') throw mismatch(schema, node);
        return this.#bytes(node, 'Invalid bytes field');
      case 'array': {
        if (!Array.isArray(node)) throw mismatch(schema, node);
        const element = schema.valueSchema;
        return node.map((e) => this.value(element, e));
      }
      case 'map':
        return this.#map(schema, node);
      case 'struct':
        return this.#struct(schema, node);
    }
  }

  #float(schema: Schema, node: JsonNode): number {
    if (node instanceof JsonNumber) return Number(node.text);
    const special = typeof node === 'string' ? NON_FINITE[node] : undefined;
    if (special === undefined) throw mismatch(schema, node);
    return special;
  }

  #bytes(text: string, message: string): Uint8Array {
    try {
      return decodeBase64(text);
    } catch (error) {
      throw new DataError(message, { cause: error });
    }
  }

  /** The logical value of `node`, or `undefined` when `schema` is not a logical type. */
  #logical(schema: Schema, node: JsonNode): unknown {
    switch (schema.name) {
      case LogicalDecimal.LOGICAL_NAME:
        if (node instanceof JsonNumber) return BigDecimal.parse(node.text);
        if (typeof node === 'string') {
          const bytes = this.#bytes(node, 'Invalid bytes for Decimal field');
          try {
            return LogicalDecimal.toLogical(schema, bytes);
          } catch (error) {
            throw new DataError('Invalid bytes for Decimal field', { cause: error });
          }
        }
        throw new DataError(
          `Invalid type for Decimal, underlying representation should be numeric or bytes but was ${nodeType(node)}`,
        );
      case LogicalDate.LOGICAL_NAME:
        return LogicalDate.toLogical(schema, this.#int32(node, 'Date'));
      case LogicalTime.LOGICAL_NAME:
        return LogicalTime.toLogical(schema, this.#int32(node, 'Time'));
      case LogicalTimestamp.LOGICAL_NAME: {
        const millis = node instanceof JsonNumber && node.integral ? int64Of(node) : null;
        if (millis === null) {
          throw new DataError(
            `Invalid type for Timestamp, underlying representation should be integral but was ${nodeType(node)}`,
          );
        }
        return LogicalTimestamp.toLogical(schema, millis);
      }
      default:
        return undefined;
    }
  }

  /** Jackson's `isInt()`: an integer token within the int32 range. */
  #int32(node: JsonNode, what: string): number {
    const n = node instanceof JsonNumber && node.integral ? int64Of(node) : null;
    if (typeof n !== 'number' || n < -2147483648 || n > 2147483647) {
      throw new DataError(
        `Invalid type for ${what}, underlying representation should be integer but was ${nodeType(node)}`,
      );
    }
    return n;
  }

  #map(schema: Schema, node: JsonNode): Map<unknown, unknown> {
    const { keySchema, valueSchema } = schema;
    const result = new Map<unknown, unknown>();
    if (keySchema === null || keySchema.type === 'string') {
      if (!(node instanceof Map)) {
        throw new DataError(
          `Maps with string fields should be encoded as JSON objects, but found ${nodeType(node)}`,
        );
      }
      for (const [k, v] of node) result.set(k, this.value(valueSchema, v));
      return result;
    }
    if (!Array.isArray(node)) {
      throw new DataError(
        `Maps with non-string fields should be encoded as JSON array of tuples, but found ${nodeType(node)}`,
      );
    }
    for (const entry of node) {
      if (!Array.isArray(entry)) {
        throw new DataError(`Found invalid map entry instead of array tuple: ${nodeType(entry)}`);
      }
      if (entry.length !== 2) {
        throw new DataError(
          `Found invalid map entry, expected length 2 but found :${entry.length}`,
        );
      }
      result.set(this.value(keySchema, entry[0]), this.value(valueSchema, entry[1]));
    }
    return result;
  }

  #struct(schema: Schema, node: JsonNode): Struct {
    if (!(node instanceof Map)) {
      throw new DataError(`Structs should be encoded as JSON objects, but found ${nodeType(node)}`);
    }
    const struct = new Struct(schema);
    for (const field of schema.fields) {
      struct.put(field, this.value(field.schema, node.get(field.name)));
    }
    return struct;
  }

  #schemaless(node: JsonNode | undefined): unknown {
    if (node === undefined || node === null) return null;
    if (typeof node === 'boolean' || typeof node === 'string') return node;
    if (node instanceof JsonNumber) {
      if (!node.integral) return Number(node.text);
      const n = int64Of(node);
      if (n === null) throw new DataError(`Integer ${node.text} is outside the int64 range`);
      return n;
    }
    if (Array.isArray(node)) return node.map((e) => this.#schemaless(e));
    const result = new Map<string, unknown>();
    for (const [k, v] of node) result.set(k, this.#schemaless(v));
    return result;
  }
}
