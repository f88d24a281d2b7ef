/**
 * Connect values → DynamoDB attribute values (the wire format of the DynamoDB API), written
 * here rather than taken from `@aws-sdk/util-dynamodb` (not a dependency of the project, and
 * unaware of Connect's schemas, int64 bigints, decimals and structs).
 *
 * | Connect                                  | DynamoDB                                         |
 * |------------------------------------------|--------------------------------------------------|
 * | int8/16/32/64, float32/64 (number/bigint) | `N` (decimal text; NaN and ±Infinity: DataError) |
 * | Decimal (`BigDecimal`/`DecimalValue`)    | `N` (plain notation, full precision)             |
 * | Date / Time / Timestamp (`Date`)         | `S`: `2024-01-31` / `12:34:56.789` / full ISO-8601 UTC |
 * | string                                   | `S`                                              |
 * | boolean                                  | `BOOL`                                           |
 * | bytes (`Uint8Array`)                     | `B`                                              |
 * | array                                    | `L`                                              |
 * | map (`Map` or plain object), struct      | `M` (map keys as text; struct field defaults applied) |
 * | null / undefined                         | `NULL`                                           |
 *
 * Schemaless values are mapped by their JavaScript type with the same table (a `Date` becomes
 * a full ISO-8601 timestamp, a `BigDecimal` a number).
 */
import {
  BigDecimal,
  DataError,
  type DecimalValue,
  isPlainObject,
  isStruct,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  mapEntries,
  type Schema,
  Struct,
} from 'serverless-connect/connect';

/** One DynamoDB attribute value (structurally the SDK's `AttributeValue`, without sets). */
export type AttributeValue =
  | { readonly S: string }
  | { readonly N: string }
  | { readonly B: Uint8Array }
  | { readonly BOOL: boolean }
  | { readonly NULL: true }
  | { readonly L: readonly AttributeValue[] }
  | { readonly M: AttributeMap };

/** An item, or a key: attribute name → value. */
export type AttributeMap = Readonly<Record<string, AttributeValue>>;

/** The scalar types a key attribute can have. */
export type ScalarAttributeType = 'S' | 'N' | 'B';

const NULL_VALUE: AttributeValue = Object.freeze({ NULL: true });

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof Uint8Array) return 'bytes';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Map || isPlainObject(value)) return 'map';
  if (isStruct(value)) return 'struct';
  return typeof value;
}

function mismatch(path: string, expected: string, value: unknown): DataError {
  return new DataError(
    `Cannot write ${path} to DynamoDB: expected a ${expected} value, got ${describe(value)}`,
  );
}

function numberText(path: string, value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'number') throw mismatch(path, 'number', value);
  if (!Number.isFinite(value)) {
    throw new DataError(`Cannot write ${path} to DynamoDB: ${value} is not a finite number`);
  }
  return String(value);
}

function isDecimal(value: unknown): value is DecimalValue {
  return (
    value instanceof BigDecimal ||
    (typeof value === 'object' &&
      value !== null &&
      typeof (value as DecimalValue).unscaled === 'bigint' &&
      typeof (value as DecimalValue).scale === 'number')
  );
}

function validDate(path: string, value: unknown): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw mismatch(path, 'Date', value);
  }
  return value;
}

/** The attribute of a logical-type value, or `undefined` when `schema` is not logical. */
function logicalAttribute(
  schema: Schema,
  value: unknown,
  path: string,
): AttributeValue | undefined {
  switch (schema.name) {
    case LogicalDecimal.LOGICAL_NAME:
      if (!isDecimal(value)) throw mismatch(path, 'Decimal', value);
      return { N: BigDecimal.from(value).toString() };
    case LogicalDate.LOGICAL_NAME:
      return { S: validDate(path, value).toISOString().slice(0, 10) };
    case LogicalTime.LOGICAL_NAME:
      return { S: validDate(path, value).toISOString().slice(11, 23) };
    case LogicalTimestamp.LOGICAL_NAME:
      return { S: validDate(path, value).toISOString() };
    default:
      return undefined;
  }
}

function mapKeyText(path: string, key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'number' || typeof key === 'bigint' || typeof key === 'boolean') {
    return String(key);
  }
  throw new DataError(
    `Cannot write ${path} to DynamoDB: map keys must be strings, numbers or booleans, got ${describe(key)}`,
  );
}

function structAttributes(value: unknown, path: string): Record<string, AttributeValue> {
  if (!(value instanceof Struct)) throw mismatch(path, 'struct', value);
  const out: Record<string, AttributeValue> = {};
  for (const field of value.schema.fields) {
    out[field.name] = toAttributeValue(field.schema, value.get(field), `${path}.${field.name}`);
  }
  return out;
}

