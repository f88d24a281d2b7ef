/**
 * Cast (Connect's `org.apache.kafka.connect.transforms.Cast$Key` / `$Value`): casts fields
 * (`spec=field1:type,field2:type`) or the whole key/value (`spec=type`) to int8, int16, int32,
 * int64, float32, float64, boolean or string. Bytes can only become strings (base64); logical
 * dates, times and timestamps become their raw numbers, or ISO-8601 strings. Tombstones pass
 * through. Unlike Connect, a whole-value cast of a logical type does not keep the logical name
 * on the output schema (the output would otherwise not validate).
 */
import {
  ConfigDef,
  ConfigError,
  type ConnectRecord,
  copySchemaBasics,
  invalidValue,
  isLogicalSchema,
  LambdaValidator,
  type Schema,
  SchemaBuilder,
  Struct,
  type Transformation,
  type Type,
} from 'serverless-connect/connect';
import {
  CAST_OUTPUT_TYPES,
  castValueToType,
  checkCastInput,
  unsupportedOutput,
} from './util/cast-value.js';
import { parsed, REPLACE_NULL_WITH_DEFAULT, withReplaceNullWithDefault } from './util/config.js';
import { mapCopy, mapGet, toMapValueLike } from './util/map-values.js';
import { KEY_SIDE, type OperatingSide, VALUE_SIDE } from './util/operating-side.js';
import { fieldValue, requireMap, requireStruct } from './util/requirements.js';
import { SchemaUpdateCache } from './util/schema-update-cache.js';

const SPEC = 'spec';
const PURPOSE = 'cast types';
const SCHEMA_TYPES: readonly string[] = [...CAST_OUTPUT_TYPES, 'bytes', 'array', 'map', 'struct'];

/** A parsed spec: a whole-value target type, or targets per field. */
export type CastSpec =
  | { readonly whole: Type; readonly fields?: undefined }
  | { readonly whole?: undefined; readonly fields: ReadonlyMap<string, Type> };

function outputType(text: string): Type {
  const type = text.trim().toLowerCase();
  if (!SCHEMA_TYPES.includes(type)) {
    throw new ConfigError(`Invalid type found in casting spec: ${text.trim()}`, SPEC);
  }
  if (!(CAST_OUTPUT_TYPES as readonly string[]).includes(type)) {
    throw new ConfigError(unsupportedOutput(type), SPEC);
  }
  return type as Type;
}

/** Parses `spec` items; ConfigError with Connect's messages. */
export function parseCastSpec(mappings: readonly string[]): CastSpec {
  if (mappings.length === 0)
    throw new ConfigError('Must specify at least one field to cast.', SPEC);
  const fields = new Map<string, Type>();
  let whole: Type | undefined;
  for (const mapping of mappings) {
    const parts = mapping.split(':');
    const [first = '', second = ''] = parts;
    if (parts.length > 2) throw invalidValue(SPEC, mappings, `Invalid cast mapping: ${mapping}`);
    if (parts.length === 1) whole = outputType(first);
    else fields.set(first.trim(), outputType(second));
  }
  if (whole !== undefined) {
    if (mappings.length > 1) {
      throw new ConfigError(
        'Cast transformations that specify a type to cast the entire value to may ony specify a single cast in their spec',
        SPEC,
      );
    }
    return { whole };
  }
  return { fields };
}

function configDef(): ConfigDef {
  return withReplaceNullWithDefault(
    new ConfigDef().define({
      name: SPEC,
      type: 'LIST',
      validator: LambdaValidator.with(
        (_name, value) => {
          parseCastSpec(Array.isArray(value) ? value.map(String) : []);
        },
        () => 'list of colon-delimited pairs, e.g. <code>foo:bar,abc:xyz</code>',
      ),
      importance: 'HIGH',
      documentation:
        'List of fields and the type to cast them to of the form field1:type,field2:type to cast fields of Maps or Structs. A single type to cast the entire value. Valid types are int8, int16, int32, int64, float32, float64, boolean, and string. Note that binary fields can only be cast to string.',
    }),
  );
}

function builderFor(type: Type): SchemaBuilder {
  return SchemaBuilder.type(type);
}

