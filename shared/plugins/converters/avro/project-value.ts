/**
 * A record's value as a value of another schema, for `use.latest.version`: the AvroConverter
 * writes with the subject's latest version, whose Connect schema (read from the registry) is
 * not the record's. Struct fields are matched by name; a field the record lacks takes the latest
 * schema's default (an optional field: null); a field the latest schema lacks is dropped. Other
 * values are kept as they are and must fit (checked when encoded).
 */
import { DataError, isStruct, type Schema, Struct } from 'serverless-connect/connect';

/** `value` projected onto `target` (see the module notes). @throws DataError when it cannot be. */
export function projectValue(value: unknown, target: Schema): unknown {
  if (target.type !== 'struct' || !isStruct(value) || value.schema === target) return value;
  const source = value as Struct;
  const out = new Struct(target);
  for (const field of target.fields) {
    if (source.schema.field(field.name) === null) continue; // its default
    out.put(field.name, projectValue(source.get(field.name), field.schema));
  }
  try {
    out.validate();
  } catch (error) {
    throw new DataError(`The record does not fit the latest schema: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return out;
}
