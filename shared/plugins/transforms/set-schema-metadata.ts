/**
 * SetSchemaMetadata (Connect's `org.apache.kafka.connect.transforms.SetSchemaMetadata$Key` /
 * `$Value`): sets the name and/or version of the key or value schema, keeping everything
 * else. A Struct value is rebuilt under the new schema. Schemaless records are a DataError.
 */
import {
  ConfigDef,
  ConfigError,
  type ConnectRecord,
  ConnectSchema,
  type Schema,
  Struct,
  type Transformation,
} from 'serverless-connect/connect';
import { parsed, REPLACE_NULL_WITH_DEFAULT, withReplaceNullWithDefault } from './util/config.js';
import { KEY_SIDE, type OperatingSide, VALUE_SIDE } from './util/operating-side.js';
import { fieldValue, requireSchema } from './util/requirements.js';

const SCHEMA_NAME = 'schema.name';
const SCHEMA_VERSION = 'schema.version';

function configDef(): ConfigDef {
  return withReplaceNullWithDefault(
    new ConfigDef()
      .define({
        name: SCHEMA_NAME,
        type: 'STRING',
        defaultValue: null,
        importance: 'HIGH',
        documentation: 'Schema name to set.',
      })
      .define({
        name: SCHEMA_VERSION,
        type: 'INT',
        defaultValue: null,
        importance: 'HIGH',
        documentation: 'Schema version to set.',
      }),
  );
}

/** Sets schema name/version; see the module comment. */
export abstract class SetSchemaMetadata<R extends ConnectRecord> implements Transformation<R> {
  #name: string | null = null;
  #version: number | null = null;
  #replaceNullWithDefault = true;

  protected constructor(private readonly side: OperatingSide) {}

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    const values = configDef().parse(props);
    this.#name = parsed.string(values, SCHEMA_NAME);
    this.#version = parsed.int(values, SCHEMA_VERSION);
    this.#replaceNullWithDefault = parsed.boolean(values, REPLACE_NULL_WITH_DEFAULT);
    if (this.#name === null && this.#version === null) {
      throw new ConfigError('Neither schema name nor version configured');
    }
  }

  apply(record: R): R | null {
    const schema = requireSchema(this.side.schema(record), 'updating schema metadata');
    const updatedSchema: Schema = new ConnectSchema({
      type: schema.type,
      optional: schema.optional,
      defaultValue: schema.defaultValue,
      name: this.#name ?? schema.name,
      version: this.#version ?? schema.version,
      doc: schema.doc,
      parameters: schema.parameters,
      keySchema: schema.keySchema,
      valueSchema: schema.valueSchema,
      fields: schema.fields,
    });
    return this.side.update(
      record,
      updatedSchema,
      this.#rebuild(this.side.value(record), updatedSchema),
    );
  }

  close(): void {}

  /** A Struct copied under `schema` (its fields are the same); other values as they are. */
  #rebuild(value: unknown, schema: Schema): unknown {
    if (!(value instanceof Struct)) return value;
    const out = new Struct(schema);
    for (const field of schema.fields) {
      out.put(field.name, fieldValue(value, field.name, this.#replaceNullWithDefault));
    }
    return out;
  }
}

/** `org.apache.kafka.connect.transforms.SetSchemaMetadata$Key`. */
export class SetSchemaMetadataKey<R extends ConnectRecord> extends SetSchemaMetadata<R> {
  constructor() {
    super(KEY_SIDE);
  }
}

/** `org.apache.kafka.connect.transforms.SetSchemaMetadata$Value`. */
export class SetSchemaMetadataValue<R extends ConnectRecord> extends SetSchemaMetadata<R> {
  constructor() {
    super(VALUE_SIDE);
  }
}
