/**
 * Schemas: the builder and the predefined schemas, plus everything in `schema-core.ts` (types,
 * {@link Schema}, equality, validation and the value representation, documented there).
 * Import the whole schema model from here.
 */
import { DataError } from './errors.js';
import { ConnectSchema, type Field, type Schema, type Type } from './schema-core.js';
import { validateValue } from './validate-value.js';

export * from './schema-core.js';
export * from './validate-value.js';

/** A schema, or a builder whose `build()` gives one (accepted wherever a field schema is). */
export type SchemaLike = Schema | SchemaBuilder;

function toSchema(schema: SchemaLike): Schema {
  return schema instanceof SchemaBuilder ? schema.build() : schema;
}

/**
 * Fluent builder for {@link Schema}s, like Connect's `SchemaBuilder`: every property may be
 * set once; `defaultValue` is validated against the schema built so far; `field` is for
 * structs only and rejects duplicate names.
 *
 * @example
 * const address = SchemaBuilder.struct().name('com.example.Address')
 *   .field('street', Schemas.STRING)
 *   .field('zip', SchemaBuilder.int32().optional())
 *   .build();
 */
export class SchemaBuilder {
  readonly type: Type;
  #optional: boolean | null = null;
  #defaultValue: unknown = null;
  #name: string | null = null;
  #version: number | null = null;
  #doc: string | null = null;
  #parameters: Record<string, string> = {};
  readonly #fields = new Map<string, Field>();
  readonly #keySchema: Schema | null;
  readonly #valueSchema: Schema | null;

  constructor(type: Type, keySchema: Schema | null = null, valueSchema: Schema | null = null) {
    this.type = type;
    this.#keySchema = keySchema;
    this.#valueSchema = valueSchema;
  }

  static type(type: Type): SchemaBuilder {
    if (type === 'array' || type === 'map') {
      throw new DataError(`Use SchemaBuilder.${type}(...) to build ${type} schemas`);
    }
    return new SchemaBuilder(type);
  }
  static int8(): SchemaBuilder {
    return new SchemaBuilder('int8');
  }
  static int16(): SchemaBuilder {
    return new SchemaBuilder('int16');
  }
  static int32(): SchemaBuilder {
    return new SchemaBuilder('int32');
  }
  static int64(): SchemaBuilder {
    return new SchemaBuilder('int64');
  }
  static float32(): SchemaBuilder {
    return new SchemaBuilder('float32');
  }
  static float64(): SchemaBuilder {
    return new SchemaBuilder('float64');
  }
  static bool(): SchemaBuilder {
    return new SchemaBuilder('boolean');
  }
  static string(): SchemaBuilder {
    return new SchemaBuilder('string');
  }
  static bytes(): SchemaBuilder {
    return new SchemaBuilder('bytes');
  }
  static struct(): SchemaBuilder {
    return new SchemaBuilder('struct');
  }
  static array(valueSchema: SchemaLike): SchemaBuilder {
    return new SchemaBuilder('array', null, toSchema(valueSchema));
  }
  static map(keySchema: SchemaLike, valueSchema: SchemaLike): SchemaBuilder {
    return new SchemaBuilder('map', toSchema(keySchema), toSchema(valueSchema));
  }

