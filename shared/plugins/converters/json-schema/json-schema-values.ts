/**
 * Connect values → the JSON a JSON Schema describes, as Confluent's
 * `JsonSchemaData.fromConnectData` converts them, written as Jackson writes them:
 *
 * | Connect | JSON |
 * |---|---|
 * | int8 … int64, float32, float64, boolean, string | number (Java's float format), boolean, string |
 * | bytes | base64 string |
 * | Decimal | base64 of the unscaled bytes (`decimal.format=BASE64`) or a number (`NUMERIC`) |
 * | Date, Time, Timestamp | days, millis of the day, epoch millis (integers) |
 * | array | array |
 * | map with required string keys | object |
 * | other maps | array of `{"key": k, "value": v}` |
 * | struct | object in field order; a null field without default is left out |
 * | struct `io.confluent.connect.json.OneOf` | its one non-null field's value |
 *
 * A null value takes the schema's default, else `null` when the schema is optional; a null in a
 * required schema without default is left out (Confluent writes nothing: a field is omitted, a
 * whole value becomes no bytes). `read-json-value.ts` reads it back.
 */
import {
  DataError,
  describeValue,
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
} from 'serverless-connect/connect';
import { encodeBase64 } from '../base64.js';
import { javaBigDecimalToString } from '../java-format.js';
import { type DecimalFormat, invalidType, isDecimal, primitiveJson } from '../json-encode.js';
import { quoteJson } from '../json-quote.js';
import { JSON_TYPE_ONE_OF, KEY_FIELD, VALUE_FIELD } from './json-schema-keywords.js';

/** Whether `schema` is a `oneOf` struct. */
export function isOneOf(schema: Schema): boolean {
  return schema.type === 'struct' && schema.name === JSON_TYPE_ONE_OF;
}

/** Whether a map schema's values are written as a JSON object (required string keys). */
export function isObjectMap(schema: Schema): boolean {
  const key = schema.keySchema;
  return key !== null && key.type === 'string' && !key.optional;
}

function asDate(what: string, value: unknown): Date {
  if (!(value instanceof Date)) {
    throw new DataError(`Invalid type for ${what}, expected Date but was ${describeValue(value)}`);
  }
  return value;
}

/**
 * The JSON text of `value` of `schema`, or `undefined` for a null value that has no JSON (a
 * required schema without default). DataError when the value does not fit the schema.
 */
export function writeJsonValue(
  schema: Schema,
  value: unknown,
  decimalFormat: DecimalFormat,
): string | undefined {
  if (value === null || value === undefined) {
    if (schema.defaultValue !== null)
      return writeJsonValue(schema, schema.defaultValue, decimalFormat);
    return schema.optional ? 'null' : undefined;
  }
  const write = (s: Schema, v: unknown) => writeJsonValue(s, v, decimalFormat) ?? 'null';
  switch (schema.name) {
    case LogicalDecimal.LOGICAL_NAME:
      if (!isDecimal(value)) {
        throw new DataError(
          `Invalid type for Decimal, expected BigDecimal but was ${describeValue(value)}`,
        );
      }
      return decimalFormat === 'NUMERIC'
        ? javaBigDecimalToString(value)
        : `"${encodeBase64(LogicalDecimal.fromLogical(schema, value))}"`;
    case LogicalDate.LOGICAL_NAME:
      return String(LogicalDate.fromLogical(schema, asDate('Date', value)));
    case LogicalTime.LOGICAL_NAME:
      return String(LogicalTime.fromLogical(schema, asDate('Time', value)));
    case LogicalTimestamp.LOGICAL_NAME:
      return String(LogicalTimestamp.fromLogical(schema, asDate('Timestamp', value)));
    default:
      break;
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
      if (!(value instanceof Uint8Array)) {
        throw new DataError(`Invalid type for bytes type: ${describeValue(value)}`);
      }
      return `"${encodeBase64(value)}"`;
    case 'array': {
      if (!Array.isArray(value)) throw invalidType(schema, value);
      const element = schema.valueSchema as Schema;
      return `[${value.map((e) => write(element, e)).join(',')}]`;
    }
    case 'map': {
      if (!(value instanceof Map) && !isPlainObject(value)) throw invalidType(schema, value);
      const keySchema = schema.keySchema as Schema;
      const valueSchema = schema.valueSchema as Schema;
      const entries = mapEntries(value);
      if (isObjectMap(schema)) {
        const members = entries.map(([k, v]) => {
          if (typeof k !== 'string') throw invalidType(keySchema, k);
          return `${quoteJson(k)}:${write(valueSchema, v)}`;
        });
        return `{${members.join(',')}}`;
      }
      const pairs = entries.map(
        ([k, v]) =>
          `{"${KEY_FIELD}":${write(keySchema, k)},"${VALUE_FIELD}":${write(valueSchema, v)}}`,
      );
      return `[${pairs.join(',')}]`;
    }
    case 'struct':
      if (!isStruct(value) || !(value.schema === schema || schemaEquals(value.schema, schema))) {
        throw new DataError('Mismatching schema.');
      }
      return writeStruct(schema, value, decimalFormat);
  }
}

function writeStruct(
  schema: Schema,
  struct: StructView,
  decimalFormat: DecimalFormat,
): string | undefined {
  if (isOneOf(schema)) {
    for (const field of schema.fields) {
      const branch = struct.getWithoutDefault(field.name) ?? field.schema.defaultValue;
      if (branch !== null && branch !== undefined) {
        return writeJsonValue(field.schema, branch, decimalFormat);
      }
    }
    return writeJsonValue(schema, null, decimalFormat);
  }
  let out = '{';
  for (const field of schema.fields) {
    // A null field takes its default here (Confluent reads the field with `Struct.get`).
    const json = writeJsonValue(field.schema, struct.getWithoutDefault(field.name), decimalFormat);
    if (json === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${quoteJson(field.name)}:${json}`;
  }
  return `${out}}`;
}
