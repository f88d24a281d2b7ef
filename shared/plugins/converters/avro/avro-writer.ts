/**
 * Writes Connect values straight into avsc's `Tap`, without building the values avsc encodes
 * first: a record's fields go one after the other from the Struct, a union writes its branch
 * index and then its member. What is not a record or a union is converted as `avro-values.ts`
 * does and written by its avsc type. The bytes are avsc's (the vectors of Apache Avro's Java
 * library check them); this only spares a record object and a `{branch: value}` object per union
 * for every value written.
 */
import type { Type, types } from 'avsc';
import type { Tap } from 'avsc/lib/utils.js';
import {
  DataError,
  type Field,
  isLogicalSchema,
  isStruct,
  type Schema,
  type Struct,
  schemaEquals,
} from 'serverless-connect/connect';
import { isUnionSchema } from './avro-data-options.js';
import { compileToAvro, invalidType, nullFor } from './avro-values.js';

/** Writes one value of one schema. */
export type Write = (tap: Tap, value: unknown) => void;

type Avsc = Type & {
  readonly types?: readonly Type[];
  readonly fields?: readonly types.Field[];
  /** avsc's own writer of a value it takes (private to avsc 5.7.9, pinned). */
  readonly _write: (tap: Tap, value: unknown) => void;
};

/** The function writing values of `schema` (Avro type `type`) into a tap. */
export function compileWriter(schema: Schema, type: Type): Write {
  const avsc = type as Avsc;
  if (avsc.typeName === 'union:wrapped') return unionWriter(schema, avsc);
  if (avsc.typeName === 'record' && schema.type === 'struct') return recordWriter(schema, avsc);
  const primitive = isLogicalSchema(schema) ? undefined : primitiveWriter(schema, avsc.typeName);
  if (primitive !== undefined) return primitive;
  const convert = compileToAvro(schema, type);
  return (tap, value) => avsc._write(tap, convert(value));
}

/** Strings and floating-point numbers, the most common fields, written by the tap itself. */
function primitiveWriter(schema: Schema, typeName: string): Write | undefined {
  const checked =
    (kind: 'string' | 'number', write: (tap: Tap, value: never) => void): Write =>
    (tap, value) => {
      if (typeof value !== kind) {
        throw value === null || value === undefined ? nullFor(schema) : invalidType(schema, value);
      }
      write(tap, value as never);
    };
  if (schema.type === 'string' && typeName === 'string') {
    return checked('string', (tap, value: string) => tap.writeString(value));
  }
  if (schema.type === 'float64' && typeName === 'double') {
    return checked('number', (tap, value: number) => tap.writeDouble(value));
  }
  if (schema.type === 'float32' && typeName === 'float') {
    return checked('number', (tap, value: number) => tap.writeFloat(value));
  }
  return undefined;
}

function recordWriter(schema: Schema, type: Avsc): Write {
  const avroFields = type.fields as readonly types.Field[];
  const fields = schema.fields;
  const writers = fields.map((field, i) =>
    compileWriter(field.schema, (avroFields[i] as types.Field).type),
  );
  return (tap, value) => {
    if (value === null || value === undefined) throw nullFor(schema);
    if (!isStruct(value)) throw invalidType(schema, value);
    const struct = value as Struct;
    if (struct.schema !== schema && !schemaEquals(struct.schema, schema)) {
      throw new DataError('Mismatching struct schema');
    }
    for (let i = 0; i < fields.length; i++) {
      (writers[i] as Write)(tap, struct.get(fields[i] as Field));
    }
  };
}

function unionWriter(schema: Schema, type: Avsc): Write {
  const branches = type.types ?? [];
  const nullIndex = branches.findIndex((branch) => branch.typeName === 'null');
  const members = branches.flatMap((branch, index) => (branch.typeName === 'null' ? [] : [index]));
  const writeNull = (tap: Tap): void => {
    if (!schema.optional) {
      throw isUnionSchema(schema)
        ? new DataError('Found null value for non-optional union')
        : nullFor(schema);
    }
    if (nullIndex < 0)
      throw new DataError(`No null branch in the Avro union for ${String(schema)}`);
    tap.writeLong(nullIndex);
  };
  if (isUnionSchema(schema)) {
    // Connect's union struct: the first member that is set is the branch written.
    const written = schema.fields.map((field, i) => {
      const index = members[i] as number;
      return [field, index, compileWriter(field.schema, branches[index] as Type)] as const;
    });
    return (tap, value) => {
      if (value !== null && value !== undefined) {
        if (!isStruct(value)) throw invalidType(schema, value);
        const struct = value as Struct;
        for (const [field, index, write] of written) {
          const member = struct.get(field.name);
          if (member !== null && member !== undefined) {
            tap.writeLong(index);
            write(tap, member);
            return;
          }
        }
      }
      writeNull(tap);
    };
  }
  if (members.length !== 1) throw new DataError(`Unexpected Avro union for ${String(schema)}`);
  const index = members[0] as number;
  const write = compileWriter(schema, branches[index] as Type);
  return (tap, value) => {
    if (value === null || value === undefined) {
      writeNull(tap);
      return;
    }
    tap.writeLong(index);
    write(tap, value);
  };
}
