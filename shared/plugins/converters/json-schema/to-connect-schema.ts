/**
 * JSON Schema → Connect schema, as Confluent's `JsonSchemaData.toConnectSchema` reads the
 * schema a record was written with: the inverse of `from-connect-schema.ts` for schemas Connect
 * wrote (the `connect.*` keywords, `title`, `description`, `default`), and for schemas a user
 * registered:
 *
 * | JSON Schema | Connect |
 * |---|---|
 * | `integer`, `number` (no `connect.type`) | int64, float64 |
 * | `string`, `boolean` | string, boolean |
 * | `enum`, `const` (of strings, or without `type`) | string with `io.confluent.connect.json.Enum` parameters |
 * | `object` with `properties` | struct, fields in `connect.index` order, else as written; every field required unless `use.optional.for.nonrequired` and not in `required` |
 * | `array` with one `items` schema | array |
 * | `oneOf` / `anyOf` / a type list of `null` and one other | that other, optional |
 * | other `oneOf` / `anyOf` / type lists | struct `io.confluent.connect.json.OneOf` with an optional field per branch (`null` makes it optional) |
 * | `allOf` | a struct of all its objects' properties, else its union, else its subschemas merged |
 * | `$ref` to `#…` in the same schema | the schema it points to |
 *
 * An object without `type` is read by its keywords (`properties` → object, `items` → array).
 * Unsupported, as DataError: an empty schema (`{}`, `true`) that admits any JSON, `null` alone,
 * tuple `items`, references to other registered schemas, and recursive schemas.
 */
import { DataError, type Schema, SchemaBuilder } from 'serverless-connect/connect';
import { type JsonNode, JsonNumber } from '../json-text.js';
import {
  CONNECT_INDEX,
  CONNECT_PARAMETERS,
  CONNECT_TYPE,
  CONNECT_TYPE_BYTES,
  CONNECT_TYPE_MAP,
  CONNECT_VERSION,
  JSON_TYPE_ENUM,
  JSON_TYPE_ENUM_PREFIX,
  JSON_TYPE_ONE_OF,
  KEY_FIELD,
  NULL_MARKER,
  oneOfField,
  VALUE_FIELD,
} from './json-schema-keywords.js';
import { readJsonValue } from './read-json-value.js';

export interface ToConnectOptions {
  /** `use.optional.for.nonrequired`. */
  readonly useOptionalForNonRequired: boolean;
}

type SchemaNode = Map<string, JsonNode>;

const NUMBER_BUILDERS: Readonly<Record<string, () => SchemaBuilder>> = {
  int8: SchemaBuilder.int8,
  int16: SchemaBuilder.int16,
  int32: SchemaBuilder.int32,
  int64: SchemaBuilder.int64,
  float32: SchemaBuilder.float32,
  float64: SchemaBuilder.float64,
  [CONNECT_TYPE_BYTES]: SchemaBuilder.bytes,
};

const isNullSchema = (node: JsonNode): boolean =>
  node instanceof Map && node.get('type') === 'null';

const intOf = (node: JsonNode | undefined): number | null =>
  node instanceof JsonNumber && node.integral ? Number(node.text) : null;

/**
 * The Connect schema of the JSON Schema `root` (parsed from the registry's text), with `version`
 * (the registry's) unless the schema carries `connect.version`.
 * @throws DataError for a schema Connect cannot type (see the module notes).
 */
export function connectSchemaOf(
  root: JsonNode,
  version: number | null,
  options: ToConnectOptions,
): Schema {
  return new Reader(root, options).convert(root, version, false);
}

class Reader {
  readonly #root: JsonNode;
  readonly #options: ToConnectOptions;
  readonly #refs: string[] = [];

  constructor(root: JsonNode, options: ToConnectOptions) {
    this.#root = root;
    this.#options = options;
  }

  convert(node: JsonNode, version: number | null, forceOptional: boolean): Schema {
    if (!(node instanceof Map) || node.size === 0) {
      throw new DataError(
        `Unsupported JSON schema ${node instanceof Map ? '{}' : String(node)}: Connect needs a type`,
      );
    }
    const ref = node.get('$ref');
    if (typeof ref === 'string') return this.#viaRef(ref, version, forceOptional);
    const union = node.get('oneOf') ?? node.get('anyOf');
    if (Array.isArray(union)) return this.#union(node, union, version, forceOptional);
    const all = node.get('allOf');
    if (Array.isArray(all)) return this.#allOf(node, all, version, forceOptional);
    const type = node.get('type');
    if (Array.isArray(type)) {
      const branches = type.map((t): JsonNode => new Map([...node, ['type', t]]));
      return this.#union(new Map(), branches, version, forceOptional);
    }
    const builder = this.#builder(node, typeof type === 'string' ? type : inferredType(node));
    return this.#finish(builder, node, version, forceOptional);
  }

