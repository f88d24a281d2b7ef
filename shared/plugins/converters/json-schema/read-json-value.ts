/**
 * JSON → Connect values, as Confluent's `JsonSchemaData.toConnectData` reads them: the inverse
 * of `json-schema-values.ts` (see its table). A missing or null member reads as the schema's
 * default, or null when missing or optional; a JSON value of the wrong kind is a DataError
 * (where Jackson's coercion would read a string as 0). A `oneOf` struct takes the first branch
 * whose type the value has, else the struct branch sharing the most members with it.
 */
import {
  BigDecimal,
  DataError,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  type Schema,
  Struct,
} from 'serverless-connect/connect';
import { decodeBase64 } from '../base64.js';
import { INT_RANGES } from '../int64.js';
import { int64Of } from '../json-decode.js';
import { type JsonNode, JsonNumber, nodeType } from '../json-text.js';
import { KEY_FIELD, VALUE_FIELD } from './json-schema-keywords.js';
import { isObjectMap, isOneOf } from './json-schema-values.js';

function mismatch(schema: Schema, node: JsonNode): DataError {
  return new DataError(
    `Invalid JSON ${nodeType(node)} for schema type ${schema.type.toUpperCase()}`,
  );
}

const NON_FINITE: Readonly<Record<string, number>> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  '-Infinity': Number.NEGATIVE_INFINITY,
};

function integerOf(node: JsonNode, what: string, min: number, max: number): number {
  const n = node instanceof JsonNumber && node.integral ? int64Of(node) : null;
  if (typeof n !== 'number' || n < min || n > max) {
    throw new DataError(
      `Invalid type for ${what}, underlying representation should be integer but was ${nodeType(node)}`,
    );
  }
  return n;
}

function bytesOf(text: string, message: string): Uint8Array {
  try {
    return decodeBase64(text);
  } catch (error) {
    throw new DataError(message, { cause: error });
  }
}