function mapAttributes(
  valueSchema: Schema | null,
  value: unknown,
  path: string,
): Record<string, AttributeValue> {
  if (!(value instanceof Map) && !isPlainObject(value)) throw mismatch(path, 'map', value);
  const out: Record<string, AttributeValue> = {};
  for (const [key, entry] of mapEntries(value)) {
    const name = mapKeyText(path, key);
    out[name] = toAttributeValue(valueSchema, entry, `${path}.${name}`);
  }
  return out;
}

function listAttribute(elementSchema: Schema | null, value: unknown, path: string): AttributeValue {
  if (!Array.isArray(value)) throw mismatch(path, 'array', value);
  return {
    L: value.map((element, i) => toAttributeValue(elementSchema, element, `${path}[${i}]`)),
  };
}

function schemalessAttribute(value: unknown, path: string): AttributeValue {
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number' || typeof value === 'bigint') return { N: numberText(path, value) };
  if (typeof value === 'boolean') return { BOOL: value };
  if (value instanceof Uint8Array) return { B: value };
  if (value instanceof Date) return { S: validDate(path, value).toISOString() };
  if (isDecimal(value)) return { N: BigDecimal.from(value).toString() };
  if (Array.isArray(value)) return listAttribute(null, value, path);
  if (value instanceof Struct) return { M: structAttributes(value, path) };
  if (value instanceof Map || isPlainObject(value)) return { M: mapAttributes(null, value, path) };
  throw new DataError(`Cannot write ${path} to DynamoDB: unsupported value ${describe(value)}`);
}

/**
 * The attribute value of `value` under `schema` (`null` when schemaless). `path` names the
 * value in error messages (e.g. `value.address.zip`). Throws DataError when the value does not
 * fit its schema or has no DynamoDB representation.
 */
export function toAttributeValue(
  schema: Schema | null,
  value: unknown,
  path: string,
): AttributeValue {
  if (value === null || value === undefined) return NULL_VALUE;
  if (schema === null) return schemalessAttribute(value, path);
  const logical = logicalAttribute(schema, value, path);
  if (logical !== undefined) return logical;
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
    case 'float32':
    case 'float64':
      return { N: numberText(path, value) };
    case 'boolean':
      if (typeof value !== 'boolean') throw mismatch(path, 'boolean', value);
      return { BOOL: value };
    case 'string':
      if (typeof value !== 'string') throw mismatch(path, 'string', value);
      return { S: value };
    case 'bytes':
      if (!(value instanceof Uint8Array)) throw mismatch(path, 'bytes', value);
      return { B: value };
    case 'array':
      return listAttribute(schema.valueSchema, value, path);
    case 'map':
      return { M: mapAttributes(schema.valueSchema, value, path) };
    case 'struct':
      return { M: structAttributes(value, path) };
  }
}

/**
 * The attributes of an item from a struct or map value (one attribute per field or entry).
 * Throws DataError for any other value.
 */
export function toAttributes(
  schema: Schema | null,
  value: unknown,
  path: string,
): Record<string, AttributeValue> {
  if (value instanceof Struct) return structAttributes(value, path);
  if (value instanceof Map || isPlainObject(value)) {
    return mapAttributes(schema?.type === 'map' ? schema.valueSchema : null, value, path);
  }
  throw new DataError(
    `Cannot write ${path} to DynamoDB as an item: expected a struct or a map, got ${describe(value)}`,
  );
}

/** The scalar type of an attribute value, or `null` for lists, maps, booleans and NULL. */
export function scalarTypeOf(value: AttributeValue): ScalarAttributeType | null {
  if ('S' in value) return 'S';
  if ('N' in value) return 'N';
  if ('B' in value) return 'B';
  return null;
}

/** `1`, `1.0` and `1e0` denote the same DynamoDB number: the text without trailing zeros. */
function canonicalNumber(text: string): string {
  let { unscaled, scale } = BigDecimal.parse(text);
  while (unscaled !== 0n && unscaled % 10n === 0n) {
    unscaled /= 10n;
    scale -= 1;
  }
  return unscaled === 0n ? '0' : `${unscaled}e${-scale}`;
}

/** A text that is equal for equal scalar values and different otherwise (for grouping keys). */
export function scalarIdentity(value: AttributeValue): string {
  if ('S' in value) return `S:${value.S}`;
  if ('N' in value) return `N:${canonicalNumber(value.N)}`;
  if ('B' in value)
    return `B:${Array.from(value.B, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  return `?:${JSON.stringify(value)}`;
}
