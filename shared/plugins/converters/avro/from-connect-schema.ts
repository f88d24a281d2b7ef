/**
 * Connect schema → Avro schema, as Confluent's `AvroData.fromConnectSchema` maps it, written
 * as Apache Avro's Java library writes the result (`Schema.toString()`): a named type (record,
 * enum, fixed) in full where it first appears and by name afterwards, namespaces relative to
 * the enclosing record's.
 *
 * | Connect                         | Avro                                                       |
 * |---------------------------------|------------------------------------------------------------|
 * | int8, int16                     | int with `connect.type` int8 / int16                       |
 * | int32, int64, float32, float64, boolean, string, bytes | int, long, float, double, boolean, string, bytes |
 * | optional T                      | union [null, T] (field default null); [T, null] when T has a default |
 * | struct                          | record named after the schema (`ConnectDefault`, `ConnectDefault2`… in `io.confluent.connect.avro` when unnamed) |
 * | array                           | array                                                      |
 * | map with required string keys   | map                                                        |
 * | other maps                      | array of records `MapEntry` {key, value} (named after the map when it has a name) |
 * | Decimal                         | bytes, logicalType decimal, precision `connect.decimal.precision` (64), scale |
 * | Date, Time, Timestamp           | int date, int time-millis, long timestamp-millis           |
 * | string with `io.confluent.connect.avro.Enum` parameters | enum, with `enhanced.avro.schema.support` (else string) |
 * | struct `io.confluent.connect.avro.Union` | union of its fields' types                        |
 *
 * With `connect.meta.data` (the default) every non-union type carries `connect.doc`,
 * `connect.version`, `connect.parameters`, `connect.default` and `connect.name`.
 */
import {
  DataError,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  type Schema,
  schemaEquals,
} from 'serverless-connect/connect';
import {
  AVRO_ENUM_DEFAULT_PREFIX_PROP,
  AVRO_ENUM_DOC_PREFIX_PROP,
  AVRO_FIELD_DEFAULT_FLAG_PROP,
  AVRO_FIELD_DOC_PREFIX_PROP,
  AVRO_PROP,
  AVRO_RECORD_DOC_PROP,
  AVRO_TYPE_ENUM,
  type AvroDataOptions,
  CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT,
  CONNECT_AVRO_DECIMAL_PRECISION_PROP,
  CONNECT_AVRO_FIXED_SIZE_PROP,
  CONNECT_DEFAULT_VALUE_PROP,
  CONNECT_DOC_PROP,
  CONNECT_INTERNAL_TYPE_NAME,
  CONNECT_NAME_PROP,
  CONNECT_PARAMETERS_PROP,
  CONNECT_TYPE_PROP,
  CONNECT_VERSION_PROP,
  DEFAULT_AVRO_DATA_OPTIONS,
  DEFAULT_SCHEMA_NAME,
  isUnionSchema,
  KEY_FIELD,
  MAP_ENTRY_TYPE_NAME,
  NAMESPACE,
  scrubName,
  splitName,
  VALUE_FIELD,
} from './avro-data-options.js';
import {
  asFieldDefault,
  connectDefaultJson,
  isValidDefault,
  type NamedTypes,
} from './avro-defaults.js';
import { type AvroJson, type AvroObject, isAvroObject } from './avro-json.js';
import { copySchema } from './schema-copy.js';

type MutableObject = { [key: string]: AvroJson };

const LOGICAL_TYPE_OF: Readonly<Record<string, string>> = {
  [LogicalDate.LOGICAL_NAME]: 'date',
  [LogicalTime.LOGICAL_NAME]: 'time-millis',
  [LogicalTimestamp.LOGICAL_NAME]: 'timestamp-millis',
};

/** `schema` made required, everything else kept (Confluent's `AvroData.nonOptional`). */
export function nonOptional(schema: Schema): Schema {
  return schema.optional ? copySchema(schema, { optional: false }) : schema;
}

