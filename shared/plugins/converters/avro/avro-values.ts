/**
 * Connect values ↔ the values avsc encodes (Confluent's `AvroData.fromConnectData` /
 * `toConnectData`), compiled once per schema into a tree of functions that walk a Connect
 * schema and its avsc type side by side. avsc's types are compiled with wrapped unions (`null`
 * or `{branch: value}`), bytes as Buffers, and int64 as a number or a bigint (`avro-codec.ts`).
 */

import type { Type, types } from 'avsc';
import {
  DataError,
  type Field,
  fromLogicalValue,
  isLogicalSchema,
  isStruct,
  LogicalDecimal,
  mapEntries,
  type Schema,
  Struct,
  schemaEquals,
  toLogicalValue,
} from 'serverless-connect/connect';
import { CONNECT_AVRO_FIXED_SIZE_PROP, isUnionSchema } from './avro-data-options.js';

/** One value of one schema, converted. */
export type Convert = (value: unknown) => unknown;

type Avsc = Type & {
  readonly types?: readonly Type[];
  readonly fields?: readonly types.Field[];
  readonly itemsType?: Type;
  readonly valuesType?: Type;
  readonly symbols?: readonly string[];
  readonly recordConstructor?: new (...fields: unknown[]) => object;
};

function nonNullBranches(type: Avsc): Type[] {
  return (type.types ?? []).filter((t) => t.typeName !== 'null');
}

/** The DataError of a value of the wrong kind for `schema`. */
export function invalidType(schema: Schema, value: unknown): DataError {
  const kind = value instanceof Uint8Array ? 'Uint8Array' : typeof value;
  return new DataError(`Invalid type for ${schema.type.toUpperCase()}: ${kind}`);
}

/** The DataError of a null for a schema that is not optional. */
export function nullFor(schema: Schema): DataError {
  return new DataError(`Found null value for non-optional schema ${String(schema)}`);
}

/** Sign-extends big-endian two's-complement bytes to `size` (Confluent's `padToFixedSize`). */
function padToFixedSize(bytes: Uint8Array, size: number): Uint8Array {
  if (bytes.length === size) return bytes;
  if (bytes.length > size) {
    throw new DataError(
      `Unscaled value byte array length ${bytes.length} is greater than fixed size ${size}`,
    );
  }
  const negative = bytes.length > 0 && (bytes[0] as number) >= 0x80;
  const padded = new Uint8Array(size).fill(negative ? 0xff : 0);
  padded.set(bytes, size - bytes.length);
  return padded;
}

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The function giving the avsc value of a Connect value of `schema` (Avro type `type`). */
export function compileToAvro(schema: Schema, type: Type): Convert {
  const avsc = type as Avsc;
  if (avsc.typeName === 'union:wrapped') return toUnion(schema, avsc);
  const convert = toAvroValue(schema, avsc);
  const logical = isLogicalSchema(schema);
  return (value) => {
    if (value === null || value === undefined) throw nullFor(schema);
    return convert(logical ? fromLogicalValue(schema, value) : value);
  };
}

function toAvroValue(schema: Schema, type: Avsc): Convert {
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'float32':
    case 'float64':
      return (v) => {
        if (typeof v !== 'number') throw invalidType(schema, v);
        return v;
      };
    case 'int64':
      return (v) => {
        if (typeof v !== 'number' && typeof v !== 'bigint') throw invalidType(schema, v);
        return v;
      };
    case 'boolean':
      return (v) => {
        if (typeof v !== 'boolean') throw invalidType(schema, v);
        return v;
      };
    case 'string': {
      const symbols = type.symbols;
      return (v) => {
        if (typeof v !== 'string') throw invalidType(schema, v);
        if (symbols !== undefined && !symbols.includes(v)) {
          throw new DataError(`${JSON.stringify(v)} is not a symbol of enum ${type.name}`);
        }
        return v;
      };
    }
    case 'bytes': {
      const size = schema.parameters[CONNECT_AVRO_FIXED_SIZE_PROP];
      const pad = size !== undefined && schema.name === LogicalDecimal.LOGICAL_NAME;
      return (v) => {
        if (!(v instanceof Uint8Array)) throw invalidType(schema, v);
        return bufferOf(pad ? padToFixedSize(v, Number(size)) : v);
      };
    }
    case 'array': {
      const item = compileToAvro(schema.valueSchema as Schema, type.itemsType as Type);
      return (v) => {
        if (!Array.isArray(v)) throw invalidType(schema, v);
        return v.map(item);
      };
    }
    case 'map':
      return toMap(schema, type);
    case 'struct':
      return toRecord(schema, type);
  }
}

function toUnion(schema: Schema, type: Avsc): Convert {
  const branches = nonNullBranches(type);
  if (isUnionSchema(schema)) {
    const members = schema.fields.map((field, i) => {
      const branch = branches[i] as Type;
      return [
        field.name,
        branch.branchName as string,
        compileToAvro(field.schema, branch),
      ] as const;
    });
    return (value) => {
      if (value !== null && value !== undefined) {
        if (!isStruct(value)) throw invalidType(schema, value);
        const struct = value as Struct;
        for (const [name, branch, convert] of members) {
          const member = struct.get(name);
          if (member !== null && member !== undefined) return { [branch]: convert(member) };
        }
      }
      if (!schema.optional) throw new DataError('Found null value for non-optional union');
      return null;
    };
  }
  if (branches.length !== 1) throw new DataError(`Unexpected Avro union for ${String(schema)}`);
  const branch = branches[0] as Type;
  const name = branch.branchName as string;
  const convert = compileToAvro(schema, branch);
  return (value) => {
    if (value === null || value === undefined) {
      if (!schema.optional) throw nullFor(schema);
      return null;
    }
    return { [name]: convert(value) };
  };
}

