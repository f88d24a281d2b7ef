/**
 * Connect schema → the .proto file Confluent's `ProtobufData.fromConnectSchema` writes for it:
 * a proto3 file whose package is the schema name up to its last dot and whose one top-level
 * message is the struct (unnamed: `ConnectDefault1`), with nested messages for struct and map
 * fields, nested enums, oneofs for unions, and imports of the known types it uses. A top-level
 * primitive is the matching google.protobuf wrapper; a top-level array or map is refused.
 */
import {
  DataError,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  type Schema,
} from 'serverless-connect/connect';
import { KNOWN_TYPE_FILES, ROOT_WRAPPERS, WRAPPERS_PROTO } from './known-types.js';
import {
  newMessage,
  type ProtoField,
  type ProtoFile,
  type ProtoMessage,
  renderProtoFile,
} from './proto-file.js';
import {
  CONNECT_PRECISION_PROP,
  CONNECT_SCALE_PROP,
  CONNECT_TYPE_PROP,
  DATE_TYPE,
  DECIMAL_TYPE,
  DEFAULT_SCHEMA_NAME,
  KEY_FIELD,
  PROTOBUF_PRECISION_PROP,
  PROTOBUF_SCALE_PROP,
  PROTOBUF_TYPE_ENUM,
  PROTOBUF_TYPE_ENUM_PREFIX,
  PROTOBUF_TYPE_PROP,
  PROTOBUF_TYPE_TAG,
  PROTOBUF_TYPE_UNION,
  PROTOBUF_TYPE_UNION_PREFIX,
  PROTOBUF_TYPE_WRAPPER,
  type ProtobufDataOptions,
  scrubName,
  TIME_TYPE,
  TIMESTAMP_TYPE,
  toMapEntry,
  VALUE_FIELD,
} from './protobuf-data-options.js';

/** What a Connect schema is written as: the .proto text and the message a value is. */
export interface WriterProto {
  readonly text: string;
  /** The full name of the message (`com.example.Order`, `google.protobuf.StringValue`). */
  readonly messageName: string;
}

const WRAPPER_OF: Readonly<Record<string, string>> = {
  int32: 'google.protobuf.Int32Value',
  int64: 'google.protobuf.Int64Value',
  uint32: 'google.protobuf.UInt32Value',
  fixed32: 'google.protobuf.UInt32Value',
  uint64: 'google.protobuf.UInt64Value',
  fixed64: 'google.protobuf.UInt64Value',
  float32: 'google.protobuf.FloatValue',
  float64: 'google.protobuf.DoubleValue',
  boolean: 'google.protobuf.BoolValue',
  string: 'google.protobuf.StringValue',
  bytes: 'google.protobuf.BytesValue',
};

/** True for a struct that holds a oneof. */
export function isUnionSchema(schema: Schema): boolean {
  return schema.name?.startsWith(PROTOBUF_TYPE_UNION) === true;
}

/** True for a string or int32 schema that holds an enum. */
export function isEnumSchema(schema: Schema): boolean {
  return schema.parameters[PROTOBUF_TYPE_ENUM] !== undefined;
}

/** A oneof member that was a google.protobuf wrapper (`wrapper.for.nullables`). */
export function hasWrapperMarker(schema: Schema): boolean {
  return schema.parameters[PROTOBUF_TYPE_WRAPPER]?.toLowerCase() === 'true';
}

function tagOf(schema: Schema): number | null {
  const text = schema.parameters[PROTOBUF_TYPE_TAG];
  if (text === undefined) return null;
  const tag = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(tag)) {
    throw new DataError(`Invalid ${PROTOBUF_TYPE_TAG} parameter: ${text}`);
  }
  return tag;
}

/** One conversion: the name counter and the types each message has defined. */
class FromConnect {
  readonly #options: ProtobufDataOptions;
  readonly #imports: string[] = [];
  readonly #children = new Map<ProtoMessage, Set<string>>();
  #nameIndex = 0;

  constructor(options: ProtobufDataOptions) {
    this.#options = options;
  }

  get imports(): readonly string[] {
    return this.#imports;
  }

  nameOrDefault(name: string | null): string {
    return name !== null && name !== '' ? name : `${DEFAULT_SCHEMA_NAME}${++this.#nameIndex}`;
  }

