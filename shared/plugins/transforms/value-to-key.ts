/**
 * ValueToKey (Connect's `org.apache.kafka.connect.transforms.ValueToKey`): replaces the record
 * key with a new key made of the listed fields of the value (a Struct with those fields when the
 * value has a schema, a map otherwise). A field missing from the value schema is a DataError.
 */
import {
  ConfigDef,
  type ConnectRecord,
  DataError,
  type Schema,
  SchemaBuilder,
  Struct,
  type Transformation,
} from 'serverless-connect/connect';
import {
  NON_EMPTY_LIST,
  parsed,
  REPLACE_NULL_WITH_DEFAULT,
  withReplaceNullWithDefault,
} from './util/config.js';
import { fromEntries, mapGet } from './util/map-values.js';
import { fieldValue, requireMap, requireStruct } from './util/requirements.js';
import { SchemaUpdateCache } from './util/schema-update-cache.js';

const FIELDS = 'fields';
const PURPOSE = 'copying fields from value to key';

function configDef(): ConfigDef {
  return withReplaceNullWithDefault(
    new ConfigDef().define({
      name: FIELDS,
      type: 'LIST',
      validator: NON_EMPTY_LIST,
      importance: 'HIGH',
      documentation: 'Field names on the record value to extract as the record key.',
    }),
  );
}

/** Builds the key from value fields; see the module comment. */
export class ValueToKey<R extends ConnectRecord> implements Transformation<R> {
  #fields: readonly string[] = [];
  #replaceNullWithDefault = true;
  readonly #cache = new SchemaUpdateCache();

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    const values = configDef().parse(props);
    this.#fields = parsed.list(values, FIELDS);
    this.#replaceNullWithDefault = parsed.boolean(values, REPLACE_NULL_WITH_DEFAULT);
    this.#cache.clear();
  }

  apply(record: R): R | null {
    return record.valueSchema === null
      ? this.#applySchemaless(record)
      : this.#applyWithSchema(record);
  }

  close(): void {
    this.#cache.clear();
  }

  #applySchemaless(record: R): R {
    const value = requireMap(record.value, PURPOSE);
    const key = new Map<unknown, unknown>(this.#fields.map((f) => [f, mapGet(value, f)]));
    return record.newRecord({ keySchema: null, key: fromEntries(key) });
  }

  #applyWithSchema(record: R): R {
    const value = requireStruct(record.value, PURPOSE);
    const keySchema = this.#cache.getOrBuild(value.schema, (s) => this.#keySchema(s));
    const key = new Struct(keySchema);
    for (const field of this.#fields) {
      key.put(field, fieldValue(value, field, this.#replaceNullWithDefault));
    }
    return record.newRecord({ keySchema, key });
  }

  #keySchema(valueSchema: Schema): Schema {
    const builder = SchemaBuilder.struct();
    for (const name of this.#fields) {
      const field = valueSchema.field(name);
      if (field === null) throw new DataError(`Field does not exist: ${name}`);
      builder.field(name, field.schema);
    }
    return builder.build();
  }
}
