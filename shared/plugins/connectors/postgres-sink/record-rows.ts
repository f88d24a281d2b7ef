/**
 * A sink record as a row to write or delete: its table, its primary key columns (from `pk.mode`)
 * and its value columns (the value's fields, filtered by `fields.whitelist`, or the whole value
 * in one jsonb column), each with its parameter and, when the record has a schema, its column
 * type for `auto.create` / `auto.evolve`. Pure; a record that cannot be a row is a DataError.
 */
import {
  DataError,
  isPlainObject,
  type Schema,
  type SinkRecord,
  Struct,
} from 'serverless-connect/connect';
import type { TableName } from '../postgres/identifiers.js';
import { columnTypeOf, jsonText, parameterOf } from './column-types.js';
import { PK_FIELDS_CONFIG, type PostgresSinkConfig, tableNameFor } from './postgres-sink-config.js';

/** A column of a row: its parameter and, when known, its type and nullability for DDL. */
export interface ColumnValue {
  readonly name: string;
  readonly value: unknown;
  /** `null` for a schemaless value: such a column cannot be created. */
  readonly type: string | null;
  readonly nullable: boolean;
}

/** A record as a write of its row (insert, upsert or update) or a delete by its key. */
export interface RowWrite {
  readonly table: TableName;
  readonly op: 'write' | 'delete';
  readonly keys: readonly ColumnValue[];
  /** The value columns (none for a delete). */
  readonly fields: readonly ColumnValue[];
}

/** A field of a struct or map value, with its schema when the value has one. */
interface FieldValue {
  readonly name: string;
  readonly schema: Schema | null;
  readonly value: unknown;
}

function columnOf(field: FieldValue, nullable?: boolean): ColumnValue {
  return {
    name: field.name,
    value: parameterOf(field.schema, field.value),
    type: field.schema === null ? null : columnTypeOf(field.schema),
    nullable: nullable ?? (field.schema === null || field.schema.optional),
  };
}

/** The fields of a struct or a schemaless map; `null` for anything else. */
function fieldsOf(schema: Schema | null, value: unknown): FieldValue[] | null {
  if (value instanceof Struct) {
    return value.schema.fields.map((f) => ({
      name: f.name,
      schema: f.schema,
      value: value.get(f.name),
    }));
  }
  if (schema !== null && schema.type !== 'map') return null;
  if (value instanceof Map) {
    return [...value].map(([k, v]) => ({
      name: String(k),
      schema: schema?.valueSchema ?? null,
      value: v,
    }));
  }
  if (isPlainObject(value)) {
    return Object.entries(value).map(([k, v]) => ({
      name: k,
      schema: schema?.valueSchema ?? null,
      value: v,
    }));
  }
  return null;
}

function coordinates(record: SinkRecord): string {
  return `topic ${record.topic}, partition ${record.kafkaPartition}, offset ${record.kafkaOffset}`;
}

function pick(
  fields: readonly FieldValue[],
  names: readonly string[],
  what: string,
  record: SinkRecord,
): FieldValue[] {
  if (names.length === 0) return [...fields];
  return names.map((name) => {
    const found = fields.find((f) => f.name === name);
    if (found === undefined) {
      throw new DataError(
        `PK field '${name}' (${PK_FIELDS_CONFIG}) is not a field of the record ${what} (${coordinates(record)})`,
      );
    }
    return found;
  });
}

function keyColumns(
  config: PostgresSinkConfig,
  record: SinkRecord,
  valueFields: FieldValue[] | null,
): ColumnValue[] {
  const names = config.pkFields;
  switch (config.pkMode) {
    case 'none':
      return [];
    case 'kafka': {
      const [topic, partition, offset] = names as [string, string, string];
      return [
        { name: topic, value: record.topic, type: 'TEXT', nullable: false },
        { name: partition, value: record.kafkaPartition, type: 'INTEGER', nullable: false },
        { name: offset, value: record.kafkaOffset, type: 'BIGINT', nullable: false },
      ];
    }
    case 'record_key': {
      if (record.key === null || record.key === undefined) {
        throw new DataError(
          `pk.mode=record_key needs a record key, but the key is null (${coordinates(record)})`,
        );
      }
      const fields = fieldsOf(record.keySchema, record.key);
      if (fields === null) {
        if (names.length !== 1) {
          throw new DataError(
            `Need exactly one PK column defined since the key schema for records is a primitive type, defined columns are: [${names.join(', ')}]`,
          );
        }
        return [
          columnOf(
            { name: names[0] as string, schema: record.keySchema, value: record.key },
            false,
          ),
        ];
      }
      return pick(fields, names, 'key', record).map((f) => columnOf(f, false));
    }
    case 'record_value': {
      if (valueFields === null) {
        throw new DataError(
          `pk.mode=record_value needs a struct or map value (${coordinates(record)})`,
        );
      }
      return pick(valueFields, names, 'value', record).map((f) => columnOf(f, false));
    }
  }
}

/**
 * The row of `record`, or `null` for a tombstone that is not to be deleted (`delete.enabled`
 * false). @throws DataError when the record has no usable key or value.
 */
export function rowOf(config: PostgresSinkConfig, record: SinkRecord): RowWrite | null {
  const table = tableNameFor(config, record.topic);
  if (record.value === null || record.value === undefined) {
    if (!config.deleteEnabled) return null;
    return { table, op: 'delete', keys: keyColumns(config, record, null), fields: [] };
  }
  const valueFields = fieldsOf(record.valueSchema, record.value);
  const keys = keyColumns(config, record, valueFields);
  const keyNames = new Set(keys.map((k) => k.name));
  if (config.valueJsonbColumn !== null) {
    const column = {
      name: config.valueJsonbColumn,
      value: jsonText(record.value),
      type: 'JSONB',
      nullable: true,
    };
    return { table, op: 'write', keys, fields: keyNames.has(column.name) ? [] : [column] };
  }
  if (valueFields === null) {
    throw new DataError(
      `The record value must be a struct or a map (or set value.jsonb.column) (${coordinates(record)})`,
    );
  }
  const whitelist = config.fieldsWhitelist;
  const fields = valueFields
    .filter((f) => !keyNames.has(f.name) && (whitelist === null || whitelist.has(f.name)))
    .map((f) => columnOf(f));
  return { table, op: 'write', keys, fields };
}