/** The logical value of `node`, or `undefined` when `schema` is not a logical type. */
function readLogical(schema: Schema, node: JsonNode): unknown {
  switch (schema.name) {
    case LogicalDecimal.LOGICAL_NAME:
      if (node instanceof JsonNumber) return BigDecimal.parse(node.text);
      if (typeof node === 'string') {
        try {
          return LogicalDecimal.toLogical(schema, bytesOf(node, 'Invalid bytes for Decimal field'));
        } catch (error) {
          throw new DataError('Invalid bytes for Decimal field', { cause: error });
        }
      }
      throw new DataError(
        `Invalid type for Decimal, underlying representation should be numeric or bytes but was ${nodeType(node)}`,
      );
    case LogicalDate.LOGICAL_NAME:
      return LogicalDate.toLogical(schema, integerOf(node, 'Date', -(2 ** 31), 2 ** 31 - 1));
    case LogicalTime.LOGICAL_NAME:
      return LogicalTime.toLogical(schema, integerOf(node, 'Time', -(2 ** 31), 2 ** 31 - 1));
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

/**
 * The Connect value of `node` (`undefined`: the member is missing) for `schema`. DataError when
 * the JSON does not fit the schema.
 */
export function readJsonValue(schema: Schema, node: JsonNode | undefined): unknown {
  if (node === undefined || node === null) {
    if (schema.defaultValue !== null) return schema.defaultValue;
    if (node === undefined || schema.optional) return null;
    throw new DataError(`Invalid null value for required ${schema.type.toUpperCase()} field`);
  }
  if (schema.name !== null) {
    const logical = readLogical(schema, node);
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
    case 'float64': {
      const special = typeof node === 'string' ? NON_FINITE[node] : undefined;
      if (!(node instanceof JsonNumber) && special === undefined) throw mismatch(schema, node);
      const n = special ?? Number((node as JsonNumber).text);
      return schema.type === 'float32' ? Math.fround(n) : n;
    }
    case 'boolean':
    case 'string':
      if (typeof node !== (schema.type === 'boolean' ? 'boolean' : 'string')) {
        throw mismatch(schema, node);
      }
      return node;
    case 'bytes':
      if (typeof node !== 'string') throw mismatch(schema, node);
      return bytesOf(node, 'Invalid bytes field');
    case 'array': {
      if (!Array.isArray(node)) throw mismatch(schema, node);
      const element = schema.valueSchema as Schema;
      return node.map((e) => readJsonValue(element, e));
    }
    case 'map':
      return readMap(schema, node);
    case 'struct':
      return isOneOf(schema) ? readOneOf(schema, node) : readStruct(schema, node);
  }
}

function readMap(schema: Schema, node: JsonNode): Map<unknown, unknown> {
  const keySchema = schema.keySchema as Schema;
  const valueSchema = schema.valueSchema as Schema;
  const result = new Map<unknown, unknown>();
  if (isObjectMap(schema)) {
    if (!(node instanceof Map)) {
      throw new DataError(
        `Maps with string fields should be encoded as JSON objects, but found ${nodeType(node)}`,
      );
    }
    for (const [k, v] of node) result.set(k, readJsonValue(valueSchema, v));
    return result;
  }
  if (!Array.isArray(node)) {
    throw new DataError(
      `Maps with non-string fields should be encoded as JSON array of objects, but found ${nodeType(node)}`,
    );
  }
  for (const entry of node) {
    if (!(entry instanceof Map)) {
      throw new DataError(`Found invalid map entry instead of object: ${nodeType(entry)}`);
    }
    if (entry.size !== 2) {
      throw new DataError(`Found invalid map entry, expected length 2 but found :${entry.size}`);
    }
    result.set(
      readJsonValue(keySchema, entry.get(KEY_FIELD)),
      readJsonValue(valueSchema, entry.get(VALUE_FIELD)),
    );
  }
  return result;
}

function readStruct(schema: Schema, node: JsonNode): Struct {
  if (!(node instanceof Map)) {
    throw new DataError(`Structs should be encoded as JSON objects, but found ${nodeType(node)}`);
  }
  const struct = new Struct(schema);
  for (const field of schema.fields) {
    const value = readJsonValue(field.schema, node.get(field.name));
    if (value !== null) struct.put(field, value);
  }
  return struct;
}

/** Whether `node` is of the kind a non-struct branch `schema` takes. */
function simpleMatch(schema: Schema, node: JsonNode): boolean {
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
      return node instanceof JsonNumber && node.integral;
    case 'float32':
    case 'float64':
      return node instanceof JsonNumber;
    case 'boolean':
      return typeof node === 'boolean';
    case 'string':
      return typeof node === 'string';
    case 'bytes':
      return node instanceof JsonNumber && !node.integral;
    case 'array':
      return Array.isArray(node);
    case 'map':
      return node instanceof Map || Array.isArray(node);
    case 'struct':
      return false;
  }
}

/** How many of `node`'s members a struct branch has, nested members counted too. */
function structMatch(schema: Schema, node: JsonNode): number {
  if (schema.type !== 'struct' || !(node instanceof Map)) return 0;
  let matching = 0;
  for (const field of schema.fields) {
    const member = node.get(field.name);
    if (member === undefined) continue;
    matching += 1 + structMatch(field.schema, member);
  }
  return matching;
}

/** The `oneOf` struct with the branch `node` fits: the first simple one, else the best struct. */
function readOneOf(schema: Schema, node: JsonNode): Struct {
  let best: { readonly index: number; readonly score: number } | null = null;
  for (const field of schema.fields) {
    if (simpleMatch(field.schema, node)) {
      return new Struct(schema).put(field, readJsonValue(field.schema, node));
    }
    const score = structMatch(field.schema, node);
    if (score > (best?.score ?? 0)) best = { index: field.index, score };
  }
  if (best === null) throw new DataError('Did not find matching oneof field for data');
  const field = schema.fields[best.index];
  if (field === undefined) throw new DataError('Did not find matching oneof field for data');
  return new Struct(schema).put(field, readJsonValue(field.schema, node));
}
