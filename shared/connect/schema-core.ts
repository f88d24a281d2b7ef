/**
 * The Connect data model (Kafka Connect's `org.apache.kafka.connect.data`): schema types,
 * the immutable {@link Schema} and deep equality. `validate-value.ts` adds validation and
 * `schema.ts` the builder; `schema.ts` re-exports all of it: import from `schema.js`.
 *
 * Value representation, by schema type:
 * - `int8`, `int16`, `int32`: `number`, an integer in the type's range.
 * - `int64`: `number` (a safe integer) or `bigint` (within the signed 64-bit range). Both are
 *   accepted everywhere and compare equal when numerically equal; producers of data
 *   (converters) return `number` when the value is a safe integer and `bigint` otherwise.
 *   Consumers must handle both (`typeof v === 'bigint'`).
 * - `float32`, `float64`: `number` (NaN and infinities allowed).
 * - `boolean`: `boolean`; `string`: `string`; `bytes`: `Uint8Array`.
 * - `array`: an array (`unknown[]`).
 * - `map`: a `Map<unknown, unknown>`, the canonical form (required for non-string keys). A plain
 *   object is also accepted for a map whose key schema is `string`. Iterate either form with
 *   {@link mapEntries}.
 * - `struct`: a `Struct` (see `struct.ts`) whose schema equals the schema.
 * - Logical types (see `logical-types.ts`): a `Decimal` schema takes a
 *   `{ unscaled: bigint, scale: number }` value (e.g. a `BigDecimal`); `Date`, `Time` and
 *   `Timestamp` take a valid JS `Date`.
 *
 * `null` is valid only for an optional schema; `undefined` is treated as `null`.
 */
import { DataError } from './errors.js';

/** The schema types, named like Connect's JSON schema names. */
export type Type =
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'float32'
  | 'float64'
  | 'boolean'
  | 'string'
  | 'bytes'
  | 'array'
  | 'map'
  | 'struct';

/** Every {@link Type}, in Connect's declaration order. */
export const SCHEMA_TYPES: readonly Type[] = Object.freeze([
  'int8',
  'int16',
  'int32',
  'int64',
  'float32',
  'float64',
  'boolean',
  'string',
  'bytes',
  'array',
  'map',
  'struct',
] as const);

/** True when `type` is a primitive (not array, map or struct). */
export function isPrimitiveType(type: Type): boolean {
  return type !== 'array' && type !== 'map' && type !== 'struct';
}

/** A field of a struct schema: its name, its position in the struct and its schema. */
export interface Field {
  readonly name: string;
  readonly index: number;
  readonly schema: Schema;
}

/** An immutable schema. Build one with {@link SchemaBuilder} or use {@link Schemas}. */
export interface Schema {
  readonly type: Type;
  readonly optional: boolean;
  /** The default value, or `null` when there is none (as in Connect, a null default is none). */
  readonly defaultValue: unknown;
  /** Logical or record name, e.g. `org.apache.kafka.connect.data.Decimal`; `null` if unnamed. */
  readonly name: string | null;
  readonly version: number | null;
  readonly doc: string | null;
  /** Schema parameters (e.g. a Decimal's `scale`); empty when there are none. */
  readonly parameters: Readonly<Record<string, string>>;
  /** The key schema of a `map`; `null` for other types. */
  readonly keySchema: Schema | null;
  /** The element schema of an `array` or the value schema of a `map`; `null` for other types. */
  readonly valueSchema: Schema | null;
  /** The fields of a `struct`, in order; empty for other types. */
  readonly fields: readonly Field[];
  /** The struct field named `name`, or `null`. Throws DataError on a non-struct schema. */
  field(name: string): Field | null;
}

/** A schema and a value, as converters produce them; `schema` is `null` when schemaless. */
export interface SchemaAndValue {
  readonly schema: Schema | null;
  readonly value: unknown;
}

/** The schemaless null value (Connect's `SchemaAndValue.NULL`). */
export const NULL_SCHEMA_AND_VALUE: SchemaAndValue = Object.freeze({ schema: null, value: null });

/** A struct value as the validator sees it; implemented by `Struct`. */
export interface StructView {
  readonly schema: Schema;
  /** The value stored in the field, without applying its default. */
  getWithoutDefault(fieldName: string): unknown;
}

/** Brand carried by `Struct` instances, so this module can recognise them without importing. */
export const STRUCT_BRAND: unique symbol = Symbol.for('serverless-connect.Struct');

/** True when `value` is a `Struct`. */
export function isStruct(value: unknown): value is StructView {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { [STRUCT_BRAND]?: unknown })[STRUCT_BRAND] === true
  );
}

/** Everything a {@link ConnectSchema} holds; {@link SchemaBuilder} fills it in. */
export interface SchemaInit {
  readonly type: Type;
  readonly optional: boolean;
  readonly defaultValue: unknown;
  readonly name: string | null;
  readonly version: number | null;
  readonly doc: string | null;
  readonly parameters: Readonly<Record<string, string>>;
  readonly keySchema: Schema | null;
  readonly valueSchema: Schema | null;
  readonly fields: readonly Field[];
}

/** The immutable {@link Schema}. Prefer `SchemaBuilder`, which checks what it builds. */
export class ConnectSchema implements Schema {
  readonly type: Type;
  readonly optional: boolean;
  readonly defaultValue: unknown;
  readonly name: string | null;
  readonly version: number | null;
  readonly doc: string | null;
  readonly parameters: Readonly<Record<string, string>>;
  readonly keySchema: Schema | null;
  readonly valueSchema: Schema | null;
  readonly fields: readonly Field[];
  readonly #byName: ReadonlyMap<string, Field>;