function toMap(schema: Schema, type: Avsc): Convert {
  const keySchema = schema.keySchema as Schema;
  if (type.typeName === 'map') {
    const convert = compileToAvro(schema.valueSchema as Schema, type.valuesType as Type);
    return (value) => {
      const out: Record<string, unknown> = Object.create(null);
      for (const [k, v] of mapEntries(value)) {
        if (typeof k !== 'string') throw invalidType(keySchema, k);
        out[k] = convert(v);
      }
      return out;
    };
  }
  const [keyField, valueField] = (type.itemsType as Avsc).fields as readonly types.Field[];
  const key = compileToAvro(keySchema, (keyField as types.Field).type);
  const val = compileToAvro(schema.valueSchema as Schema, (valueField as types.Field).type);
  return (value) => mapEntries(value).map(([k, v]) => ({ key: key(k), value: val(v) }));
}

function toRecord(schema: Schema, type: Avsc): Convert {
  const avroFields = type.fields as readonly types.Field[];
  const fields = schema.fields;
  const converts = fields.map((field, i) =>
    compileToAvro(field.schema, (avroFields[i] as types.Field).type),
  );
  const Record = type.recordConstructor as new (...values: unknown[]) => object;
  return (value) => {
    if (!isStruct(value)) throw invalidType(schema, value);
    const struct = value as Struct;
    if (struct.schema !== schema && !schemaEquals(struct.schema, schema)) {
      throw new DataError('Mismatching struct schema');
    }
    const values = new Array<unknown>(fields.length);
    for (let i = 0; i < fields.length; i++) {
      const convert = converts[i] as Convert;
      values[i] = convert(struct.get(fields[i] as Field));
    }
    return new Record(...values);
  };
}

/** The function giving the Connect value of `schema` for a value avsc read with `type`. */
export function compileToConnect(schema: Schema, type: Type): Convert {
  const avsc = type as Avsc;
  if (avsc.typeName === 'union:wrapped') return fromUnion(schema, avsc);
  const convert = toConnectRaw(schema, avsc);
  if (isLogicalSchema(schema)) {
    return (v) => (v === null || v === undefined ? null : toLogicalValue(schema, convert(v)));
  }
  if (convert === identity) return (v) => v ?? null;
  return (v) => (v === null || v === undefined ? null : convert(v));
}

const identity: Convert = (v) => v;

function toConnectRaw(schema: Schema, type: Avsc): Convert {
  switch (schema.type) {
    case 'bytes':
      return (v) => Uint8Array.from(v as Uint8Array);
    case 'array': {
      const item = compileToConnect(schema.valueSchema as Schema, type.itemsType as Type);
      return (v) => (v as unknown[]).map(item);
    }
    case 'map':
      return fromMap(schema, type);
    case 'struct': {
      // Parallel arrays and an indexed loop: this runs for every field of every record read.
      const avroFields = type.fields as readonly types.Field[];
      const fields = schema.fields;
      const avroNames = avroFields.map((field) => field.name);
      const converts = fields.map((field, i) =>
        compileToConnect(field.schema, (avroFields[i] as types.Field).type),
      );
      return (v) => {
        const struct = new Struct(schema);
        const read = v as Record<string, unknown>;
        for (let i = 0; i < fields.length; i++) {
          const convert = converts[i] as Convert;
          struct.put(fields[i] as Field, convert(read[avroNames[i] as string]));
        }
        return struct;
      };
    }
    default:
      return identity;
  }
}

function fromUnion(schema: Schema, type: Avsc): Convert {
  const branches = nonNullBranches(type);
  const byBranch = new Map<string, Convert>();
  branches.forEach((branch, i) => {
    const name = branch.branchName as string;
    if (!isUnionSchema(schema)) {
      byBranch.set(name, compileToConnect(schema, branch));
      return;
    }
    const field = schema.fields[i];
    if (field === undefined) throw new DataError('Did not find matching union field for data');
    const convert = compileToConnect(field.schema, branch);
    byBranch.set(name, (member) => new Struct(schema).put(field.name, convert(member)));
  });
  const only = byBranch.size === 1 ? [...byBranch][0] : undefined;
  if (only !== undefined) {
    // An optional value (a union of null and one branch): no look-up by branch name.
    const [name, convert] = only;
    return (value) => {
      if (value === null || value === undefined) return null;
      const member = (value as Record<string, unknown>)[name];
      if (member === undefined) throw new DataError(`Unknown union branch in ${String(value)}`);
      return convert(member);
    };
  }
  return (value) => {
    if (value === null || value === undefined) return null;
    for (const name in value as Record<string, unknown>) {
      const convert = byBranch.get(name);
      if (convert === undefined) throw new DataError(`Unknown union branch ${name}`);
      return convert((value as Record<string, unknown>)[name]);
    }
    return null;
  };
}

function fromMap(schema: Schema, type: Avsc): Convert {
  const keySchema = schema.keySchema as Schema;
  const valueSchema = schema.valueSchema as Schema;
  if (type.typeName === 'map') {
    const convert = compileToConnect(valueSchema, type.valuesType as Type);
    return (value) =>
      new Map(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, convert(v)]));
  }
  const [keyField, valueField] = (type.itemsType as Avsc).fields as readonly types.Field[];
  const key = compileToConnect(keySchema, (keyField as types.Field).type);
  const val = compileToConnect(valueSchema, (valueField as types.Field).type);
  return (value) =>
    new Map((value as { key: unknown; value: unknown }[]).map((e) => [key(e.key), val(e.value)]));
}