/** The Avro schema of `schema` (its JSON; write it with `writeAvroJson`). */
export function fromConnectSchema(
  schema: Schema,
  options: AvroDataOptions = DEFAULT_AVRO_DATA_OPTIONS,
): AvroJson {
  return new FromConnect(options).convert(schema, null, false);
}

/** A named Avro type written so far: where it came from, and its definition. */
interface Written {
  readonly source: Schema;
  readonly definition: AvroObject;
}

class FromConnect {
  readonly #options: AvroDataOptions;
  /** Named types by full name: the next use of one is written as its name. */
  readonly #named = new Map<string, Written>();
  /** Names of field schemas seen (Confluent's `seenNamedTypes`). */
  readonly #seenNames = new Set<string>();
  #defaultNameIndex = 0;

  constructor(options: AvroDataOptions) {
    this.#options = options;
  }

  get namedTypes(): NamedTypes {
    return new Map([...this.#named].map(([name, w]) => [name, w.definition]));
  }

  /** `schema` in the context of default namespace `space`. */
  convert(schema: Schema, space: string | null, ignoreOptional: boolean): AvroJson {
    if (isUnionSchema(schema)) {
      const branches: AvroJson[] = schema.optional ? ['null'] : [];
      for (const field of schema.fields) {
        branches.push(this.convert(nonOptional(field.schema), space, true));
      }
      return branches;
    }
    if (schema.type === 'struct' && schema.optional) {
      return ['null', this.convert(nonOptional(schema), space, false)];
    }
    const base = this.#base(schema, space);
    if (typeof base === 'string') return this.#optional(schema, base, ignoreOptional);
    this.#addProperties(schema, base);
    const json = Object.keys(base).length === 1 ? (base.type as string) : base;
    return this.#optional(schema, json, ignoreOptional);
  }

  #optional(schema: Schema, json: AvroJson, ignoreOptional: boolean): AvroJson {
    if (ignoreOptional || !schema.optional) return json;
    return schema.defaultValue !== null ? [json, 'null'] : ['null', json];
  }

  /** The type without Connect's properties; a string when it is a name already written. */
  #base(schema: Schema, space: string | null): MutableObject | string {
    switch (schema.type) {
      case 'int8':
      case 'int16':
      case 'int32':
        return { type: 'int' };
      case 'int64':
        return { type: 'long' };
      case 'float32':
        return { type: 'float' };
      case 'float64':
        return { type: 'double' };
      case 'boolean':
        return { type: 'boolean' };
      case 'string':
        return this.#string(schema, space);
      case 'bytes':
        return this.#bytes(schema, space);
      case 'array':
        return { type: 'array', items: this.convert(schema.valueSchema as Schema, space, false) };
      case 'map':
        return this.#map(schema, space);
      case 'struct':
        return this.#record(schema, space);
    }
  }

  #nameOrDefault(name: string | null): [string | null, string] {
    if (name !== null) return splitName(name, this.#options.scrubInvalidNames);
    this.#defaultNameIndex += 1;
    const index = this.#defaultNameIndex;
    return [NAMESPACE, DEFAULT_SCHEMA_NAME + (index > 1 ? String(index) : '')];
  }

