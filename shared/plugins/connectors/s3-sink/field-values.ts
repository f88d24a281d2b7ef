/**
 * Reading (possibly nested) fields of record values for the field partitioner and the
 * `RecordField` timestamp extractor, as Confluent's `DataUtils.getNestedFieldValue`: the
 * name is split on `.`, and each step reads a Struct field or a map entry.
 */
import {
  DataError,
  isPlainObject,
  isStruct,
  type Schema,
  type Struct,
} from 'serverless-connect/connect';

/** A field's value and, when the value has a schema, the field's schema. */
export interface FieldValue {
  readonly value: unknown;
  readonly schema: Schema | null;
}

function mapGet(map: unknown, key: string): { found: boolean; value: unknown } {
  if (map instanceof Map) return { found: map.has(key), value: map.get(key) };
  if (isPlainObject(map)) return { found: Object.hasOwn(map, key), value: map[key] };
  return { found: false, value: undefined };
}

/**
 * The field `path` (dot-separated) of `value`, a Struct or a map (Map or plain object).
 * Throws DataError when a step is missing or lands on something that is neither.
 */
export function nestedFieldValue(value: unknown, schema: Schema | null, path: string): FieldValue {
  let current: FieldValue = { value, schema };
  for (const step of path.split('.')) {
    const v = current.value;
    if (isStruct(v)) {
      const field = v.schema.field(step);
      if (field === null) throw new DataError(`${path} is not a valid field name`);
      current = { value: (v as Struct).get(field), schema: field.schema };
    } else if (v instanceof Map || isPlainObject(v)) {
      const entry = mapGet(v, step);
      if (!entry.found) throw new DataError(`${path} is not a valid field name`);
      current = { value: entry.value ?? null, schema: current.schema?.valueSchema ?? null };
    } else {
      throw new DataError(
        `Cannot read field ${path}: the value is ${v === null || v === undefined ? 'null' : `a ${typeof v}`}, not a Struct or a map`,
      );
    }
  }
  return current;
}