  #scrub(name: string): string {
    return scrubName(name, this.#options.scrubInvalidNames);
  }

  #unqualified(name: string | null): string {
    const full = this.nameOrDefault(name);
    return this.#scrub(full.slice(full.lastIndexOf('.') + 1));
  }

  /** `[package, message name]` of a full name, each part scrubbed. */
  splitName(fullName: string): [string | null, string] {
    const parts = fullName.split('.').map((p) => this.#scrub(p));
    const name = parts.pop() as string;
    return [parts.length === 0 ? null : parts.join('.'), name];
  }

  message(name: string, struct: Schema): ProtoMessage {
    const message = newMessage(name);
    let index = 1;
    for (const field of struct.fields) {
      const tag = tagOf(field.schema) ?? index++;
      const def = this.#field(message, field.schema, this.#scrub(field.name), tag, false);
      if (def === null) continue;
      const optional =
        this.#options.optionalForNullables &&
        field.schema.optional &&
        field.schema.type !== 'array' &&
        field.schema.type !== 'map';
      message.fields.push(optional ? { ...def, label: 'optional' } : def);
    }
    return message;
  }

  #oneof(message: ProtoMessage, union: Schema, name: string): void {
    const fields: ProtoField[] = [];
    for (const member of union.fields) {
      const tag = tagOf(member.schema) ?? 0;
      if (tag <= 0) {
        throw new DataError(
          `Invalid protobuf schema definition: oneof member ${member.name} of ${name} has no ` +
            `${PROTOBUF_TYPE_TAG} parameter (a field number)`,
        );
      }
      const def = this.#field(message, member.schema, this.#scrub(member.name), tag, true);
      if (def !== null) fields.push({ ...def, label: null });
    }
    message.oneofs.push({ name, fields });
  }

  #field(
    message: ProtoMessage,
    schema: Schema,
    name: string,
    tag: number,
    oneofMember: boolean,
  ): ProtoField | null {
    const repeated = schema.type === 'array' || schema.type === 'map';
    const fieldSchema = schema.type === 'array' ? (schema.valueSchema as Schema) : schema;
    const params: [string, string][] = [];
    const type = this.#dataType(fieldSchema, name, params, oneofMember);
    if (fieldSchema.type === 'struct') {
      if (isUnionSchema(fieldSchema)) {
        const unionName = (fieldSchema.name as string).slice(PROTOBUF_TYPE_UNION_PREFIX.length);
        this.#oneof(message, fieldSchema, this.#unqualified(unionName));
        return null;
      }
      if (!this.#contains(message, type)) {
        this.#add(message, type);
        message.messages.push(this.message(type, fieldSchema));
      }
    } else if (fieldSchema.type === 'map') {
      message.messages.push(this.#mapEntry(type, fieldSchema));
    } else if (isEnumSchema(fieldSchema)) {
      const enumName = this.#unqualified(fieldSchema.name);
      if (!message.enums.some((e) => e.name === enumName)) {
        message.enums.push({ name: enumName, values: enumValues(fieldSchema) });
      }
    } else {
      const file = KNOWN_TYPE_FILES.get(type);
      if (file !== undefined && !this.#imports.includes(file)) this.#imports.push(file);
    }
    return { label: repeated ? 'repeated' : null, type, name, tag, params };
  }

  #mapEntry(name: string, map: Schema): ProtoMessage {
    const entry = newMessage(name);
    for (const [fieldName, tag, schema] of [
      [KEY_FIELD, 1, map.keySchema],
      [VALUE_FIELD, 2, map.valueSchema],
    ] as const) {
      const def = this.#field(entry, schema as Schema, fieldName, tag, false);
      if (def !== null) entry.fields.push(def);
    }
    return entry;
  }

  #contains(parent: ProtoMessage, child: string): boolean {
    return parent.name === child || this.#children.get(parent)?.has(child) === true;
  }

  #add(parent: ProtoMessage, child: string): void {
    const children = this.#children.get(parent) ?? new Set<string>();
    children.add(child);
    this.#children.set(parent, children);
  }

  #wrapped(schema: Schema, oneofMember: boolean): boolean {
    return (
      this.#options.wrapperForNullables &&
      schema.optional &&
      (!oneofMember || hasWrapperMarker(schema))
    );
  }

  #dataType(
    schema: Schema,
    fieldName: string,
    params: [string, string][],
    oneofMember: boolean,
  ): string {
    switch (schema.name) {
      case LogicalDecimal.LOGICAL_NAME: {
        const precision = schema.parameters[CONNECT_PRECISION_PROP];
        const scale = schema.parameters[CONNECT_SCALE_PROP];
        if (precision !== undefined) params.push([PROTOBUF_PRECISION_PROP, precision]);
        if (scale !== undefined) params.push([PROTOBUF_SCALE_PROP, scale]);
        return DECIMAL_TYPE;
      }
      case LogicalDate.LOGICAL_NAME:
        return DATE_TYPE;
      case LogicalTime.LOGICAL_NAME:
        return TIME_TYPE;
      case LogicalTimestamp.LOGICAL_NAME:
        return TIMESTAMP_TYPE;
    }
    const wrap = this.#wrapped(schema, oneofMember);
    const enumType = schema.parameters[PROTOBUF_TYPE_ENUM];
    switch (schema.type) {
      case 'int8':
      case 'int16':
        params.push([CONNECT_TYPE_PROP, schema.type]);
        return wrap ? (WRAPPER_OF.int32 as string) : 'int32';
      case 'int32':
        if (enumType !== undefined) return enumType;
        return wrap
          ? (WRAPPER_OF.int32 as string)
          : (schema.parameters[PROTOBUF_TYPE_PROP] ?? 'int32');
      case 'int64': {
        const type = schema.parameters[PROTOBUF_TYPE_PROP] ?? 'int64';
        return wrap ? (WRAPPER_OF[type] ?? (WRAPPER_OF.int64 as string)) : type;
      }
      case 'string':
        if (enumType !== undefined) return enumType;
        return wrap ? (WRAPPER_OF.string as string) : 'string';
      case 'float32':
        return wrap ? (WRAPPER_OF.float32 as string) : 'float';
      case 'float64':
        return wrap ? (WRAPPER_OF.float64 as string) : 'double';
      case 'boolean':
        return wrap ? (WRAPPER_OF.boolean as string) : 'bool';
      case 'bytes':
        return wrap ? (WRAPPER_OF.bytes as string) : 'bytes';
      case 'array':
        throw new DataError('Array cannot be nested');
      case 'map':
        return toMapEntry(this.#unqualified(schema.name));
      case 'struct': {
        const name = this.#unqualified(schema.name);
        // A message type and a field cannot share a name: Confluent suffixes the type.
        return name === fieldName ? `${name}Message` : name;
      }
    }
  }
}