  constructor(init: SchemaInit) {
    this.type = init.type;
    this.optional = init.optional;
    this.defaultValue = init.defaultValue;
    this.name = init.name;
    this.version = init.version;
    this.doc = init.doc;
    this.parameters = Object.freeze({ ...init.parameters });
    this.keySchema = init.keySchema;
    this.valueSchema = init.valueSchema;
    this.fields = Object.freeze(init.fields.map((f) => Object.freeze({ ...f })));
    this.#byName = new Map(this.fields.map((f) => [f.name, f]));
    Object.freeze(this);
  }

  field(name: string): Field | null {
    if (this.type !== 'struct') {
      throw new DataError(`Cannot look up fields on non-struct type ${this.type.toUpperCase()}`);
    }
    return this.#byName.get(name) ?? null;
  }

  toString(): string {
    return `Schema{${this.name === null ? '' : `${this.name}:`}${this.type.toUpperCase()}}`;
  }
}

/** True for `{}`-style objects (prototype `Object.prototype` or `null`). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A short description of a value's kind for error messages. */
/**
 * Iterates a map value in either representation (a `Map`, or a plain object for string keys).
 * Throws DataError when `value` is neither.
 */
export function mapEntries(value: unknown): [unknown, unknown][] {
  if (value instanceof Map) return [...value.entries()];
  if (isPlainObject(value)) return Object.entries(value);
  throw new DataError(`Expected a map value (Map or plain object), got ${typeof value}`);
}

/**
 * Deep schema equality (Connect's `ConnectSchema.equals`): type, optionality, default value,
 * name, version, doc, parameters, and key/value/field schemas. `null` equals only `null`.
 */
export function schemaEquals(a: Schema | null, b: Schema | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (
    a.type !== b.type ||
    a.optional !== b.optional ||
    a.name !== b.name ||
    a.version !== b.version ||
    a.doc !== b.doc ||
    !recordsEqual(a.parameters, b.parameters) ||
    a.fields.length !== b.fields.length ||
    !schemaEquals(a.keySchema, b.keySchema) ||
    !schemaEquals(a.valueSchema, b.valueSchema) ||
    !valuesEqual(a.defaultValue, b.defaultValue)
  ) {
    return false;
  }
  return a.fields.every((fa, i) => {
    const fb = b.fields[i];
    return (
      fb !== undefined &&
      fa.name === fb.name &&
      fa.index === fb.index &&
      schemaEquals(fa.schema, fb.schema)
    );
  });
}

function recordsEqual(
  a: Readonly<Record<string, string>>,
  b: Readonly<Record<string, string>>,
): boolean {
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k])
  );
}

/**
 * Deep value equality for Connect data: numbers and bigints compare numerically (so an int64
 * `5` equals `5n`), bytes by content, Dates by time, arrays element-wise, maps by entries
 * (a `Map` equals a plain object with the same string keys), structs by schema and fields,
 * and other plain objects (e.g. decimal values) by their own enumerable properties.
 */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined) return b === null;
  if (b === undefined) return a === null;
  if (a === null || b === null) return false;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a === 'bigint' || typeof b === 'bigint') return numericEqual(a, b);
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array) return bytesEqual(a, b);
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime());
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((x, i) => valuesEqual(x, b[i]))
    );
  }
  if (isStruct(a) || isStruct(b)) return isStruct(a) && isStruct(b) && structsEqual(a, b);
  if (a instanceof Map || b instanceof Map) return mapsEqual(a, b);
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keys = Object.keys(a);
  const other = b as Record<string, unknown>;
  return (
    keys.length === Object.keys(b).length &&
    keys.every(
      (k) => Object.hasOwn(other, k) && valuesEqual((a as Record<string, unknown>)[k], other[k]),
    )
  );
}

function numericEqual(a: unknown, b: unknown): boolean {
  const toBig = (v: unknown): bigint | null =>
    typeof v === 'bigint' ? v : Number.isInteger(v) ? BigInt(v as number) : null;
  const x = toBig(a);
  const y = toBig(b);
  return x !== null && y !== null && x === y;
}

function bytesEqual(a: object, b: object): boolean {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.length !== b.length)
    return false;
  return a.every((byte, i) => byte === b[i]);
}

function structsEqual(a: StructView, b: StructView): boolean {
  return (
    schemaEquals(a.schema, b.schema) &&
    a.schema.fields.every((f) =>
      valuesEqual(a.getWithoutDefault(f.name), b.getWithoutDefault(f.name)),
    )
  );
}

function mapsEqual(a: object, b: object): boolean {
  if (!(a instanceof Map || isPlainObject(a)) || !(b instanceof Map || isPlainObject(b)))
    return false;
  const left = mapEntries(a);
  const right = mapEntries(b);
  if (left.length !== right.length) return false;
  const rightByKey = new Map(right);
  return left.every(([k, v]) => {
    if (rightByKey.has(k)) return valuesEqual(v, rightByKey.get(k));
    // Keys that are objects (structs, arrays) are compared deeply.
    return right.some(([rk, rv]) => valuesEqual(k, rk) && valuesEqual(v, rv));
  });
}