  #checkCanSet(property: string, current: unknown, next: unknown): void {
    if (current !== null && current !== next) {
      throw new DataError(`Invalid SchemaBuilder call: ${property} has already been set.`);
    }
  }

  /** Marks the schema optional: `null` becomes a valid value. */
  optional(): this {
    this.#checkCanSet('optional', this.#optional, true);
    this.#optional = true;
    return this;
  }

  /** Marks the schema required (the default). */
  required(): this {
    this.#checkCanSet('optional', this.#optional, false);
    this.#optional = false;
    return this;
  }

  /** Sets the default value; throws DataError when it is not valid for this schema. */
  defaultValue(value: unknown): this {
    this.#checkCanSet('default', this.#defaultValue, value);
    try {
      validateValue(this.#preview(null), value);
    } catch (error) {
      throw new DataError(`Invalid default value: ${(error as Error).message}`, { cause: error });
    }
    this.#defaultValue = value ?? null;
    return this;
  }

  /** Sets the name; `null` is ignored (so `copySchemaBasics` can pass an unnamed schema's). */
  name(name: string | null): this {
    if (name === null) return this;
    this.#checkCanSet('name', this.#name, name);
    this.#name = name;
    return this;
  }

  version(version: number | null): this {
    if (version === null) return this;
    this.#checkCanSet('version', this.#version, version);
    this.#version = version;
    return this;
  }

  doc(doc: string | null): this {
    if (doc === null) return this;
    this.#checkCanSet('doc', this.#doc, doc);
    this.#doc = doc;
    return this;
  }

  parameter(key: string, value: string): this {
    this.#parameters[key] = value;
    return this;
  }

  parameters(parameters: Readonly<Record<string, string>>): this {
    Object.assign(this.#parameters, parameters);
    return this;
  }

  /** Adds a struct field; throws DataError on a non-struct, an empty or a duplicate name. */
  field(name: string, schema: SchemaLike): this {
    if (this.type !== 'struct') {
      throw new DataError(`Cannot create fields on type ${this.type.toUpperCase()}`);
    }
    if (name === '') throw new DataError('fieldName cannot be null.');
    if (this.#fields.has(name)) {
      throw new DataError(`Cannot create field because of field name duplication ${name}`);
    }
    this.#fields.set(name, { name, index: this.#fields.size, schema: toSchema(schema) });
    return this;
  }

  /** The fields added so far, in order. */
  get fields(): readonly Field[] {
    return [...this.#fields.values()];
  }

  #preview(defaultValue: unknown): Schema {
    return new ConnectSchema({
      type: this.type,
      optional: this.#optional ?? false,
      defaultValue,
      name: this.#name,
      version: this.#version,
      doc: this.#doc,
      parameters: this.#parameters,
      keySchema: this.#keySchema,
      valueSchema: this.#valueSchema,
      fields: [...this.#fields.values()],
    });
  }

  /** The immutable schema. The builder can keep being used; later changes do not affect it. */
  build(): Schema {
    return this.#preview(this.#defaultValue);
  }
}

function constant(builder: SchemaBuilder): Schema {
  return builder.build();
}

/** Predefined schemas, like Connect's `Schema.INT32_SCHEMA`, `Schema.OPTIONAL_STRING_SCHEMA`. */
export const Schemas = Object.freeze({
  INT8: constant(SchemaBuilder.int8()),
  INT16: constant(SchemaBuilder.int16()),
  INT32: constant(SchemaBuilder.int32()),
  INT64: constant(SchemaBuilder.int64()),
  FLOAT32: constant(SchemaBuilder.float32()),
  FLOAT64: constant(SchemaBuilder.float64()),
  BOOLEAN: constant(SchemaBuilder.bool()),
  STRING: constant(SchemaBuilder.string()),
  BYTES: constant(SchemaBuilder.bytes()),
  OPTIONAL_INT8: constant(SchemaBuilder.int8().optional()),
  OPTIONAL_INT16: constant(SchemaBuilder.int16().optional()),
  OPTIONAL_INT32: constant(SchemaBuilder.int32().optional()),
  OPTIONAL_INT64: constant(SchemaBuilder.int64().optional()),
  OPTIONAL_FLOAT32: constant(SchemaBuilder.float32().optional()),
  OPTIONAL_FLOAT64: constant(SchemaBuilder.float64().optional()),
  OPTIONAL_BOOLEAN: constant(SchemaBuilder.bool().optional()),
  OPTIONAL_STRING: constant(SchemaBuilder.string().optional()),
  OPTIONAL_BYTES: constant(SchemaBuilder.bytes().optional()),
});

/**
 * Copies name, version, doc and parameters of `source` into `builder` (Connect's
 * `SchemaUtil.copySchemaBasics`), the usual start of a transformation's output schema.
 */
export function copySchemaBasics(source: Schema, builder: SchemaBuilder): SchemaBuilder {
  return builder
    .name(source.name)
    .version(source.version)
    .doc(source.doc)
    .parameters(source.parameters);
}
