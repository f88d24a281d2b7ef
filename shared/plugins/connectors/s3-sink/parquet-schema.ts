/**
 * The Parquet schema of an Avro schema, and the values of its records, as parquet-avro's
 * `AvroSchemaConverter` and `AvroWriteSupport` make them (the mapping Confluent's ParquetFormat
 * goes through): records become groups, `[null, T]` an OPTIONAL T, arrays LIST groups in the
 * standard three-level layout (`repeated group list { element }`), maps MAP groups (`repeated
 * group key_value { required binary key (STRING); value }`), other unions groups of OPTIONAL
 * `member0`, `member1`, …; decimal becomes DECIMAL(precision, scale), date DATE, time-millis
 * TIME(MILLIS), timestamp-millis TIMESTAMP(MILLIS), both adjusted to UTC; strings are STRING,
 * enums ENUM, fixed FIXED_LEN_BYTE_ARRAY.
 *
 * Values are converted from what avsc decodes (wrapped unions, Buffers, numbers or bigints for
 * longs) to what hyparquet-writer takes (objects for groups, arrays for lists, `{key, value}`
 * entries for maps, bigints for INT64 and DECIMAL).
 */
import type { SchemaElement } from 'hyparquet-writer';
import { DataError } from 'serverless-connect/connect';

const PRIMITIVES = new Set([
  'null',
  'boolean',
  'int',
  'long',
  'float',
  'double',
  'bytes',
  'string',
]);

export type Json = unknown;
export type JsonObject = { readonly [key: string]: Json };
/** One Avro value (as avsc decodes it with wrapped unions) → the value hyparquet-writer takes. */
export type Convert = (value: unknown) => unknown;

export interface Converted {
  /** The Parquet schema elements of the field, depth first (the field's own first). */
  readonly elements: SchemaElement[];
  readonly convert: Convert;
}

export function isObject(json: Json): json is JsonObject {
  return typeof json === 'object' && json !== null && !Array.isArray(json);
}

/** Resolves named types (records, enums, fixed) by full name, in the schema's order. */
export class Names {
  readonly #types = new Map<string, JsonObject>();

  fullName(name: string, namespace: string | null): string {
    return name.includes('.') || namespace === null || namespace === ''
      ? name
      : `${namespace}.${name}`;
  }

  define(schema: JsonObject, namespace: string | null): string | null {
    const name = String(schema.name);
    const ns = typeof schema.namespace === 'string' ? schema.namespace : namespace;
    const full = this.fullName(name, ns);
    this.#types.set(full, schema);
    return full.includes('.') ? full.slice(0, full.lastIndexOf('.')) : null;
  }

  resolve(name: string, namespace: string | null): JsonObject {
    const found = this.#types.get(this.fullName(name, namespace)) ?? this.#types.get(name);
    if (found === undefined) throw new DataError(`Unknown Avro type ${name}`);
    return found;
  }
}

/** The unscaled value of big-endian two's-complement bytes. */
function unscaled(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  const negative = bytes.length > 0 && (bytes[0] as number) >= 0x80;
  return negative ? n - (1n << BigInt(bytes.length * 8)) : n;
}

/** The branch value of a wrapped union value (`{branch: value}`), or null. */
function unwrap(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  for (const key in value as object) return (value as Record<string, unknown>)[key];
  return null;
}

type Repetition = 'REQUIRED' | 'OPTIONAL';

export class SchemaConverter {
  readonly #names = new Names();

