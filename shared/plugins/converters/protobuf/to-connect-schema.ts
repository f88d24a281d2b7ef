/**
 * Protobuf message → Connect schema, as Confluent's `ProtobufData.toConnectSchema` maps it:
 * a struct named after the message (its full name with `enhanced.protobuf.schema.support`),
 * each oneof first as an optional struct `io.confluent.connect.protobuf.Union.<oneof>` in a
 * field `<oneof>_<index>`, then the other fields in order, every field schema carrying its
 * number as `io.confluent.connect.protobuf.Tag`. Repeated fields are arrays, entry messages
 * maps, enums strings with their symbols as parameters, the known types Connect's logical
 * types, google.protobuf wrappers optional primitives. Fields are optional unless
 * `optional.for.nullables` or `wrapper.for.nullables` say otherwise.
 */

import type { Field, OneOf, Type } from 'protobufjs';
import protobuf from 'protobufjs';
import {
  DataError,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  type Schema,
  SchemaBuilder,
} from 'serverless-connect/connect';
import { isWrapperType } from './known-types.js';
import { declaredFields } from './proto-root.js';
import {
  CONNECT_PRECISION_PROP,
  CONNECT_TYPE_PROP,
  DATE_TYPE,
  DECIMAL_TYPE,
  KEY_FIELD,
  MAP_ENTRY_SUFFIX,
  PROTOBUF_PRECISION_PROP,
  PROTOBUF_SCALE_PROP,
  PROTOBUF_TYPE_ENUM,
  PROTOBUF_TYPE_ENUM_PREFIX,
  PROTOBUF_TYPE_PROP,
  PROTOBUF_TYPE_TAG,
  PROTOBUF_TYPE_UNION_PREFIX,
  PROTOBUF_TYPE_WRAPPER,
  type ProtobufDataOptions,
  TIME_TYPE,
  TIMESTAMP_TYPE,
  toMapField,
  VALUE_FIELD,
} from './protobuf-data-options.js';

const INT32_TYPES = new Set(['int32', 'sint32', 'sfixed32']);
const INT64_TYPES = new Set([
  'uint32',
  'fixed32',
  'int64',
  'uint64',
  'sint64',
  'fixed64',
  'sfixed64',
]);

/** The primitive a google.protobuf wrapper holds, as Confluent maps it (UInt32Value: int64). */
const UNWRAPPED: Readonly<Record<string, () => SchemaBuilder>> = {
  'google.protobuf.DoubleValue': () => SchemaBuilder.float64(),
  'google.protobuf.FloatValue': () => SchemaBuilder.float32(),
  'google.protobuf.Int64Value': () => SchemaBuilder.int64(),
  'google.protobuf.UInt64Value': () => SchemaBuilder.int64(),
  'google.protobuf.Int32Value': () => SchemaBuilder.int32(),
  'google.protobuf.UInt32Value': () => SchemaBuilder.int64(),
  'google.protobuf.BoolValue': () => SchemaBuilder.bool(),
  'google.protobuf.StringValue': () => SchemaBuilder.string(),
  'google.protobuf.BytesValue': () => SchemaBuilder.bytes(),
};

/** The full name of a reflected type, without protobufjs's leading dot. */
export function fullName(object: { fullName: string }): string {
  return object.fullName.replace(/^\./, '');
}

/** Confluent's `(confluent.field_meta)` parameters of `field`. */
export function metaParams(field: Field): Record<string, string> {
  const params: Record<string, string> = {};
  for (const option of (field.parsedOptions ?? []) as Record<string, unknown>[]) {
    const meta = option['(confluent.field_meta)'] as { params?: unknown } | undefined;
    const list = meta?.params;
    for (const entry of Array.isArray(list) ? list : list === undefined ? [] : [list]) {
      const { key, value } = entry as { key?: unknown; value?: unknown };
      if (typeof key === 'string') params[key] = String(value ?? '');
    }
  }
  return params;
}

/** Real oneofs: not the synthetic one of a proto3 `optional` field. */
export function realOneofs(type: Type): OneOf[] {
  return type.oneofsArray.filter(
    (o) => !(o.fieldsArray.length === 1 && o.fieldsArray[0]?.options?.proto3_optional === true),
  );
}

/** The name of a oneof's Connect field: `<oneof>_<index>` with `generate.index.for.unions`. */
export function unionFieldName(oneof: OneOf, index: number, options: ProtobufDataOptions): string {
  return options.generateIndexForUnions ? `${oneof.name}_${index}` : oneof.name;
}

/** The field belongs to a real oneof. */
export function inRealOneof(field: Field): boolean {
  const oneof = field.partOf;
  return oneof !== null && !(oneof.fieldsArray.length === 1 && field.options?.proto3_optional);
}

/** An entry message of a map field (Confluent's `isMapDescriptor`). */
export function isMapField(field: Field): boolean {
  const entry = field.resolvedType;
  if (!field.repeated || !(entry instanceof protobuf.Type)) return false;
  const fields = entry.fieldsArray;
  return (
    entry.name.endsWith(MAP_ENTRY_SUFFIX) &&
    fields.length === 2 &&
    fields[0]?.name === KEY_FIELD &&
    fields[1]?.name === VALUE_FIELD &&
    !fields[0].repeated &&
    !fields[1].repeated
  );
}

class ToConnect {
  readonly #options: ProtobufDataOptions;
  /** The messages being built, to refuse recursion (Connect schemas are trees). */
  readonly #building = new Set<string>();

  constructor(options: ProtobufDataOptions) {
    this.#options = options;
  }

