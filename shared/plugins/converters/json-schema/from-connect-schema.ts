/**
 * Connect schema → JSON Schema, as Confluent's `JsonSchemaData.fromConnectSchema` builds it and
 * everit prints it (the text Confluent's converter registers):
 *
 * | Connect | JSON Schema |
 * |---|---|
 * | int8, int16, int32, int64 | `"type": "integer"`, `connect.type` int8 … int64 |
 * | float32, float64 | `"type": "number"`, `connect.type` float32 / float64 |
 * | boolean, string | `"type": "boolean"`, `"type": "string"` |
 * | string with `io.confluent.connect.json.Enum.*` parameters | `"enum": [symbols]` |
 * | bytes | `"type": "string"`, `connect.type` bytes (base64) |
 * | Decimal | as bytes (`"type": "number"` with `decimal.format=NUMERIC`), `title` org.apache.kafka.connect.data.Decimal, `connect.parameters` {scale} |
 * | Date, Time, Timestamp | their integer type, `title` the logical name, `connect.version` 1 |
 * | array | `"type": "array"`, `items` |
 * | map with required string keys | `"type": "object"`, `additionalProperties`, `connect.type` map |
 * | other maps | array of objects `{key, value}` (`connect.index` 0, 1), `connect.type` map |
 * | struct | `"type": "object"`, `properties` with each field's `connect.index`; `additionalProperties: false` unless `object.additional.properties` |
 * | struct `io.confluent.connect.json.OneOf` | `oneOf` of its fields' schemas |
 * | optional T | `{"oneOf": [{"type": "null"}, T]}`, a field's `connect.index` on the `oneOf` |
 *
 * Every schema but a `oneOf` also carries `title` (the schema's name), `description` (its doc),
 * `default`, `connect.version` and `connect.parameters` (less those in Confluent's own
 * `io.confluent.connect.json` namespace). Keys come in everit's order (`title`, `description`,
 * `default`, the `connect.*` keywords, then the type's own), with the `connect.*` keywords,
 * properties and parameters in Java `HashMap` order, as the Java converter's text has them.
 */
import { ConnectSchema, DataError, LogicalDecimal, type Schema } from 'serverless-connect/connect';
import type { DecimalFormat } from '../json-encode.js';
import { type JsonNode, parseJsonText } from '../json-text.js';
import {
  CONNECT_INDEX,
  CONNECT_PARAMETERS,
  CONNECT_TYPE,
  CONNECT_TYPE_BYTES,
  CONNECT_TYPE_MAP,
  CONNECT_VERSION,
  JSON_TYPE_ENUM,
  JSON_TYPE_ENUM_PREFIX,
  KEY_FIELD,
  NAMESPACE,
  NULL_MARKER,
  VALUE_FIELD,
} from './json-schema-keywords.js';
import { isObjectMap, isOneOf, writeJsonValue } from './json-schema-values.js';
import { javaHashMap, jsonInt } from './json-tree.js';

/** The JsonSchemaData options that shape the schema. */
export interface FromConnectOptions {
  readonly decimalFormat: DecimalFormat;
  readonly allowAdditionalProperties: boolean;
}

/** `schema`, not optional (Confluent's `nonOptional`). */
function required(schema: Schema): Schema {
  return schema.optional ? new ConnectSchema({ ...schema, optional: false }) : schema;
}

const NULL_SCHEMA: JsonNode = new Map([['type', 'null']]);

function oneOf(branches: JsonNode[], index: number | null): Map<string, JsonNode> {
  const node = new Map<string, JsonNode>();
  if (index !== null) node.set(CONNECT_INDEX, jsonInt(index));
  node.set('oneOf', branches);
  return node;
}

/** The enum symbols of a string schema marked as a JSON enum, or `null`. */
function enumSymbols(schema: Schema): JsonNode[] | null {
  if (!(JSON_TYPE_ENUM in schema.parameters)) return null;
  return Object.keys(schema.parameters)
    .filter((k) => k.startsWith(JSON_TYPE_ENUM_PREFIX))
    .map((k) => k.slice(JSON_TYPE_ENUM_PREFIX.length))
    .map((symbol) => (symbol === NULL_MARKER ? null : symbol));
}

/** `schema` as the JSON Schema Confluent's converter registers for it. */
export function jsonSchemaOf(schema: Schema, options: FromConnectOptions): JsonNode {
  return convert(schema, null, false, options);
}

