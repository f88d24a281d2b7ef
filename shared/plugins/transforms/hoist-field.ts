/**
 * HoistField (Connect's `org.apache.kafka.connect.transforms.HoistField$Key` / `$Value`):
 * wraps the key or value in a one-field Struct (when it has a schema) or map (schemaless),
 * under the configured `field` name.
 */
import {
  ConfigDef,
  type ConnectRecord,
  SchemaBuilder,
  Struct,
  type Transformation,
} from 'serverless-connect/connect';
import { parsed } from './util/config.js';
import { fromEntries } from './util/map-values.js';
import { KEY_SIDE, type OperatingSide, VALUE_SIDE } from './util/operating-side.js';
import { SchemaUpdateCache } from './util/schema-update-cache.js';

const FIELD = 'field';

function configDef(): ConfigDef {
  return new ConfigDef().define({
    name: FIELD,
    type: 'STRING',
    importance: 'MEDIUM',
    documentation:
      'Field name for the single field that will be created in the resulting Struct or Map.',
  });
}

/** Wraps the key or value in a single field; see the module comment. */
export abstract class HoistField<R extends ConnectRecord> implements Transformation<R> {
  #field = '';
  readonly #cache = new SchemaUpdateCache();

  protected constructor(private readonly side: OperatingSide) {}

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    this.#field = parsed.string(configDef().parse(props), FIELD) ?? '';
    this.#cache.clear();
  }

  apply(record: R): R | null {
    const schema = this.side.schema(record);
    const value = this.side.value(record);
    if (schema === null) {
      return this.side.update(record, null, fromEntries(new Map([[this.#field, value]])));
    }
    const updatedSchema = this.#cache.getOrBuild(schema, (s) =>
      SchemaBuilder.struct().field(this.#field, s).build(),
    );
    return this.side.update(
      record,
      updatedSchema,
      new Struct(updatedSchema).put(this.#field, value),
    );
  }

  close(): void {
    this.#cache.clear();
  }
}

/** `org.apache.kafka.connect.transforms.HoistField$Key`. */
export class HoistFieldKey<R extends ConnectRecord> extends HoistField<R> {
  constructor() {
    super(KEY_SIDE);
  }
}

/** `org.apache.kafka.connect.transforms.HoistField$Value`. */
export class HoistFieldValue<R extends ConnectRecord> extends HoistField<R> {
  constructor() {
    super(VALUE_SIDE);
  }
}
