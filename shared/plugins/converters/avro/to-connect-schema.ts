/**
 * Avro schema → Connect schema, as Confluent's `AvroData.toConnectSchema` maps it: what a reader
 * of Avro data sees. The inverse of `from-connect-schema.ts` for every schema that came from
 * Connect (the `connect.*` properties restore names, docs, versions, parameters, defaults, int8
 * and int16); other Avro schemas map as follows:
 *
 * | Avro                               | Connect                                              |
 * |------------------------------------|------------------------------------------------------|
 * | union [null, T] or [T, null]       | optional T                                           |
 * | a union of one type                | that type                                            |
 * | other unions                       | optional if it holds null, a struct `io.confluent.connect.avro.Union` with one optional field per branch, named by type (`int`, `string`, a record's simple name) |
 * | enum                               | string with `io.confluent.connect.avro.Enum` parameters (name and symbols) |
 * | fixed                              | bytes with `connect.fixed.size`                      |
 * | array of `MapEntry` records        | map of their key and value                           |
 * | a field's default                  | the field schema's default (with parameter `io.confluent.connect.avro.field.default`) |
 *
 * Recursive Avro schemas (a record that holds itself) have no Connect form here: DataError.
 */
import {
  DataError,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  type Schema,
  SchemaBuilder,
  Schemas,
  toLogicalValue,
} from 'serverless-connect/connect';
import {
  AVRO_ENUM_DEFAULT_PREFIX_PROP,
  AVRO_ENUM_DOC_PREFIX_PROP,
  AVRO_FIELD_DEFAULT_FLAG_PROP,
  AVRO_FIELD_DOC_PREFIX_PROP,
  AVRO_PROP,
  AVRO_RECORD_DOC_PROP,
  AVRO_TYPE_ENUM,
  AVRO_TYPE_UNION,
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
  DEFAULT_SCHEMA_FULL_NAME,
  KEY_FIELD,
  MAP_ENTRY_TYPE_NAME,
  NAMESPACE,
  splitName,
  VALUE_FIELD,
} from './avro-data-options.js';
import { defaultFromAvro } from './avro-defaults.js';
import { AvroNames, type ResolvedSchema } from './avro-names.js';
import { copySchema } from './schema-copy.js';

/**
 * The Connect schema of the Avro schema `json` (parsed JSON). `version` (the registry's version
 * of the schema) becomes the schema's version when it carries no `connect.version`.
 */
export function toConnectSchema(
  json: unknown,
  options: AvroDataOptions = DEFAULT_AVRO_DATA_OPTIONS,
  version: number | null = null,
): Schema {
  return new ToConnect(options).convert(new AvroNames().resolve(json), false, undefined, version);
}

/** The Connect field name of union branch `branch` (Confluent's `unionMemberFieldName`). */
export function unionMemberFieldName(branch: ResolvedSchema, enhanced: boolean): string {
  if (branch.type === 'record' || branch.type === 'enum' || branch.type === 'fixed') {
    return enhanced ? (branch.fullName as string) : splitName(branch.name as string, false)[1];
  }
  return branch.type;
}

class ToConnect {
  readonly #options: AvroDataOptions;
  readonly #inProgress = new Set<ResolvedSchema>();

  constructor(options: AvroDataOptions) {
    this.#options = options;
  }

  /**
   * `fieldDefault` is the JSON default of the record field being converted (`undefined` when
   * it has none; `null` for a default of null).
   */
  convert(
    schema: ResolvedSchema,
    forceOptional: boolean,
    fieldDefault: unknown,
    version: number | null = null,
  ): Schema {
    if (this.#inProgress.has(schema)) {
      throw new DataError(
        `Recursive Avro schemas are not supported: ${schema.fullName ?? schema.type} holds itself`,
      );
    }
    if (schema.type === 'union') return this.#union(schema, forceOptional, fieldDefault);
    this.#inProgress.add(schema);
    try {
      const builder = this.#builder(schema);
      return this.#finish(schema, builder, forceOptional, fieldDefault, version);
    } finally {
      this.#inProgress.delete(schema);
    }
  }

  #union(schema: ResolvedSchema, forceOptional: boolean, fieldDefault: unknown): Schema {
    const branches = schema.branches as ResolvedSchema[];
    if (branches.length === 1) return this.convert(branches[0] as ResolvedSchema, false, undefined);
    if (branches.length === 2 && branches.some((b) => b.type === 'null')) {
      const member = branches.find((b) => b.type !== 'null') as ResolvedSchema;
      return this.convert(member, true, undefined);
    }
    const builder = SchemaBuilder.struct().name(AVRO_TYPE_UNION);
    const names = new Set<string>();
    for (const branch of branches) {
      if (branch.type === 'null') {
        builder.optional();
        continue;
      }
      const name = unionMemberFieldName(branch, this.#options.enhancedSchemaSupport);
      if (names.has(name)) {
        throw new DataError('Multiple union schemas map to the Connect union field name');
      }
      names.add(name);
      builder.field(name, this.convert(branch, true, undefined));
    }
    // A union's default fits its first branch, never the union's struct: only flagged.
    if (fieldDefault !== undefined && this.#options.connectMetaData) {
      builder.parameter(AVRO_FIELD_DEFAULT_FLAG_PROP, 'true');
    }
    if (forceOptional) builder.optional();
    return builder.build();
  }