function convert(
  schema: Schema,
  index: number | null,
  ignoreOptional: boolean,
  options: FromConnectOptions,
): Map<string, JsonNode> {
  if (schema.type === 'struct' && isOneOf(schema)) {
    const branches: JsonNode[] = schema.optional ? [NULL_SCHEMA] : [];
    for (const field of schema.fields) {
      branches.push(convert(required(field.schema), field.index, true, options));
    }
    return oneOf(branches, index);
  }
  if (schema.type === 'struct' && schema.optional && !ignoreOptional) {
    return oneOf([NULL_SCHEMA, convert(required(schema), null, false, options)], index);
  }
  const meta: [string, JsonNode][] = [];
  const own = typeKeywords(schema, meta, options);
  const node = new Map<string, JsonNode>();
  if (schema.name !== null) node.set('title', schema.name);
  if (schema.doc !== null) node.set('description', schema.doc);
  if (schema.defaultValue !== null) node.set('default', defaultOf(schema, options));
  if (schema.version !== null) meta.push([CONNECT_VERSION, jsonInt(schema.version)]);
  const parameters = Object.entries(schema.parameters).filter(([k]) => !k.startsWith(NAMESPACE));
  if (parameters.length > 0) meta.push([CONNECT_PARAMETERS, javaHashMap(parameters)]);
  const wrapped = schema.optional && !ignoreOptional;
  if (index !== null && !wrapped) meta.push([CONNECT_INDEX, jsonInt(index)]);
  for (const [k, v] of javaHashMap(meta)) node.set(k, v);
  for (const [k, v] of own) node.set(k, v);
  return wrapped ? oneOf([NULL_SCHEMA, node], index) : node;
}

/** The default as JSON (`writeJsonValue` of it). */
function defaultOf(schema: Schema, options: FromConnectOptions): JsonNode {
  const text = writeJsonValue(schema, schema.defaultValue, options.decimalFormat);
  return text === undefined ? null : (parseJsonText(text) ?? null);
}

/** The keywords of the schema's type, in everit's order; `connect.type` goes to `meta`. */
function typeKeywords(
  schema: Schema,
  meta: [string, JsonNode][],
  options: FromConnectOptions,
): [string, JsonNode][] {
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
    case 'float32':
    case 'float64':
      meta.push([CONNECT_TYPE, schema.type]);
      return [['type', schema.type.startsWith('int') ? 'integer' : 'number']];
    case 'boolean':
      return [['type', 'boolean']];
    case 'string': {
      const symbols = enumSymbols(schema);
      return symbols === null ? [['type', 'string']] : [['enum', symbols]];
    }
    case 'bytes': {
      meta.push([CONNECT_TYPE, CONNECT_TYPE_BYTES]);
      const numeric =
        schema.name === LogicalDecimal.LOGICAL_NAME && options.decimalFormat === 'NUMERIC';
      return [['type', numeric ? 'number' : 'string']];
    }
    case 'array':
      return [
        ['type', 'array'],
        ['items', convert(schema.valueSchema as Schema, null, false, options)],
      ];
    case 'map': {
      meta.push([CONNECT_TYPE, CONNECT_TYPE_MAP]);
      const values = schema.valueSchema as Schema;
      if (isObjectMap(schema)) {
        return [
          ['type', 'object'],
          ['additionalProperties', convert(values, null, false, options)],
        ];
      }
      const entry = new Map<string, JsonNode>([
        ['type', 'object'],
        [
          'properties',
          javaHashMap([
            [KEY_FIELD, convert(schema.keySchema as Schema, 0, false, options)],
            [VALUE_FIELD, convert(values, 1, false, options)],
          ]),
        ],
      ]);
      return [
        ['type', 'array'],
        ['items', entry],
      ];
    }
    case 'struct': {
      const properties = schema.fields.map((f): [string, JsonNode] => [
        f.name,
        convert(f.schema, f.index, false, options),
      ]);
      const keywords: [string, JsonNode][] = [['type', 'object']];
      if (properties.length > 0) keywords.push(['properties', javaHashMap(properties)]);
      if (!options.allowAdditionalProperties) keywords.push(['additionalProperties', false]);
      return keywords;
    }
    default:
      throw new DataError(`Unsupported type ${String(schema.type)}`);
  }
}