  message(type: Type): SchemaBuilder {
    const name = fullName(type);
    // Confluent unwraps a wrapper message wherever it builds a message's schema, nested too.
    const unwrapped = UNWRAPPED[name];
    if (this.#options.wrapperForRawPrimitives && unwrapped !== undefined) return unwrapped();
    if (this.#building.has(name)) {
      throw new DataError(
        `The Protobuf message ${name} holds itself: recursive messages are not supported`,
      );
    }
    this.#building.add(name);
    const builder = SchemaBuilder.struct().name(
      this.#options.enhancedSchemaSupport ? name : type.name,
    );
    realOneofs(type).forEach((oneof, index) => {
      if (this.#options.flattenUnions) {
        for (const member of oneof.fieldsArray)
          builder.field(member.name, this.field(member, true));
      } else {
        builder.field(unionFieldName(oneof, index, this.#options), this.#union(oneof));
      }
    });
    for (const field of declaredFields(type)) {
      if (!inRealOneof(field)) builder.field(field.name, this.field(field, false));
    }
    this.#building.delete(name);
    return builder;
  }

  #union(oneof: OneOf): Schema {
    const name = this.#options.enhancedSchemaSupport
      ? `${fullName(oneof.parent as Type)}.${oneof.name}`
      : oneof.name;
    const builder = SchemaBuilder.struct().name(`${PROTOBUF_TYPE_UNION_PREFIX}${name}`);
    for (const member of oneof.fieldsArray) builder.field(member.name, this.field(member, true));
    return builder.optional().build();
  }

  #base(field: Field): SchemaBuilder {
    const type = field.type;
    if (INT32_TYPES.has(type)) {
      const connectType = metaParams(field)[CONNECT_TYPE_PROP];
      if (connectType === 'int8') return SchemaBuilder.int8();
      if (connectType === 'int16') return SchemaBuilder.int16();
      const builder = SchemaBuilder.int32();
      return type === 'int32' ? builder : builder.parameter(PROTOBUF_TYPE_PROP, type);
    }
    if (INT64_TYPES.has(type)) {
      const builder = SchemaBuilder.int64();
      return type === 'int64' ? builder : builder.parameter(PROTOBUF_TYPE_PROP, type);
    }
    switch (type) {
      case 'float':
        return SchemaBuilder.float32();
      case 'double':
        return SchemaBuilder.float64();
      case 'bool':
        return SchemaBuilder.bool();
      case 'string':
        return SchemaBuilder.string();
      case 'bytes':
        return SchemaBuilder.bytes();
    }
    const resolved = field.resolvedType;
    if (resolved instanceof protobuf.Enum) {
      const builder = this.#options.intForEnums ? SchemaBuilder.int32() : SchemaBuilder.string();
      builder.name(this.#options.enhancedSchemaSupport ? fullName(resolved) : resolved.name);
      builder.parameter(PROTOBUF_TYPE_ENUM, resolved.name);
      for (const [symbol, tag] of Object.entries(resolved.values)) {
        builder.parameter(`${PROTOBUF_TYPE_ENUM_PREFIX}${symbol}`, String(tag));
      }
      return builder.optional();
    }
    if (resolved instanceof protobuf.Type) return this.#messageField(field, resolved).optional();
    throw new DataError(`Unknown Protobuf type ${type} of field ${field.name}`);
  }

  #messageField(field: Field, type: Type): SchemaBuilder {
    switch (fullName(type)) {
      case DECIMAL_TYPE: {
        const params = metaParams(field);
        const scale = Number.parseInt(params[PROTOBUF_SCALE_PROP] ?? '0', 10);
        const builder = LogicalDecimal.builder(Number.isNaN(scale) ? 0 : scale);
        const precision = params[PROTOBUF_PRECISION_PROP];
        if (precision !== undefined && /^-?\d+$/.test(precision)) {
          builder.parameter(CONNECT_PRECISION_PROP, String(Number.parseInt(precision, 10)));
        }
        return builder;
      }
      case DATE_TYPE:
        return LogicalDate.builder();
      case TIME_TYPE:
        return LogicalTime.builder();
      case TIMESTAMP_TYPE:
        return LogicalTimestamp.builder();
    }
    if (this.#options.wrapperForNullables && isWrapperType(fullName(type))) {
      return (UNWRAPPED[fullName(type)] as () => SchemaBuilder)();
    }
    if (isMapField(field)) {
      const [key, value] = type.fieldsArray as [Field, Field];
      const name = this.#options.enhancedSchemaSupport ? fullName(type) : type.name;
      return SchemaBuilder.map(this.field(key, false), this.field(value, false)).name(
        toMapField(name),
      );
    }
    return this.message(type);
  }

  field(field: Field, oneofMember: boolean): Schema {
    let builder = this.#base(field);
    if (field.repeated && builder.type !== 'map') {
      builder = SchemaBuilder.array(builder.optional().build()).optional();
    }
    const options = this.#options;
    if (oneofMember) {
      builder.optional();
      const resolved = field.resolvedType;
      if (
        options.wrapperForNullables &&
        resolved instanceof protobuf.Type &&
        isWrapperType(fullName(resolved))
      ) {
        builder.parameter(PROTOBUF_TYPE_WRAPPER, 'true');
      }
    } else if (options.optionalForNullables) {
      // protobufjs keeps no trace of proto2's `optional` keyword: only proto3's is seen here.
      if (field.options?.proto3_optional === true) builder.optional();
    } else if (!options.wrapperForNullables) {
      builder.optional();
    }
    return builder.parameter(PROTOBUF_TYPE_TAG, String(field.id)).build();
  }
}

/**
 * The Connect schema of message `type`, with `version` (the registry's) when not `null`.
 * @throws DataError for a recursive message or a field of an unknown type.
 */
export function toConnectSchema(
  type: Type,
  version: number | null,
  options: ProtobufDataOptions,
): Schema {
  return new ToConnect(options).message(type).version(version).build();
}