/** Casts fields or the whole key/value; see the module comment. */
export abstract class Cast<R extends ConnectRecord> implements Transformation<R> {
  #spec: CastSpec = { fields: new Map() };
  #replaceNullWithDefault = true;
  readonly #cache = new SchemaUpdateCache();

  protected constructor(private readonly side: OperatingSide) {}

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    const values = configDef().parse(props);
    this.#spec = parseCastSpec(parsed.list(values, SPEC));
    this.#replaceNullWithDefault = parsed.boolean(values, REPLACE_NULL_WITH_DEFAULT);
    this.#cache.clear();
  }

  apply(record: R): R | null {
    const value = this.side.value(record);
    if (value === null) return record;
    const schema = this.side.schema(record);
    return schema === null
      ? this.#applySchemaless(record, value)
      : this.#applyWithSchema(record, schema, value);
  }

  close(): void {
    this.#cache.clear();
  }

  #applySchemaless(record: R, value: unknown): R {
    const spec = this.#spec;
    if (spec.whole !== undefined) {
      return this.side.update(record, null, castValueToType(null, value, spec.whole));
    }
    const original = requireMap(value, PURPOSE);
    const updated = mapCopy(original);
    for (const [field, target] of spec.fields) {
      updated.set(field, castValueToType(null, mapGet(original, field), target));
    }
    return this.side.update(record, null, toMapValueLike(original, updated));
  }

  #applyWithSchema(record: R, schema: Schema, value: unknown): R {
    const spec = this.#spec;
    if (spec.whole !== undefined) checkCastInput(schema.type);
    const updatedSchema = this.#cache.getOrBuild(schema, (s) => this.#updatedSchema(s));
    if (spec.whole !== undefined) {
      return this.side.update(record, updatedSchema, castValueToType(schema, value, spec.whole));
    }
    const struct = requireStruct(value, PURPOSE);
    const updated = new Struct(updatedSchema);
    for (const field of struct.schema.fields) {
      const original = fieldValue(struct, field.name, this.#replaceNullWithDefault);
      const target = spec.fields.get(field.name);
      updated.put(
        field.name,
        target === undefined ? original : castValueToType(field.schema, original, target),
      );
    }
    return this.side.update(record, updatedSchema, updated);
  }

  #updatedSchema(schema: Schema): Schema {
    const spec = this.#spec;
    let builder: SchemaBuilder;
    if (spec.whole !== undefined) {
      builder = builderFor(spec.whole);
      if (!isLogicalSchema(schema)) copySchemaBasics(schema, builder);
    } else {
      builder = copySchemaBasics(schema, SchemaBuilder.struct());
      for (const field of schema.fields) {
        const target = spec.fields.get(field.name);
        if (target === undefined) {
          builder.field(field.name, field.schema);
          continue;
        }
        const fieldBuilder = builderFor(target);
        if (field.schema.optional) fieldBuilder.optional();
        if (field.schema.defaultValue !== null) {
          fieldBuilder.defaultValue(
            castValueToType(field.schema, field.schema.defaultValue, target),
          );
        }
        builder.field(field.name, fieldBuilder.build());
      }
    }
    if (schema.optional) builder.optional();
    if (schema.defaultValue !== null) {
      builder.defaultValue(
        spec.whole !== undefined
          ? castValueToType(schema, schema.defaultValue, spec.whole)
          : this.#castStruct(schema.defaultValue, builder.build()),
      );
    }
    return builder.build();
  }

  /** A struct default value cast to `schema` (the output struct schema). */
  #castStruct(value: unknown, schema: Schema): Struct {
    const struct = requireStruct(value, PURPOSE);
    const out = new Struct(schema);
    for (const field of struct.schema.fields) {
      const target = this.#spec.fields?.get(field.name);
      const original = struct.get(field.name);
      out.put(
        field.name,
        target === undefined ? original : castValueToType(field.schema, original, target),
      );
    }
    return out;
  }
}

/** `org.apache.kafka.connect.transforms.Cast$Key`. */
export class CastKey<R extends ConnectRecord> extends Cast<R> {
  constructor() {
    super(KEY_SIDE);
  }
}

/** `org.apache.kafka.connect.transforms.Cast$Value`. */
export class CastValue<R extends ConnectRecord> extends Cast<R> {
  constructor() {
    super(VALUE_SIDE);
  }
}