  /**
   * Starts a named type: its name and namespace relative to `space`, or (the same type written
   * before) its name alone. A different type under a name already written cannot be written.
   */
  #startNamed(
    kind: string,
    [namespace, name]: [string | null, string],
    space: string | null,
    source: Schema,
    same: (earlier: Schema) => boolean,
  ): MutableObject | string {
    const full = namespace === null ? name : `${namespace}.${name}`;
    const earlier = this.#named.get(full);
    if (earlier !== undefined) {
      if (!same(earlier.source)) {
        throw new DataError(`Avro name ${full} would stand for two different schemas`);
      }
      return namespace === null || namespace === space ? name : full;
    }
    const definition: MutableObject = { type: kind, name };
    if (namespace !== null) {
      if (namespace !== space) definition.namespace = namespace;
    } else if (space !== null) {
      definition.namespace = '';
    }
    this.#named.set(full, { source, definition });
    return definition;
  }

  #string(schema: Schema, space: string | null): MutableObject | string {
    const enumName = schema.parameters[AVRO_TYPE_ENUM];
    if (!this.#options.enhancedSchemaSupport || enumName === undefined) return { type: 'string' };
    const prefix = `${AVRO_TYPE_ENUM}.`;
    const symbols = Object.keys(schema.parameters)
      .filter((key) => key.startsWith(prefix))
      .map((key) => key.slice(prefix.length));
    const simpleName = this.#nameOrDefault(schema.name)[1];
    const enumSchema = this.#startNamed(
      'enum',
      splitName(enumName, this.#options.scrubInvalidNames),
      space,
      schema,
      (earlier) => schemaEquals(earlier, nonOptional(schema)),
    );
    if (typeof enumSchema === 'string') return enumSchema;
    const doc = schema.parameters[AVRO_ENUM_DOC_PREFIX_PROP + simpleName];
    if (doc !== undefined) enumSchema.doc = doc;
    enumSchema.symbols = symbols;
    const enumDefault = schema.parameters[AVRO_ENUM_DEFAULT_PREFIX_PROP + simpleName];
    // Java writes an enum's default after its properties.
    if (enumDefault !== undefined) this.#enumDefaults.set(enumSchema, enumDefault);
    return enumSchema;
  }

  readonly #enumDefaults = new Map<MutableObject, string>();

  #bytes(schema: Schema, space: string | null): MutableObject | string {
    let base: MutableObject | string;
    const size = schema.parameters[CONNECT_AVRO_FIXED_SIZE_PROP];
    if (size !== undefined) {
      base = this.#startNamed('fixed', this.#nameOrDefault(schema.name), space, schema, (earlier) =>
        schemaEquals(earlier, nonOptional(schema)),
      );
      if (typeof base === 'string') return base;
      base.size = Number.parseInt(size, 10);
    } else {
      base = { type: 'bytes' };
    }
    if (schema.name?.toLowerCase() === LogicalDecimal.LOGICAL_NAME.toLowerCase()) {
      base.scale = LogicalDecimal.scale(schema);
      const precision = schema.parameters[CONNECT_AVRO_DECIMAL_PRECISION_PROP];
      base.precision =
        precision === undefined
          ? CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT
          : Number.parseInt(precision, 10);
    }
    return base;
  }

  #map(schema: Schema, space: string | null): MutableObject | string {
    const keySchema = schema.keySchema as Schema;
    const valueSchema = schema.valueSchema as Schema;
    if (keySchema.type === 'string' && !keySchema.optional) {
      return { type: 'map', values: this.convert(valueSchema, space, false) };
    }
    const names: [string | null, string] =
      schema.name === null ? [NAMESPACE, MAP_ENTRY_TYPE_NAME] : this.#nameOrDefault(schema.name);
    const entry = this.#startNamed(
      'record',
      names,
      space,
      schema,
      (earlier) =>
        schemaEquals(earlier.keySchema, keySchema) &&
        schemaEquals(earlier.valueSchema, valueSchema),
    );
    if (typeof entry !== 'string') {
      const entrySpace = names[0];
      const fields: AvroJson[] = [];
      this.#addField(fields, KEY_FIELD, keySchema, null, entrySpace);
      this.#addField(fields, VALUE_FIELD, valueSchema, null, entrySpace);
      entry.fields = fields;
      if (schema.name !== null) entry[CONNECT_INTERNAL_TYPE_NAME] = MAP_ENTRY_TYPE_NAME;
    }
    return { type: 'array', items: entry };
  }

  #record(schema: Schema, space: string | null): MutableObject | string {
    const names = this.#nameOrDefault(schema.name);
    const record = this.#startNamed('record', names, space, schema, (earlier) =>
      schemaEquals(earlier, schema),
    );
    if (typeof record === 'string') return record;
    const doc = schema.parameters[AVRO_RECORD_DOC_PROP];
    if (doc !== undefined) record.doc = doc;
    const fields: AvroJson[] = [];
    for (const field of schema.fields) {
      const fieldDoc = schema.parameters[AVRO_FIELD_DOC_PREFIX_PROP + field.name] ?? null;
      const name = scrubName(field.name, this.#options.scrubInvalidNames);
      this.#addField(fields, name, field.schema, fieldDoc, names[0]);
    }
    record.fields = fields;
    return record;
  }

  #addField(
    fields: AvroJson[],
    name: string,
    schema: Schema,
    doc: string | null,
    space: string | null,
  ): void {
    const seenName =
      schema.name === null
        ? null
        : splitName(schema.name, this.#options.scrubInvalidNames).join('.');
    const alreadySeen = seenName !== null && this.#seenNames.has(seenName);
    if (seenName !== null) this.#seenNames.add(seenName);
    const type = this.convert(schema, space, false);
    const field: MutableObject = { name, type };
    if (doc !== null) field.doc = doc;
    const defaultValue =
      schema.defaultValue !== null
        ? connectDefaultJson(schema, schema.defaultValue, this.#options.scrubInvalidNames)
        : schema.optional
          ? null
          : undefined;
    // Avro refuses a default that does not fit the type: Confluent then drops it.
    if (defaultValue !== undefined && isValidDefault(type, defaultValue, this.namedTypes, space)) {
      field.default = asFieldDefault(defaultValue);
    }
    const params = this.#parametersJson(schema);
    if (
      this.#options.connectMetaData &&
      alreadySeen &&
      Object.keys(params).length > 0 &&
      isNamedType(type, this.namedTypes)
    ) {
      field[CONNECT_PARAMETERS_PROP] = params;
    }
    fields.push(field);
  }

  /** Connect's metadata and the logical type, on a type that is not a union. */
  #addProperties(schema: Schema, base: MutableObject): void {
    if (this.#options.connectMetaData) {
      if (schema.doc !== null) base[CONNECT_DOC_PROP] = schema.doc;
      if (schema.version !== null) base[CONNECT_VERSION_PROP] = schema.version;
      const params = this.#parametersJson(schema);
      if (Object.keys(params).length > 0) base[CONNECT_PARAMETERS_PROP] = params;
      if (
        schema.defaultValue !== null &&
        schema.parameters[AVRO_FIELD_DEFAULT_FLAG_PROP] === undefined
      ) {
        base[CONNECT_DEFAULT_VALUE_PROP] = connectDefaultJson(
          schema,
          schema.defaultValue,
          this.#options.scrubInvalidNames,
        );
      }
      if (schema.name !== null) base[CONNECT_NAME_PROP] = schema.name;
      if (schema.type === 'int8' || schema.type === 'int16') base[CONNECT_TYPE_PROP] = schema.type;
    }
    const name = schema.name?.toLowerCase();
    if (name === LogicalDecimal.LOGICAL_NAME.toLowerCase()) {
      base.logicalType = 'decimal';
    } else if (schema.name !== null) {
      const logical = Object.entries(LOGICAL_TYPE_OF).find(([n]) => n.toLowerCase() === name);
      if (logical !== undefined) base.logicalType = logical[1];
    }
    for (const [key, value] of Object.entries(schema.parameters)) {
      if (key.startsWith(AVRO_PROP)) base[key] = value;
    }
    const enumDefault = this.#enumDefaults.get(base);
    if (enumDefault !== undefined) base.default = enumDefault;
  }

  #parametersJson(schema: Schema): MutableObject {
    const params: MutableObject = {};
    for (const [key, value] of Object.entries(schema.parameters)) {
      if (key !== AVRO_FIELD_DEFAULT_FLAG_PROP) params[key] = value;
    }
    return params;
  }
}

/** True when `type` is (or is a union holding) a record, enum or fixed. */
function isNamedType(type: AvroJson, named: NamedTypes): boolean {
  const isNamed = (t: AvroJson): boolean =>
    typeof t === 'string'
      ? named.has(t) || [...named.keys()].some((n) => n.endsWith(`.${t}`))
      : isAvroObject(t) && (t.type === 'record' || t.type === 'enum' || t.type === 'fixed');
  return Array.isArray(type) ? type.some(isNamed) : isNamed(type);
}