  #builder(node: SchemaNode, type: string): SchemaBuilder {
    const connectType = node.get(CONNECT_TYPE);
    const values =
      node.get('enum') ?? (node.has('const') ? [node.get('const') ?? null] : undefined);
    if (Array.isArray(values) && (type === 'string' || !node.has('type'))) return enumOf(values);
    switch (type) {
      case 'boolean':
        return SchemaBuilder.bool();
      case 'integer':
      case 'number': {
        if (typeof connectType !== 'string') {
          return type === 'integer' ? SchemaBuilder.int64() : SchemaBuilder.float64();
        }
        const number = NUMBER_BUILDERS[connectType];
        if (number === undefined) throw new DataError(`Unsupported type ${connectType}`);
        return number();
      }
      case 'string':
        return connectType === CONNECT_TYPE_BYTES ? SchemaBuilder.bytes() : SchemaBuilder.string();
      case 'array': {
        const items = node.get('items');
        if (!(items instanceof Map)) {
          throw new DataError('Array schema did not specify the items type');
        }
        const entry = connectType === CONNECT_TYPE_MAP ? items.get('properties') : undefined;
        if (entry instanceof Map) {
          return SchemaBuilder.map(
            this.convert(entry.get(KEY_FIELD) ?? null, null, false),
            this.convert(entry.get(VALUE_FIELD) ?? null, null, false),
          );
        }
        return SchemaBuilder.array(this.convert(items, null, false));
      }
      case 'object':
        if (connectType === CONNECT_TYPE_MAP) {
          const values = node.get('additionalProperties');
          return SchemaBuilder.map(
            SchemaBuilder.string().build(),
            this.convert(values ?? null, null, false),
          );
        }
        return this.#struct([node]);
      default:
        throw new DataError(`Unsupported JSON schema type ${type}`);
    }
  }

  /** A struct of the properties of `objects` (an object, or the objects of an `allOf`). */
  #struct(objects: readonly SchemaNode[]): SchemaBuilder {
    const byIndex = new Map<number, [string, JsonNode, boolean]>();
    for (const object of objects) {
      const properties = object.get('properties');
      if (!(properties instanceof Map)) continue;
      const required = object.get('required');
      for (const [name, schema] of properties) {
        const index = intOf(schema instanceof Map ? schema.get(CONNECT_INDEX) : undefined);
        const isRequired = Array.isArray(required) && required.includes(name);
        byIndex.set(index ?? byIndex.size, [name, schema, isRequired]);
      }
    }
    const builder = SchemaBuilder.struct();
    for (const [, [name, schema, isRequired]] of [...byIndex].sort(([a], [b]) => a - b)) {
      const optional = this.#options.useOptionalForNonRequired && !isRequired;
      builder.field(name, this.convert(schema, null, optional));
    }
    return builder;
  }

  #union(
    node: SchemaNode,
    branches: JsonNode[],
    version: number | null,
    forceOptional: boolean,
  ): Schema {
    if (branches.length === 1) return this.convert(branches[0] ?? null, version, forceOptional);
    const nonNull = branches.filter((b) => !isNullSchema(b));
    if (branches.length === 2 && nonNull.length === 1) {
      return this.convert(nonNull[0] ?? null, version, true);
    }
    const builder = SchemaBuilder.struct().name(JSON_TYPE_ONE_OF);
    if (nonNull.length < branches.length) builder.optional();
    nonNull.forEach((branch, i) => {
      builder.field(oneOfField(i), this.convert(branch, null, true));
    });
    return this.#finish(builder, node, version, forceOptional);
  }

  #allOf(
    node: SchemaNode,
    subs: JsonNode[],
    version: number | null,
    forceOptional: boolean,
  ): Schema {
    const resolved = subs.map((s) => this.#resolved(s));
    const objects = this.#objects(resolved);
    if (objects.length > 0)
      return this.#finish(this.#struct(objects), node, version, forceOptional);
    const union = resolved.find((s) => s.has('oneOf') || s.has('anyOf'));
    if (union !== undefined) return this.convert(union, version, forceOptional);
    // Type, enum, const and format in separate subschemas: one schema of them all.
    const merged: SchemaNode = new Map();
    for (const sub of resolved) for (const [k, v] of sub) merged.set(k, v);
    for (const [k, v] of node) if (k !== 'allOf') merged.set(k, v);
    return this.convert(merged, version, forceOptional);
  }

  /** The objects with properties among `nodes`, through nested `allOf`s. */
  #objects(nodes: readonly SchemaNode[]): SchemaNode[] {
    return nodes.flatMap((n) => {
      const nested = n.get('allOf');
      if (Array.isArray(nested)) return this.#objects(nested.map((s) => this.#resolved(s)));
      return n.get('properties') instanceof Map ? [n] : [];
    });
  }

  /** `node` with a `$ref` followed (once). */
  #resolved(node: JsonNode): SchemaNode {
    if (!(node instanceof Map)) return new Map();
    const ref = node.get('$ref');
    return typeof ref === 'string' ? (this.#pointer(ref) as SchemaNode) : node;
  }

  #viaRef(ref: string, version: number | null, forceOptional: boolean): Schema {
    if (this.#refs.includes(ref)) {
      throw new DataError(`Recursive JSON schemas are not supported (${ref} refers to itself)`);
    }
    this.#refs.push(ref);
    try {
      return this.convert(this.#pointer(ref), version, forceOptional);
    } finally {
      this.#refs.pop();
    }
  }

  /** The schema a local reference (`#`, `#/definitions/x`, `#/$defs/x`) points to. */
  #pointer(ref: string): JsonNode {
    if (!ref.startsWith('#')) {
      throw new DataError(
        `Schema reference ${ref} is not supported: only references within the schema (#...)`,
      );
    }
    let node: JsonNode | undefined = this.#root;
    const path = decodeURIComponent(ref.slice(1));
    for (const token of path === '' ? [] : path.slice(1).split('/')) {
      const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
      node =
        node instanceof Map ? node.get(key) : Array.isArray(node) ? node[Number(key)] : undefined;
    }
    if (!(node instanceof Map)) throw new DataError(`Schema reference ${ref} points to no schema`);
    return node;
  }

  /** The keywords every schema may have: title, versions, description, parameters, default. */
  #finish(
    builder: SchemaBuilder,
    node: SchemaNode,
    version: number | null,
    forceOptional: boolean,
  ): Schema {
    const title = node.get('title');
    if (typeof title === 'string' && builder.build().name === null) builder.name(title);
    const connectVersion = intOf(node.get(CONNECT_VERSION));
    if (connectVersion !== null) builder.version(connectVersion);
    else if (version !== null) builder.version(version);
    const description = node.get('description');
    if (typeof description === 'string') builder.doc(description);
    const parameters = node.get(CONNECT_PARAMETERS);
    if (parameters instanceof Map) {
      for (const [k, v] of parameters) {
        if (typeof v !== 'string') throw new DataError(`connect.parameters ${k} must be a string`);
        builder.parameter(k, v);
      }
    }
    if (node.has('default')) {
      builder.defaultValue(readJsonValue(builder.build(), node.get('default') ?? null));
    }
    if (forceOptional) builder.optional();
    return builder.build();
  }
}

/** The type an untyped schema's keywords imply (everit's reading). */
function inferredType(node: SchemaNode): string {
  if (node.has('properties') || node.has('additionalProperties') || node.has('required')) {
    return 'object';
  }
  if (node.has('items')) return 'array';
  if (node.has('enum') || node.has('const')) return 'string';
  if (node.has('minLength') || node.has('maxLength') || node.has('pattern')) return 'string';
  if (node.has('minimum') || node.has('maximum') || node.has('multipleOf')) return 'number';
  throw new DataError('Unsupported JSON schema without a type: Connect needs a type');
}

/** A string schema with Confluent's enum parameters (`<NULL>` for a null symbol). */
function enumOf(values: readonly JsonNode[]): SchemaBuilder {
  const builder = SchemaBuilder.string().parameter(JSON_TYPE_ENUM, '');
  for (const value of values) {
    const symbol =
      value === null ? NULL_MARKER : value instanceof JsonNumber ? value.text : String(value);
    builder.parameter(`${JSON_TYPE_ENUM_PREFIX}${symbol}`, symbol);
  }
  return builder;
}
