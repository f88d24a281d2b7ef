/**
 * `Struct`: a structured value whose fields are checked against a struct schema (Kafka
 * Connect's `org.apache.kafka.connect.data.Struct`).
 */
import { DataError } from './errors.js';
import {
  type Field,
  isStruct,
  mapEntries,
  type Schema,
  STRUCT_BRAND,
  type StructView,
  type Type,
  validateStructFields,
  validateValue,
  valuesEqual,
} from './schema.js';

/**
 * A value of a `struct` schema. `put` validates each value against its field's schema, `get`
 * returns the field's default when the field is unset, and {@link Struct.validate} checks that
 * every required field without a default is set.
 *
 * A Struct is mutable while it is being filled in. Once it is part of a record, treat it as
 * immutable: a transformation builds a new Struct (see {@link Struct.copy}) instead of
 * changing the record's.
 *
 * @example
 * const value = new Struct(schema).put('id', 42).put('name', 'alice');
 * value.validate();
 */
export class Struct implements StructView {
  readonly [STRUCT_BRAND] = true;
  readonly schema: Schema;
  readonly #values: unknown[];

  /** Throws DataError unless `schema` is a struct schema. */
  constructor(schema: Schema) {
    if (schema.type !== 'struct') {
      throw new DataError(`Not a struct schema: ${String(schema)}`);
    }
    this.schema = schema;
    this.#values = schema.fields.map(() => null);
  }

  #lookup(field: string | Field): Field {
    // A field of this very schema (a converter walking its schema's fields): no look-up by name.
    if (typeof field !== 'string' && this.schema.fields[field.index] === field) return field;
    const name = typeof field === 'string' ? field : field.name;
    const found = this.schema.field(name);
    if (found === null) throw new DataError(`${name} is not a valid field name`);
    return found;
  }

  /** The value of a field, or the field's default value when unset (`null` if neither). */
  get(field: string | Field): unknown {
    const f = this.#lookup(field);
    return this.#values[f.index] ?? f.schema.defaultValue;
  }

  /** The value of a field as stored, without applying its default. */
  getWithoutDefault(field: string | Field): unknown {
    return this.#values[this.#lookup(field).index] ?? null;
  }

  #getChecked(field: string, type: Type): unknown {
    const f = this.#lookup(field);
    if (f.schema.type !== type) {
      throw new DataError(`Field '${field}' is not of type ${type.toUpperCase()}`);
    }
    return this.get(f);
  }

  getInt8(field: string): number | null {
    return this.#getChecked(field, 'int8') as number | null;
  }
  getInt16(field: string): number | null {
    return this.#getChecked(field, 'int16') as number | null;
  }
  getInt32(field: string): number | null {
    return this.#getChecked(field, 'int32') as number | null;
  }
  /** A number or a bigint (see the int64 representation in `schema-core.ts`). */
  getInt64(field: string): number | bigint | null {
    return this.#getChecked(field, 'int64') as number | bigint | null;
  }
  getFloat32(field: string): number | null {
    return this.#getChecked(field, 'float32') as number | null;
  }
  getFloat64(field: string): number | null {
    return this.#getChecked(field, 'float64') as number | null;
  }
  getBoolean(field: string): boolean | null {
    return this.#getChecked(field, 'boolean') as boolean | null;
  }
  getString(field: string): string | null {
    return this.#getChecked(field, 'string') as string | null;
  }
  getBytes(field: string): Uint8Array | null {
    return this.#getChecked(field, 'bytes') as Uint8Array | null;
  }
  getArray(field: string): unknown[] | null {
    return this.#getChecked(field, 'array') as unknown[] | null;
  }
  /** The map as stored: a `Map`, or a plain object for string keys. */
  getMap(field: string): Map<unknown, unknown> | Record<string, unknown> | null {
    return this.#getChecked(field, 'map') as Map<unknown, unknown> | Record<string, unknown> | null;
  }
  getStruct(field: string): Struct | null {
    return this.#getChecked(field, 'struct') as Struct | null;
  }

  /**
   * Sets a field after validating `value` against its schema; returns `this` for chaining.
   * Throws DataError for an unknown field or an invalid value.
   */
  put(field: string | Field, value: unknown): this {
    const f = this.#lookup(field);
    validateValue(f.schema, value, f.name);
    this.#values[f.index] = value ?? null;
    return this;
  }

  /** Throws DataError when a required field without a default is unset or a value is invalid. */
  validate(): void {
    validateStructFields(this);
  }

  /** Deep equality: same schema and equal field values. */
  equals(other: unknown): boolean {
    return isStruct(other) && valuesEqual(this, other);
  }

  /** A deep copy: nested structs, arrays, maps, bytes and dates are copied too. */
  copy(): Struct {
    const out = new Struct(this.schema);
    this.schema.fields.forEach((f) => {
      out.#values[f.index] = copyValue(this.#values[f.index]);
    });
    return out;
  }

  toString(): string {
    const parts = this.schema.fields.map((f) => `${f.name}=${formatValue(this.#values[f.index])}`);
    return `Struct{${parts.join(',')}}`;
  }
}

/** Deep-copies a Connect value (structs, arrays, maps, bytes, dates); primitives as is. */
export function copyValue<T>(value: T): T {
  if (value instanceof Struct) return value.copy() as T;
  if (Array.isArray(value)) return value.map(copyValue) as T;
  if (value instanceof Uint8Array) return value.slice() as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (value instanceof Map) {
    return new Map([...value].map(([k, v]) => [copyValue(k), copyValue(v)])) as T;
  }
  if (
    typeof value === 'object' &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    return Object.fromEntries(mapEntries(value).map(([k, v]) => [k, copyValue(v)])) as T;
  }
  return value;
}

function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof Uint8Array) return `Uint8Array(${value.length})`;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `[${value.map(formatValue).join(',')}]`;
  if (value instanceof Map) {
    return `{${[...value].map(([k, v]) => `${formatValue(k)}=${formatValue(v)}`).join(',')}}`;
  }
  return String(value);
}