/** The symbols of an enum schema and their numbers, in parameter order. */
function enumValues(schema: Schema): [string, number][] {
  return Object.entries(schema.parameters)
    .filter(([key]) => key.startsWith(PROTOBUF_TYPE_ENUM_PREFIX))
    .map(([key, value]) => [key.slice(PROTOBUF_TYPE_ENUM_PREFIX.length), Number(value)]);
}

/**
 * The .proto text and message of Connect schema `schema`.
 * @throws DataError for a top-level array or map, a nested array, a oneof member without a
 *   field number.
 */
export function writerProtoOf(schema: Schema, options: ProtobufDataOptions): WriterProto {
  const wrapper = ROOT_WRAPPERS[schema.type];
  if (schema.type !== 'struct') {
    if (wrapper === undefined) {
      throw new DataError(
        `Unsupported root schema of type ${schema.type.toUpperCase()}: the Protobuf converter ` +
          'writes a struct or a primitive',
      );
    }
    return { text: WRAPPERS_PROTO, messageName: wrapper };
  }
  const ctx = new FromConnect(options);
  const [namespace, name] = ctx.splitName(ctx.nameOrDefault(schema.name));
  const message = ctx.message(name, schema);
  const file: ProtoFile = { package: namespace, imports: ctx.imports, messages: [message] };
  return {
    text: renderProtoFile(file),
    messageName: namespace === null ? name : `${namespace}.${name}`,
  };
}