  #builder(schema: ResolvedSchema): SchemaBuilder {
    const logicalType =
      typeof schema.props.logicalType === 'string' ? schema.props.logicalType : null;
    const logical = logicalType?.toLowerCase() ?? null;
    switch (schema.type) {
      case 'boolean':
        return SchemaBuilder.bool();
      case 'bytes':
      case 'fixed': {
        let builder: SchemaBuilder;
        if (logical === 'decimal') {
          const scale = typeof schema.props.scale === 'number' ? Math.trunc(schema.props.scale) : 0;
          builder = LogicalDecimal.builder(scale);
          const precision = schema.props.precision;
          if (precision !== undefined) {
            if (typeof precision !== 'number') {
              throw new DataError(
                'precision property must be a JSON Integer. https://avro.apache.org/docs/1.9.1/spec.html#Decimal',
              );
            }
            if (Math.trunc(precision) !== CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT) {
              builder.parameter(CONNECT_AVRO_DECIMAL_PRECISION_PROP, String(Math.trunc(precision)));
            }
          }
        } else {
          builder = SchemaBuilder.bytes();
        }
        if (schema.type === 'fixed') {
          builder.parameter(CONNECT_AVRO_FIXED_SIZE_PROP, String(schema.size));
        }
        return builder;
      }
      case 'double':
        return SchemaBuilder.float64();
      case 'float':
        return SchemaBuilder.float32();
      case 'int': {
        const connectType = schema.props[CONNECT_TYPE_PROP];
        if (logical === 'date') return LogicalDate.builder();
        if (logical === 'time-millis') return LogicalTime.builder();
        if (logical !== null || connectType === undefined) return SchemaBuilder.int32();
        if (connectType === 'int8') return SchemaBuilder.int8();
        if (connectType === 'int16') return SchemaBuilder.int16();
        throw new DataError('Connect type annotation for Avro int field is null');
      }
      case 'long':
        return logical === 'timestamp-millis' ? LogicalTimestamp.builder() : SchemaBuilder.int64();
      case 'string':
        return SchemaBuilder.string();
      case 'array':
        return this.#array(schema);
      case 'map':
        return SchemaBuilder.map(
          Schemas.STRING,
          this.convert(schema.items as ResolvedSchema, false, undefined),
        );
      case 'record':
        return this.#record(schema);
      case 'enum':
        return this.#enum(schema);
      case 'null':
        throw new DataError('Standalone null schemas are not supported by this converter');
      default:
        throw new DataError(`Couldn't translate unsupported schema type ${schema.type}.`);
    }
  }

  #array(schema: ResolvedSchema): SchemaBuilder {
    const items = schema.items as ResolvedSchema;
    const isMapEntry =
      items.type === 'record' &&
      (items.fullName === `${NAMESPACE}.${MAP_ENTRY_TYPE_NAME}` ||
        items.props[CONNECT_INTERNAL_TYPE_NAME] === MAP_ENTRY_TYPE_NAME);
    if (!isMapEntry) return SchemaBuilder.array(this.convert(items, false, undefined));
    const fields = items.fields ?? [];
    const key = fields.find((f) => f.name === KEY_FIELD);
    const value = fields.find((f) => f.name === VALUE_FIELD);
    if (fields.length !== 2 || key === undefined || value === undefined) {
      throw new DataError(
        'Found map encoded as array of key-value pairs, but array elements do not match the expected format.',
      );
    }
    // Confluent converts the entry's key and value as top-level schemas.
    return SchemaBuilder.map(
      new ToConnect(this.#options).convert(key.schema, false, undefined),
      new ToConnect(this.#options).convert(value.schema, false, undefined),
    );
  }

  #record(schema: ResolvedSchema): SchemaBuilder {
    const builder = SchemaBuilder.struct();
    const meta = this.#options.connectMetaData;
    if (meta && schema.doc !== null) builder.parameter(AVRO_RECORD_DOC_PROP, schema.doc);
    for (const field of schema.fields ?? []) {
      if (meta && field.doc !== null) {
        builder.parameter(AVRO_FIELD_DOC_PREFIX_PROP + field.name, field.doc);
      }
      let fieldSchema = this.convert(field.schema, false, field.default);
      const fieldParams = field.props[CONNECT_PARAMETERS_PROP];
      if (meta && isStringRecord(fieldParams))
        fieldSchema = withParameters(fieldSchema, fieldParams);
      builder.field(field.name, fieldSchema);
    }
    return builder;
  }

  #enum(schema: ResolvedSchema): SchemaBuilder {
    const builder = SchemaBuilder.string();
    const simpleName = schema.name as string;
    if (this.#options.connectMetaData) {
      if (schema.doc !== null)
        builder.parameter(AVRO_ENUM_DOC_PREFIX_PROP + simpleName, schema.doc);
      if (typeof schema.enumDefault === 'string') {
        builder.parameter(AVRO_ENUM_DEFAULT_PREFIX_PROP + simpleName, schema.enumDefault);
      }
    }
    builder.parameter(AVRO_TYPE_ENUM, schema.fullName as string);
    for (const symbol of schema.symbols ?? [])
      builder.parameter(`${AVRO_TYPE_ENUM}.${symbol}`, symbol);
    return builder;
  }

  #finish(
    schema: ResolvedSchema,
    builder: SchemaBuilder,
    forceOptional: boolean,
    fieldDefault: unknown,
    registryVersion: number | null,
  ): Schema {
    const meta = this.#options.connectMetaData;
    const props = schema.props;
    const doc = props[CONNECT_DOC_PROP];
    if (meta && typeof doc === 'string') builder.doc(doc);
    const version = props[CONNECT_VERSION_PROP];
    if (version !== undefined && typeof version !== 'number') {
      throw new DataError(`Invalid Connect version found: ${JSON.stringify(version)}`);
    }
    const versionInt = version !== undefined ? Math.trunc(version) : (registryVersion ?? -1);
    if (versionInt >= 0) {
      const current = builder.build().version;
      if (current !== null && current !== versionInt) {
        throw new DataError(
          `Mismatched versions: version already added to SchemaBuilder (${current}) differs from version in source schema (${versionInt})`,
        );
      }
      if (current === null) builder.version(versionInt);
    }
    const params = props[CONNECT_PARAMETERS_PROP];
    if (meta && params !== undefined) {
      if (typeof params !== 'object' || params === null || Array.isArray(params)) {
        throw new DataError(
          `Expected JSON object for schema parameters but found: ${JSON.stringify(params)}`,
        );
      }
      for (const [key, value] of Object.entries(params)) {
        if (typeof value !== 'string') {
          throw new DataError(
            `Expected schema parameter values to be strings but found: ${JSON.stringify(value)}`,
          );
        }
        builder.parameter(key, value);
      }
    }
    for (const [key, value] of Object.entries(props)) {
      if (key.startsWith(AVRO_PROP)) {
        builder.parameter(key, typeof value === 'string' ? value : JSON.stringify(value));
      }
    }
    const connectDefault = props[CONNECT_DEFAULT_VALUE_PROP];
    let defaultJson = fieldDefault;
    if (defaultJson === undefined) defaultJson = connectDefault;
    else if (meta && connectDefault === undefined) {
      builder.parameter(AVRO_FIELD_DEFAULT_FLAG_PROP, 'true');
    }
    if (defaultJson !== undefined && defaultJson !== null) {
      try {
        const preview = builder.build();
        builder.defaultValue(
          toLogicalValue(preview, defaultFromAvro(preview, schema, defaultJson)),
        );
      } catch {
        // Confluent ignores a default it cannot convert.
      }
    }
    const connectName = props[CONNECT_NAME_PROP];
    let name: string | null = null;
    if (connectName !== undefined) {
      if (typeof connectName !== 'string') {
        throw new DataError(`Invalid schema name: ${JSON.stringify(connectName)}`);
      }
      name = connectName;
    } else if (schema.type === 'record' || schema.type === 'enum') {
      name = schema.fullName ?? null;
    } else if (schema.type === 'fixed' && builder.build().name !== LogicalDecimal.LOGICAL_NAME) {
      name = schema.fullName ?? null;
    }
    if (name !== null && !name.startsWith(DEFAULT_SCHEMA_FULL_NAME)) {
      const current = builder.build().name;
      if (current !== null && current !== name) {
        throw new DataError(
          `Mismatched names: name already added to SchemaBuilder (${current}) differs from name in source schema (${name})`,
        );
      }
      if (current === null) builder.name(name);
    }
    if (forceOptional) builder.optional();
    return builder.build();
  }
}

function isStringRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `schema` with `params` added (Confluent's `applyFieldLevelParams`). */
function withParameters(schema: Schema, params: Record<string, unknown>): Schema {
  const same = Object.entries(params).every(([k, v]) => schema.parameters[k] === String(v));
  if (same) return schema;
  const merged = { ...schema.parameters };
  for (const [k, v] of Object.entries(params)) merged[k] = String(v);
  return copySchema(schema, { parameters: merged });
}
