/**
 * The names and settings shared by both directions of the Connect ↔ Protobuf mapping, as
 * Confluent's `ProtobufData` and `ProtobufDataConfig` define them.
 */

/** Confluent's settings of the mapping (`ProtobufDataConfig`) that this port honours. */
export interface ProtobufDataOptions {
  /** `enhanced.protobuf.schema.support` (false): full names for structs, enums, maps, unions. */
  readonly enhancedSchemaSupport: boolean;
  /** `scrub.invalid.names` (false): make names valid Protobuf names. */
  readonly scrubInvalidNames: boolean;
  /** `int.for.enums` (false): enums read as int32 rather than string. */
  readonly intForEnums: boolean;
  /** `optional.for.nullables` (false): optional Connect fields as proto3 `optional` fields. */
  readonly optionalForNullables: boolean;
  /** `optional.for.proto2` (true): proto2 `optional` fields read as optional. */
  readonly optionalForProto2: boolean;
  /** `wrapper.for.nullables` (false): optional primitives as google.protobuf wrappers. */
  readonly wrapperForNullables: boolean;
  /** `wrapper.for.raw.primitives` (true): a top-level wrapper message reads as its primitive. */
  readonly wrapperForRawPrimitives: boolean;
  /** `generate.index.for.unions` (true): a oneof's field is named `<oneof>_<index>`. */
  readonly generateIndexForUnions: boolean;
  /** `flatten.unions` (false): a oneof's fields read as fields of the message. */
  readonly flattenUnions: boolean;
}

export const DEFAULT_PROTOBUF_DATA_OPTIONS: ProtobufDataOptions = Object.freeze({
  enhancedSchemaSupport: false,
  scrubInvalidNames: false,
  intForEnums: false,
  optionalForNullables: false,
  optionalForProto2: true,
  wrapperForNullables: false,
  wrapperForRawPrimitives: true,
  generateIndexForUnions: true,
  flattenUnions: false,
});

export const NAMESPACE = 'io.confluent.connect.protobuf';
export const DEFAULT_SCHEMA_NAME = 'ConnectDefault';
export const MAP_ENTRY_SUFFIX = 'Entry';
export const KEY_FIELD = 'key';
export const VALUE_FIELD = 'value';

/** A string (or int32) schema holding an enum: the enum's name, and one parameter per symbol. */
export const PROTOBUF_TYPE_ENUM = `${NAMESPACE}.Enum`;
export const PROTOBUF_TYPE_ENUM_PREFIX = `${PROTOBUF_TYPE_ENUM}.`;
/** A struct holding a oneof is named `io.confluent.connect.protobuf.Union.<oneof>`. */
export const PROTOBUF_TYPE_UNION = `${NAMESPACE}.Union`;
export const PROTOBUF_TYPE_UNION_PREFIX = `${PROTOBUF_TYPE_UNION}.`;
/** The field number, on every field schema read from Protobuf. */
export const PROTOBUF_TYPE_TAG = `${NAMESPACE}.Tag`;
/** The Protobuf type of an integer that is not int32/int64 (`sint32`, `uint32`, `fixed64`, …). */
export const PROTOBUF_TYPE_PROP = `${NAMESPACE}.Type`;
/** Marks a oneof member that was a google.protobuf wrapper (`wrapper.for.nullables`). */
export const PROTOBUF_TYPE_WRAPPER = `${NAMESPACE}.Wrapper`;

export const CONNECT_PRECISION_PROP = 'connect.decimal.precision';
export const CONNECT_SCALE_PROP = 'scale';
export const CONNECT_TYPE_PROP = 'connect.type';
export const PROTOBUF_PRECISION_PROP = 'precision';
export const PROTOBUF_SCALE_PROP = 'scale';

export const DECIMAL_TYPE = 'confluent.type.Decimal';
export const DATE_TYPE = 'google.type.Date';
export const TIME_TYPE = 'google.type.TimeOfDay';
export const TIMESTAMP_TYPE = 'google.protobuf.Timestamp';

/** Java's `URLEncoder.encode(s, "UTF-8")`: `.-*_` and alphanumerics kept, space as `+`. */
function javaUrlEncode(s: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9.\-*_]/.test(c)) out += c;
    else if (byte === 0x20) out += '+';
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Confluent's `doScrubName`: the name when valid, else URL-encoded with every other char `_`. */
export function scrubName(name: string, scrub: boolean): string {
  if (!scrub || name === '' || /^[A-Za-z][A-Za-z0-9_]*$/.test(name)) return name;
  let encoded = javaUrlEncode(name);
  if (/^[0-9_]/.test(encoded)) encoded = `x${encoded}`;
  return encoded.replace(/[^A-Za-z0-9_]/g, '_');
}

/** Guava's `LOWER_UNDERSCORE.to(UPPER_CAMEL, s)`: `my_tags` → `MyTags`. */
function lowerUnderscoreToUpperCamel(s: string): string {
  return s
    .split('_')
    .map((word) => (word === '' ? '' : word[0]?.toUpperCase() + word.slice(1).toLowerCase()))
    .join('');
}

/** Guava's `UPPER_CAMEL.to(LOWER_UNDERSCORE, s)`: `MyTags` → `my_tags`. */
function upperCamelToLowerUnderscore(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    const upper = c >= 'A' && c <= 'Z';
    out += upper ? `${i > 0 ? '_' : ''}${c.toLowerCase()}` : c;
  }
  return out;
}

/** The map entry message of a map named `name` (Confluent's `ProtobufSchema.toMapEntry`). */
export function toMapEntry(name: string): string {
  return `${name.includes('_') ? lowerUnderscoreToUpperCamel(name) : name}${MAP_ENTRY_SUFFIX}`;
}

/** The Connect name of a map read from entry message `name` (`ProtobufSchema.toMapField`). */
export function toMapField(name: string): string {
  const parts = name.split('.');
  const last = parts[parts.length - 1] as string;
  if (last.endsWith(MAP_ENTRY_SUFFIX)) {
    parts[parts.length - 1] = upperCamelToLowerUnderscore(
      last.slice(0, last.length - MAP_ENTRY_SUFFIX.length),
    );
  }
  return parts.join('.');
}
