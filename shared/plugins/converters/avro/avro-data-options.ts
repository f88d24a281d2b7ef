/**
 * The names and settings shared by both directions of the Connect ↔ Avro mapping, as
 * Confluent's `AvroData` and `AvroDataConfig` define them.
 */

/** Confluent's settings of the mapping (`AvroDataConfig`) that this port honours. */
export interface AvroDataOptions {
  /** `connect.meta.data` (default true): carry Connect's doc, version, parameters, default, name. */
  readonly connectMetaData: boolean;
  /** `enhanced.avro.schema.support` (default false): Avro enums, full names in unions. */
  readonly enhancedSchemaSupport: boolean;
  /** `scrub.invalid.names` (default false): make names valid Avro names. */
  readonly scrubInvalidNames: boolean;
}

export const DEFAULT_AVRO_DATA_OPTIONS: AvroDataOptions = Object.freeze({
  connectMetaData: true,
  enhancedSchemaSupport: false,
  scrubInvalidNames: false,
});

export const NAMESPACE = 'io.confluent.connect.avro';
export const DEFAULT_SCHEMA_NAME = 'ConnectDefault';
export const DEFAULT_SCHEMA_FULL_NAME = `${NAMESPACE}.${DEFAULT_SCHEMA_NAME}`;
export const MAP_ENTRY_TYPE_NAME = 'MapEntry';
export const KEY_FIELD = 'key';
export const VALUE_FIELD = 'value';

export const CONNECT_NAME_PROP = 'connect.name';
export const CONNECT_DOC_PROP = 'connect.doc';
export const CONNECT_VERSION_PROP = 'connect.version';
export const CONNECT_DEFAULT_VALUE_PROP = 'connect.default';
export const CONNECT_PARAMETERS_PROP = 'connect.parameters';
export const CONNECT_INTERNAL_TYPE_NAME = 'connect.internal.type';
export const CONNECT_TYPE_PROP = 'connect.type';
export const AVRO_RECORD_DOC_PROP = `${NAMESPACE}.record.doc`;
export const AVRO_ENUM_DOC_PREFIX_PROP = `${NAMESPACE}.enum.doc.`;
export const AVRO_FIELD_DOC_PREFIX_PROP = `${NAMESPACE}.field.doc.`;
export const AVRO_FIELD_DEFAULT_FLAG_PROP = `${NAMESPACE}.field.default`;
export const AVRO_ENUM_DEFAULT_PREFIX_PROP = `${NAMESPACE}.enum.default.`;
export const AVRO_TYPE_UNION = `${NAMESPACE}.Union`;
export const AVRO_TYPE_ENUM = `${NAMESPACE}.Enum`;
/** Schema parameters starting with this are copied to the Avro schema as properties. */
export const AVRO_PROP = 'avro';
export const CONNECT_AVRO_FIXED_SIZE_PROP = 'connect.fixed.size';
export const CONNECT_AVRO_DECIMAL_PRECISION_PROP = 'connect.decimal.precision';
export const CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT = 64;

/** Confluent's `doScrubName`: the name itself when valid, else URL-encoded with `_`. */
export function scrubName(name: string, scrub: boolean): string {
  if (!scrub || name === '' || /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return name;
  // Java's URLEncoder: space as '+', then every character that is not a name character as '_'.
  let encoded = encodeURIComponent(name).replaceAll('%20', '+');
  if (/^[0-9]/.test(encoded)) encoded = `x${encoded}`;
  return encoded.replace(/[^A-Za-z0-9_]/g, '_');
}

/** `[namespace, name]` of a full name; the namespace is `null` without a dot. */
export function splitName(fullName: string, scrub: boolean): [string | null, string] {
  const parts = fullName.split('.').map((part) => scrubName(part, scrub));
  const name = parts.pop() ?? '';
  return [parts.length === 0 ? null : parts.join('.'), name];
}

/** Connect's Union struct (Confluent's `AvroData.isUnionSchema`). */
export function isUnionSchema(schema: { readonly name: string | null }): boolean {
  return schema.name === AVRO_TYPE_UNION;
}

/**
 * The full name of the record an Avro schema's `text` defines (for the subject name strategies
 * that use it), or `null` when it is not a record or not JSON.
 */
export function recordFullName(text: string): string | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const { type, name, namespace } = json as Record<string, unknown>;
  if (type !== 'record' || typeof name !== 'string') return null;
  if (name.includes('.') || typeof namespace !== 'string' || namespace === '') return name;
  return `${namespace}.${name}`;
}
