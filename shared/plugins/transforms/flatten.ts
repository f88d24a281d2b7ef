/**
 * Flatten (Connect's `org.apache.kafka.connect.transforms.Flatten$Key` / `$Value`): lifts the
 * fields of nested structs (or nested maps, schemaless) to the top level, naming them by their
 * path joined with `delimiter` (default `.`). Arrays are kept as they are, and so are maps in a
 * schema'd value. A flattened field is optional when any ancestor is, and takes its default
 * from an ancestor's default when it has none. Schemaless tombstones pass through; schema'd
 * tombstones keep a null value under the flattened schema.
 */
import {
  ConfigDef,
  type ConnectRecord,
  copySchemaBasics,
  DataError,
  isStruct,
  mapEntries,
  type Schema,
  SchemaBuilder,
  Struct,
  type Transformation,
} from 'serverless-connect/connect';
import { parsed } from './util/config.js';
import { isDecimalValue } from './util/java-numbers.js';
import { toMapValueLike } from './util/map-values.js';
import { KEY_SIDE, type OperatingSide, VALUE_SIDE } from './util/operating-side.js';
import { className, isMapValue, requireMap, requireStructOrNull } from './util/requirements.js';
import { SchemaUpdateCache } from './util/schema-update-cache.js';

const DELIMITER = 'delimiter';
const PURPOSE = 'flattening';

function configDef(): ConfigDef {
  return new ConfigDef().define({
    name: DELIMITER,
    type: 'STRING',
    defaultValue: '.',
    importance: 'MEDIUM',
    documentation:
      'Delimiter to insert between field names from the input record when generating field names for the output record',
  });
}

/** A builder copying `schema`'s type (and element schemas), name, version, doc and parameters. */
function copyBasics(schema: Schema): SchemaBuilder {
  let builder: SchemaBuilder;
  if (schema.type === 'array' && schema.valueSchema !== null) {
    builder = SchemaBuilder.array(schema.valueSchema);
  } else if (schema.type === 'map' && schema.keySchema !== null && schema.valueSchema !== null) {
    builder = SchemaBuilder.map(schema.keySchema, schema.valueSchema);
  } else {
    builder = SchemaBuilder.type(schema.type);
  }
  return copySchemaBasics(schema, builder);
}

/** Flattens nested structures; see the module comment. */
export abstract class Flatten<R extends ConnectRecord> implements Transformation<R> {
  #delimiter = '.';
  readonly #cache = new SchemaUpdateCache();

  protected constructor(private readonly side: OperatingSide) {}

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    this.#delimiter = parsed.string(configDef().parse(props), DELIMITER) ?? '.';
    this.#cache.clear();
  }

  apply(record: R): R | null {
    const value = this.side.value(record);
    const schema = this.side.schema(record);
    if (schema === null) {
      return value === null ? record : this.#applySchemaless(record, value);
    }
    return this.#applyWithSchema(record, schema, value);
  }

  close(): void {
    this.#cache.clear();
  }

  #name(prefix: string, name: string): string {
    return prefix === '' ? name : `${prefix}${this.#delimiter}${name}`;
  }

  #applySchemaless(record: R, value: unknown): R {
    const original = requireMap(value, PURPOSE);
    const out = new Map<unknown, unknown>();
    this.#flattenMap(original, '', out);
    return this.side.update(record, null, toMapValueLike(original, out));
  }

  #flattenMap(map: unknown, prefix: string, out: Map<unknown, unknown>): void {
    for (const [key, value] of mapEntries(map)) {
      const name = this.#name(prefix, String(key));
      if (value === null || value === undefined) {
        out.set(name, null);
      } else if (isMapValue(value) && !isDecimalValue(value)) {
        this.#flattenMap(requireMap(value, PURPOSE), name, out);
      } else if (
        typeof value === 'number' ||
        typeof value === 'bigint' ||
        typeof value === 'boolean' ||
        typeof value === 'string' ||
        value instanceof Uint8Array ||
        Array.isArray(value)
      ) {
        out.set(name, value);
      } else if (isStruct(value)) {
        throw new DataError(
          `Flatten transformation does not support Struct for record without schemas (for field ${name}).`,
        );
      } else {
        throw new DataError(
          `Flatten transformation was passed a value of type ${className(value)} which is not supported by Connect's data API`,
        );
      }
    }
  }

  #applyWithSchema(record: R, schema: Schema, value: unknown): R {
    const struct = requireStructOrNull(value, PURPOSE);
    const updatedSchema = this.#cache.getOrBuild(struct?.schema ?? schema, (s) => {
      const builder = copySchemaBasics(s, SchemaBuilder.struct());
      this.#flattenSchema(s, '', builder, s.optional, requireStructOrNull(s.defaultValue, PURPOSE));
      if (s.optional) builder.optional();
      return builder.build();
    });
    if (struct === null) return this.side.update(record, updatedSchema, null);
    const updated = new Struct(updatedSchema);
    this.#flattenStruct(struct, '', updated);
    return this.side.update(record, updatedSchema, updated);
  }

  #flattenSchema(
    schema: Schema,
    prefix: string,
    out: SchemaBuilder,
    optional: boolean,
    parentDefault: Struct | null,
  ): void {
    for (const field of schema.fields) {
      const name = this.#name(prefix, field.name);
      const fieldOptional = optional || field.schema.optional;
      const fieldDefault =
        field.schema.defaultValue ??
        (parentDefault === null ? null : parentDefault.get(field.name));
      if (field.schema.type === 'struct') {
        this.#flattenSchema(
          field.schema,
          name,
          out,
          fieldOptional,
          requireStructOrNull(fieldDefault, PURPOSE),
        );
        continue;
      }
      const builder = copyBasics(field.schema);
      if (fieldOptional) builder.optional();
      if (fieldDefault !== null) builder.defaultValue(fieldDefault);
      out.field(name, builder.build());
    }
  }

  #flattenStruct(struct: Struct, prefix: string, out: Struct): void {
    for (const field of struct.schema.fields) {
      const name = this.#name(prefix, field.name);
      if (field.schema.type === 'struct') {
        const nested = requireStructOrNull(struct.get(field.name), PURPOSE);
        if (nested !== null) this.#flattenStruct(nested, name, out);
        continue;
      }
      out.put(name, struct.get(field.name));
    }
  }
}

/** `org.apache.kafka.connect.transforms.Flatten$Key`. */
export class FlattenKey<R extends ConnectRecord> extends Flatten<R> {
  constructor() {
    super(KEY_SIDE);
  }
}

/** `org.apache.kafka.connect.transforms.Flatten$Value`. */
export class FlattenValue<R extends ConnectRecord> extends Flatten<R> {
  constructor() {
    super(VALUE_SIDE);
  }
}
