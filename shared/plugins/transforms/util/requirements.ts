/**
 * Input checks shared by the transformations, with Connect's messages
 * (`org.apache.kafka.connect.transforms.util.Requirements`): a schemaless transformation needs
 * a map, a schema'd one a Struct. Class names in messages are JavaScript's (`String`, `Array`,
 * `Struct`, ...) rather than Java's.
 */
import {
  type ConnectRecord,
  DataError,
  isPlainObject,
  type Schema,
  SinkRecord,
  Struct,
} from 'serverless-connect/connect';

/** A schemaless map value: a `Map`, or a plain object (string keys). */
export type MapValue = Map<unknown, unknown> | Record<string, unknown>;

/** The class of `value` as messages name it: `null`, `String`, `Number`, `Map`, `Struct`, ... */
export function className(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return 'String';
    case 'number':
      return 'Number';
    case 'bigint':
      return 'BigInt';
    case 'boolean':
      return 'Boolean';
    case 'object':
      if (isPlainObject(value)) return 'Object';
      return (value as object).constructor?.name ?? 'Object';
    default:
      return typeof value;
  }
}

/** True for both map representations. */
export function isMapValue(value: unknown): value is MapValue {
  return value instanceof Map || isPlainObject(value);
}

/** DataError unless `value` is a schema (Connect's `requireSchema`). */
export function requireSchema(schema: Schema | null, purpose: string): Schema {
  if (schema === null) throw new DataError(`Schema required for [${purpose}]`);
  return schema;
}

/** `value` as a map; DataError otherwise (Connect's `requireMap`). */
export function requireMap(value: unknown, purpose: string): MapValue {
  if (!isMapValue(value)) {
    throw new DataError(
      `Only Map objects supported in absence of schema for [${purpose}], found: ${className(value)}`,
    );
  }
  return value;
}

/** `null` for `null`, else as {@link requireMap}. */
export function requireMapOrNull(value: unknown, purpose: string): MapValue | null {
  return value === null || value === undefined ? null : requireMap(value, purpose);
}

/** `value` as a Struct; DataError otherwise (Connect's `requireStruct`). */
export function requireStruct(value: unknown, purpose: string): Struct {
  if (!(value instanceof Struct)) {
    throw new DataError(
      `Only Struct objects supported for [${purpose}], found: ${className(value)}`,
    );
  }
  return value;
}

/** `null` for `null`, else as {@link requireStruct}. */
export function requireStructOrNull(value: unknown, purpose: string): Struct | null {
  return value === null || value === undefined ? null : requireStruct(value, purpose);
}

/** `record` as a SinkRecord; DataError otherwise (Connect's `requireSinkRecord`). */
export function requireSinkRecord(record: ConnectRecord, purpose: string): SinkRecord {
  if (!(record instanceof SinkRecord)) {
    throw new DataError(`Only SinkRecord supported for [${purpose}], found: ${className(record)}`);
  }
  return record;
}

/**
 * A field's value, with its default applied when `replaceNullWithDefault` is true (KIP-1040's
 * `replace.null.with.default`), or as stored otherwise.
 */
export function fieldValue(
  struct: Struct,
  field: string,
  replaceNullWithDefault: boolean,
): unknown {
  return replaceNullWithDefault ? struct.get(field) : struct.getWithoutDefault(field);
}