  field(name: string, schema: Json, repetition: Repetition, namespace: string | null): Converted {
    if (Array.isArray(schema)) return this.#union(name, schema, repetition, namespace);
    if (typeof schema === 'string') {
      if (PRIMITIVES.has(schema)) return this.#primitive(name, { type: schema }, repetition);
      return this.#named(
        name,
        this.#names.resolve(schema, namespace),
        repetition,
        namespace,
        false,
      );
    }
    if (!isObject(schema)) throw new DataError(`Invalid Avro schema ${JSON.stringify(schema)}`);
    const type = schema.type;
    if (typeof type === 'string' && PRIMITIVES.has(type))
      return this.#primitive(name, schema, repetition);
    if (type === 'array') return this.#list(name, schema.items, repetition, namespace);
    if (type === 'map') return this.#map(name, schema.values, repetition, namespace);
    if (type === 'record' || type === 'enum' || type === 'fixed') {
      return this.#named(name, schema, repetition, namespace, true);
    }
    // {"type": <schema>}: a schema wrapped in an object.
    return this.field(name, type, repetition, namespace);
  }

  #primitive(name: string, schema: JsonObject, repetition: Repetition): Converted {
    const logical = schema.logicalType;
    const leaf = (element: Omit<SchemaElement, 'name' | 'repetition_type'>, convert: Convert) => ({
      elements: [{ name, repetition_type: repetition, ...element }],
      convert,
    });
    const same: Convert = (v) => v;
    switch (schema.type) {
      case 'null':
        throw new DataError(`Avro field ${name} of type null cannot be written to Parquet`);
      case 'boolean':
        return leaf({ type: 'BOOLEAN' }, same);
      case 'int':
        if (logical === 'date') {
          return leaf(
            { type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } },
            same,
          );
        }
        if (logical === 'time-millis') {
          return leaf(
            {
              type: 'INT32',
              converted_type: 'TIME_MILLIS',
              logical_type: { type: 'TIME', isAdjustedToUTC: true, unit: 'MILLIS' },
            },
            same,
          );
        }
        return leaf({ type: 'INT32' }, same);
      case 'long': {
        const toBig: Convert = (v) => (v === null ? null : BigInt(v as number | bigint));
        if (logical === 'timestamp-millis') {
          return leaf(
            {
              type: 'INT64',
              converted_type: 'TIMESTAMP_MILLIS',
              logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
            },
            toBig,
          );
        }
        return leaf({ type: 'INT64' }, toBig);
      }
      case 'float':
        return leaf({ type: 'FLOAT' }, same);
      case 'double':
        return leaf({ type: 'DOUBLE' }, same);
      case 'string':
        return leaf(
          { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
          same,
        );
      default: {
        if (logical === 'decimal') return leaf(decimalOf(schema), decimalValue);
        return leaf({ type: 'BYTE_ARRAY' }, same);
      }
    }
  }

  #named(
    name: string,
    schema: JsonObject,
    repetition: Repetition,
    namespace: string | null,
    define: boolean,
  ): Converted {
    const inner = define ? this.#names.define(schema, namespace) : namespaceOf(schema, namespace);
    if (schema.type === 'enum') {
      const encoder = new TextEncoder();
      return {
        elements: [
          {
            name,
            repetition_type: repetition,
            type: 'BYTE_ARRAY',
            converted_type: 'ENUM',
            logical_type: { type: 'ENUM' },
          },
        ],
        convert: (v) => (v === null ? null : encoder.encode(String(v))),
      };
    }
    if (schema.type === 'fixed') {
      const size = Number(schema.size);
      const base = { name, repetition_type: repetition, type_length: size } as const;
      if (schema.logicalType === 'decimal') {
        return {
          elements: [{ ...base, ...decimalOf(schema), type: 'FIXED_LEN_BYTE_ARRAY' }],
          convert: decimalValue,
        };
      }
      return { elements: [{ ...base, type: 'FIXED_LEN_BYTE_ARRAY' }], convert: (v) => v };
    }
    return this.#record(name, schema, repetition, inner);
  }

  #record(name: string, schema: JsonObject, repetition: Repetition, namespace: string | null) {
    const fields = Array.isArray(schema.fields) ? (schema.fields as JsonObject[]) : [];
    if (fields.length === 0) {
      throw new DataError(`Avro record ${String(schema.name)} has no fields: Parquet needs one`);
    }
    const children = fields.map((f) => ({
      name: String(f.name),
      ...this.field(String(f.name), f.type, 'REQUIRED', namespace),
    }));
    return {
      elements: [
        { name, repetition_type: repetition, num_children: children.length },
        ...children.flatMap((c) => c.elements),
      ],
      convert: (v: unknown) => {
        if (v === null || v === undefined) return null;
        const record = v as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const c of children) out[c.name] = c.convert(record[c.name] ?? null);
        return out;
      },
    };
  }

  #list(name: string, items: Json, repetition: Repetition, namespace: string | null): Converted {
    const element = this.#nullable('element', items, namespace);
    return {
      elements: [
        {
          name,
          repetition_type: repetition,
          num_children: 1,
          converted_type: 'LIST',
          logical_type: { type: 'LIST' },
        },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        ...element.elements,
      ],
      convert: (v) => (v === null ? null : (v as unknown[]).map(element.convert)),
    };
  }

  #map(name: string, values: Json, repetition: Repetition, namespace: string | null): Converted {
    const value = this.#nullable('value', values, namespace);
    return {
      elements: [
        {
          name,
          repetition_type: repetition,
          num_children: 1,
          converted_type: 'MAP',
          logical_type: { type: 'MAP' },
        },
        { name: 'key_value', repetition_type: 'REPEATED', num_children: 2 },
        {
          name: 'key',
          repetition_type: 'REQUIRED',
          type: 'BYTE_ARRAY',
          converted_type: 'UTF8',
          logical_type: { type: 'STRING' },
        },
        ...value.elements,
      ],
      convert: (v) =>
        v === null
          ? null
          : Object.entries(v as Record<string, unknown>).map(([key, item]) => ({
              key,
              value: value.convert(item),
            })),
    };
  }

  /** A list element or map value: OPTIONAL when its schema is `[null, T]`. */
  #nullable(name: string, schema: Json, namespace: string | null): Converted {
    if (Array.isArray(schema)) return this.#union(name, schema, 'REQUIRED', namespace);
    return this.field(name, schema, 'REQUIRED', namespace);
  }

  #union(name: string, branches: Json[], repetition: Repetition, namespace: string | null) {
    const nonNull = branches.filter((b) => b !== 'null');
    const optional: Repetition = nonNull.length < branches.length ? 'OPTIONAL' : repetition;
    if (nonNull.length === 0) throw new DataError(`Avro field ${name} is only null`);
    if (nonNull.length === 1) {
      const only = this.field(name, nonNull[0], optional, namespace);
      return { elements: only.elements, convert: (v: unknown) => only.convert(unwrap(v)) };
    }
    const members = nonNull.map((b, i) => ({
      name: `member${i}`,
      branch: branchName(b, namespace, this.#names),
      ...this.field(`member${i}`, b, 'OPTIONAL', namespace),
    }));
    return {
      elements: [
        { name, repetition_type: optional, num_children: members.length },
        ...members.flatMap((m) => m.elements),
      ],
      convert: (v: unknown) => {
        if (v === null || v === undefined) return null;
        const [branch, value] = Object.entries(v as Record<string, unknown>)[0] ?? [];
        const out: Record<string, unknown> = {};
        for (const m of members) out[m.name] = m.branch === branch ? m.convert(value) : null;
        return out;
      },
    };
  }
}

