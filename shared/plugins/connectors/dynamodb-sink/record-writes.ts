/**
 * One sink record → one conditional item write: the item's key (from the record key or value,
 * per `pk.mode`), the item (the value's attributes, the key, the Kafka coordinates), or for a
 * tombstone a marker item or a delete (per `delete.mode`).
 */
import {
  ConfigError,
  DataError,
  isPlainObject,
  type Schema,
  type SinkRecord,
  Struct,
} from 'serverless-connect/connect';
import {
  type AttributeMap,
  type AttributeValue,
  scalarIdentity,
  scalarTypeOf,
  toAttributes,
  toAttributeValue,
} from './attribute-value.js';
import { type DynamoDbSinkConfig, PK_FIELDS_CONFIG } from './dynamodb-sink-config.js';
import type { ItemWrite, KeyAttribute, TableKeySchema, WriteGuard } from './sink-client.js';

/** A record's write, with what groups writes of the same item. */
export interface RecordWrite {
  readonly record: SinkRecord;
  /** Equal for writes of the same item (same table, same key). */
  readonly itemId: string;
  readonly write: ItemWrite;
}

/** The key attributes of a table, partition key first. */
export function keyAttributesOf(schema: TableKeySchema): KeyAttribute[] {
  return schema.sortKey === null ? [schema.partitionKey] : [schema.partitionKey, schema.sortKey];
}

/**
 * Throws ConfigError when `pk.fields` cannot name the key attributes of `schema` (checked once
 * per table, since every record would fail alike).
 */
export function checkKeyMapping(config: DynamoDbSinkConfig, schema: TableKeySchema): void {
  const attributes = keyAttributesOf(schema);
  if (config.pkFields.length > 0 && config.pkFields.length !== attributes.length) {
    throw new ConfigError(
      `Invalid value ${config.pkFields.join(',')} for configuration ${PK_FIELDS_CONFIG}: table ${schema.table} has ${attributes.length} key attribute(s) (${attributes.map((a) => a.name).join(', ')})`,
      PK_FIELDS_CONFIG,
    );
  }
}

/** Where the coordinates of a record are: those it was consumed at, before any transformation. */
function coordinates(record: SinkRecord): string {
  return `${record.originalTopic}-${record.originalKafkaPartition}@${record.originalKafkaOffset}`;
}

interface Source {
  readonly what: 'key' | 'value';
  readonly schema: Schema | null;
  readonly value: unknown;
}

function isComposite(value: unknown): boolean {
  return value instanceof Struct || value instanceof Map || isPlainObject(value);
}

/** The field `name` of a struct or map and its schema; `undefined` when absent. */
function fieldOf(source: Source, name: string): { schema: Schema | null; value: unknown } {
  const { value, schema } = source;
  if (value instanceof Struct) {
    const field = value.schema.field(name);
    return field === null
      ? { schema: null, value: undefined }
      : { schema: field.schema, value: value.get(field) };
  }
  const entrySchema = schema?.type === 'map' ? schema.valueSchema : null;
  if (value instanceof Map) return { schema: entrySchema, value: value.get(name) };
  const entries = value as Record<string, unknown>;
  return {
    schema: entrySchema,
    value: Object.hasOwn(entries, name) ? entries[name] : undefined,
  };
}

function checkedKeyValue(
  record: SinkRecord,
  attribute: KeyAttribute,
  table: string,
  where: string,
  value: AttributeValue,
): AttributeValue {
  const type = scalarTypeOf(value);
  if (type !== attribute.type) {
    throw new DataError(
      `Record ${coordinates(record)}: ${where} gives ${type ?? Object.keys(value)[0]} for key attribute ${attribute.name} of table ${table}, which is of type ${attribute.type}`,
    );
  }
  return value;
}

/** The key attributes of `record`'s item in the table of `schema`. */
function itemKey(
  record: SinkRecord,
  config: DynamoDbSinkConfig,
  schema: TableKeySchema,
): Record<string, AttributeValue> {
  const source: Source =
    config.pkMode === 'record_key'
      ? { what: 'key', schema: record.keySchema, value: record.key }
      : { what: 'value', schema: record.valueSchema, value: record.value };
  const attributes = keyAttributesOf(schema);
  if (source.value === null || source.value === undefined) {
    throw new DataError(
      `Record ${coordinates(record)} has a null ${source.what}, which pk.mode=${config.pkMode} needs for the item's key`,
    );
  }
  const key: Record<string, AttributeValue> = {};
  if (!isComposite(source.value)) {
    if (source.what === 'value' || schema.sortKey !== null) {
      throw new DataError(
        `Record ${coordinates(record)}: a primitive ${source.what} can only give the partition key of a table without a sort key, but table ${schema.table} has key (${attributes.map((a) => a.name).join(', ')})`,
      );
    }
    const value = toAttributeValue(source.schema, source.value, source.what);
    key[schema.partitionKey.name] = checkedKeyValue(
      record,
      schema.partitionKey,
      schema.table,
      `the ${source.what}`,
      value,
    );
    return key;
  }
  attributes.forEach((attribute, i) => {
    const name = config.pkFields[i] ?? attribute.name;
    const field = fieldOf(source, name);
    const where = `${source.what} field '${name}'`;
    if (field.value === null || field.value === undefined) {
      throw new DataError(
        `Record ${coordinates(record)}: ${where} is missing or null, but it gives key attribute ${attribute.name} of table ${schema.table}`,
      );
    }
    const value = toAttributeValue(field.schema, field.value, `${source.what}.${name}`);
    key[attribute.name] = checkedKeyValue(record, attribute, schema.table, where, value);
  });
  return key;
}

/**
 * The conditional write of `record` to the table of `schema`. `nowMs` dates tombstone markers.
 * Throws DataError when the record cannot become an item (no usable key, a value that is not a
 * struct or map, a value DynamoDB cannot represent).
 */
export function recordWrite(
  record: SinkRecord,
  config: DynamoDbSinkConfig,
  schema: TableKeySchema,
  nowMs: number,
): RecordWrite {
  const key = itemKey(record, config, schema);
  const names = config.attributes;
  const guard: WriteGuard = {
    names,
    topic: record.originalTopic,
    partition: record.originalKafkaPartition,
    offset: record.originalKafkaOffset,
  };
  const itemId = JSON.stringify([
    schema.table,
    ...keyAttributesOf(schema).map((a) => scalarIdentity(key[a.name] ?? { NULL: true })),
  ]);
  const stamp: AttributeMap = {
    [names.topic]: { S: guard.topic },
    [names.partition]: { N: String(guard.partition) },
    [names.offset]: { N: String(guard.offset) },
  };
  const table = schema.table;
  if (record.value !== null && record.value !== undefined) {
    const attributes = toAttributes(record.valueSchema, record.value, 'value');
    // Only markers may carry the marker attributes: readers tell markers by them.
    delete attributes[names.deleted];
    delete attributes[names.expiresAt];
    const item = { ...attributes, ...key, ...stamp };
    return { record, itemId, write: { kind: 'put', table, item, guard } };
  }
  if (config.deleteMode === 'delete') {
    return { record, itemId, write: { kind: 'delete', table, key, guard } };
  }
  const expiry: AttributeMap =
    config.tombstoneTtlSeconds > 0
      ? {
          [names.expiresAt]: {
            N: String(Math.floor(nowMs / 1000) + config.tombstoneTtlSeconds),
          },
        }
      : {};
  const item = { ...key, ...stamp, [names.deleted]: { BOOL: true }, ...expiry };
  return { record, itemId, write: { kind: 'put', table, item, guard } };
}
