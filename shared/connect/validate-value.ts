/**
 * Value validation against a schema (Connect's `ConnectSchema.validateValue`). The value
 * representation it enforces is documented in `schema-core.ts`; import from `schema.js`.
 */
import { DataError } from './errors.js';
import {
  isPlainObject,
  isStruct,
  mapEntries,
  type Schema,
  type StructView,
  schemaEquals,
  type Type,
} from './schema-core.js';

const INT_RANGES: Readonly<Partial<Record<Type, readonly [number, number]>>> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-2147483648, 2147483647],
};
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The logical-type names whose values are not the base type's (Connect's LOGICAL_TYPE_CLASSES). */
const LOGICAL_VALUE_CHECKS: Readonly<Record<string, readonly [string, (v: unknown) => boolean]>> = {
  'org.apache.kafka.connect.data.Decimal': [
    'a decimal value { unscaled: bigint, scale: number }',
    isDecimalLike,
  ],
  'org.apache.kafka.connect.data.Date': ['a valid Date', isValidDate],
  'org.apache.kafka.connect.data.Time': ['a valid Date', isValidDate],
  'org.apache.kafka.connect.data.Timestamp': ['a valid Date', isValidDate],
};

function isValidDate(value: unknown): boolean {
  return value instanceof Date && !Number.isNaN(value.getTime());
}

function isDecimalLike(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { unscaled, scale } = value as { unscaled?: unknown; scale?: unknown };
  return typeof unscaled === 'bigint' && Number.isSafeInteger(scale);
}

export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Uint8Array) return 'Uint8Array';
  if (value instanceof Map) return 'Map';
  if (value instanceof Date) return 'Date';
  if (isStruct(value)) return 'Struct';
  if (typeof value === 'string') return `string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return `${typeof value} ${String(value)}`;
  }
  if (typeof value === 'object') return isPlainObject(value) ? 'object' : value.constructor.name;
  return typeof value;
}

function at(path: string): string {
  return path === '' ? '' : ` for field: "${path}"`;
}

function fail(schema: Schema, value: unknown, path: string, expected: string): never {
  throw new DataError(
    `Invalid value for schema with type ${schema.type.toUpperCase()}: ` +
      `expected ${expected}, got ${describeValue(value)}${at(path)}`,
  );
}

/**
 * Checks `value` against `schema` recursively (Connect's `ConnectSchema.validateValue`).
 * Throws a {@link DataError} naming the offending field path (`address.zip`, `items[2]`).
 *
 * @param path - the field path of `value`, used in messages; `''` for a top-level value.
 */
export function validateValue(schema: Schema, value: unknown, path = ''): void {
  if (value === null || value === undefined) {
    if (schema.optional) return;
    throw new DataError(
      `Invalid value: null used for required ${path === '' ? 'value' : `field: "${path}"`}, ` +
        `schema type: ${schema.type.toUpperCase()}`,
    );
  }
  const logical = schema.name === null ? undefined : LOGICAL_VALUE_CHECKS[schema.name];
  if (logical !== undefined) {
    const [expected, check] = logical;
    if (check(value)) return;
    throw new DataError(
      `Invalid value for logical type ${schema.name}: expected ${expected}, ` +
        `got ${describeValue(value)}${at(path)}`,
    );
  }
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32': {
      const [min, max] = INT_RANGES[schema.type] ?? [0, 0];
      if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
        fail(schema, value, path, `an integer in [${min}, ${max}]`);
      }
      return;
    }
    case 'int64':
      if (
        typeof value === 'bigint'
          ? value < INT64_MIN || value > INT64_MAX
          : !Number.isSafeInteger(value)
      ) {
        fail(schema, value, path, 'a safe integer number or a bigint in the int64 range');
      }
      return;
    case 'float32':
    case 'float64':
      if (typeof value !== 'number') fail(schema, value, path, 'a number');
      return;
    case 'boolean':
      if (typeof value !== 'boolean') fail(schema, value, path, 'a boolean');
      return;
    case 'string':
      if (typeof value !== 'string') fail(schema, value, path, 'a string');
      return;
    case 'bytes':
      if (!(value instanceof Uint8Array)) fail(schema, value, path, 'a Uint8Array');
      return;
    case 'array':
      validateArray(schema, value, path);
      return;
    case 'map':
      validateMap(schema, value, path);
      return;
    case 'struct':
      validateStruct(schema, value, path);
      return;
  }
}

function validateArray(schema: Schema, value: unknown, path: string): void {
  if (!Array.isArray(value)) fail(schema, value, path, 'an array');
  const elementSchema = schema.valueSchema;
  if (elementSchema === null) return;
  value.forEach((element, i) => {
    validateValue(elementSchema, element, `${path}[${i}]`);
  });
}

function validateMap(schema: Schema, value: unknown, path: string): void {
  if (!(value instanceof Map) && !isPlainObject(value)) {
    fail(schema, value, path, 'a Map (or a plain object for string keys)');
  }
  const { keySchema, valueSchema } = schema;
  for (const [k, v] of mapEntries(value)) {
    if (keySchema !== null) validateValue(keySchema, k, `${path}.<key>`);
    if (valueSchema !== null) validateValue(valueSchema, v, `${path}[${String(k)}]`);
  }
}

function validateStruct(schema: Schema, value: unknown, path: string): void {
  if (!isStruct(value)) fail(schema, value, path, 'a Struct');
  if (!schemaEquals(value.schema, schema)) {
    throw new DataError(`Struct schemas do not match.${at(path)}`);
  }
  validateStructFields(value, path);
}

/**
 * Checks every field of `struct` (Connect's `Struct.validate`): a field may be unset only when
 * its schema is optional or has a default.
 */
export function validateStructFields(struct: StructView, path = ''): void {
  for (const field of struct.schema.fields) {
    const fieldValue = struct.getWithoutDefault(field.name);
    const fieldPath = path === '' ? field.name : `${path}.${field.name}`;
    if ((fieldValue === null || fieldValue === undefined) && field.schema.defaultValue !== null) {
      continue;
    }
    validateValue(field.schema, fieldValue, fieldPath);
  }
}