function namespaceOf(schema: JsonObject, namespace: string | null): string | null {
  const name = String(schema.name);
  if (name.includes('.')) return name.slice(0, name.lastIndexOf('.'));
  return typeof schema.namespace === 'string' ? schema.namespace : namespace;
}

/** The name avsc gives a union branch of `schema` (its type name, or a named type's full name). */
function branchName(schema: Json, namespace: string | null, names: Names): string {
  if (typeof schema === 'string') {
    return PRIMITIVES.has(schema) ? schema : names.fullName(schema, namespace);
  }
  if (!isObject(schema)) return String(schema);
  const type = schema.type;
  if (type === 'record' || type === 'enum' || type === 'fixed') {
    const ns = typeof schema.namespace === 'string' ? schema.namespace : namespace;
    return names.fullName(String(schema.name), ns);
  }
  return typeof type === 'string' ? type : branchName(type, namespace, names);
}

function decimalOf(schema: JsonObject): Omit<SchemaElement, 'name'> {
  const precision = Number(schema.precision);
  const scale = Number(schema.scale ?? 0);
  return {
    type: 'BYTE_ARRAY',
    converted_type: 'DECIMAL',
    scale,
    precision,
    logical_type: { type: 'DECIMAL', precision, scale },
  };
}

const decimalValue: Convert = (v) => (v === null ? null : unscaled(v as Uint8Array));
