/**
 * HeaderFrom (Connect's `org.apache.kafka.connect.transforms.HeaderFrom$Key` / `$Value`):
 * copies (`operation=copy`) or moves (`operation=move`, removing them) the listed `fields` of
 * the key or value into headers named by the matching item of `headers`. With a schema, each
 * header gets its field's schema; a field missing from the schema is a DataError.
 */
import {
  ConfigDef,
  ConfigError,
  type ConnectRecord,
  copySchemaBasics,
  DataError,
  type Schema,
  SchemaBuilder,
  Struct,
  type Transformation,
  ValidString,
} from 'serverless-connect/connect';
import {
  NON_EMPTY_LIST,
  parsed,
  REPLACE_NULL_WITH_DEFAULT,
  withReplaceNullWithDefault,
} from './util/config.js';
import { mapCopy, mapGet, toMapValueLike } from './util/map-values.js';
import { KEY_SIDE, type OperatingSide, VALUE_SIDE } from './util/operating-side.js';
import { fieldValue, requireMap, requireStruct } from './util/requirements.js';
import { SchemaUpdateCache } from './util/schema-update-cache.js';

const FIELDS = 'fields';
const HEADERS = 'headers';
const OPERATION = 'operation';

function configDef(): ConfigDef {
  return withReplaceNullWithDefault(
    new ConfigDef()
      .define({
        name: FIELDS,
        type: 'LIST',
        validator: NON_EMPTY_LIST,
        importance: 'HIGH',
        documentation:
          'Field names in the record whose values are to be copied or moved to headers.',
      })
      .define({
        name: HEADERS,
        type: 'LIST',
        validator: NON_EMPTY_LIST,
        importance: 'HIGH',
        documentation:
          'Header names, in the same order as the field names listed in the fields configuration property.',
      })
      .define({
        name: OPERATION,
        type: 'STRING',
        validator: ValidString.in('move', 'copy'),
        importance: 'HIGH',
        documentation:
          'Either <code>move</code> if the fields are to be moved to the headers (removed from the key/value), or <code>copy</code> if the fields are to be copied to the headers (retained in the key/value).',
      }),
  );
}

/** Copies or moves fields into headers; see the module comment. */
export abstract class HeaderFrom<R extends ConnectRecord> implements Transformation<R> {
  #fields: readonly string[] = [];
  #headers: readonly string[] = [];
  #move = false;
  #replaceNullWithDefault = true;
  readonly #moveCache = new SchemaUpdateCache();

  protected constructor(private readonly side: OperatingSide) {}

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    const values = configDef().parse(props);
    this.#fields = parsed.list(values, FIELDS);
    this.#headers = parsed.list(values, HEADERS);
    if (this.#fields.length !== this.#headers.length) {
      throw new ConfigError(
        `'${FIELDS}' config must have the same number of elements as '${HEADERS}' config.`,
        HEADERS,
      );
    }
    this.#move = parsed.string(values, OPERATION) === 'move';
    this.#replaceNullWithDefault = parsed.boolean(values, REPLACE_NULL_WITH_DEFAULT);
    this.#moveCache.clear();
  }

  apply(record: R): R | null {
    return this.side.schema(record) === null
      ? this.#applySchemaless(record)
      : this.#applyWithSchema(record);
  }

  close(): void {
    this.#moveCache.clear();
  }

  get #purpose(): string {
    return `header ${this.#move ? 'move' : 'copy'}`;
  }

  #applySchemaless(record: R): R {
    const original = requireMap(this.side.value(record), this.#purpose);
    const headers = record.headers.duplicate();
    const updated = mapCopy(original);
    this.#fields.forEach((field, i) => {
      if (this.#move) updated.delete(field);
      headers.add(this.#headers[i] ?? '', mapGet(original, field), null);
    });
    return this.side
      .update(record, null, this.#move ? toMapValueLike(original, updated) : original)
      .newRecord({ headers });
  }

  #applyWithSchema(record: R): R {
    const struct = requireStruct(this.side.value(record), this.#purpose);
    const headers = record.headers.duplicate();
    this.#fields.forEach((name, i) => {
      const field = struct.schema.field(name);
      if (field === null) throw new DataError(`Field does not exist: ${name}`);
      headers.add(
        this.#headers[i] ?? '',
        fieldValue(struct, name, this.#replaceNullWithDefault),
        field.schema,
      );
    });
    if (!this.#move) return record.newRecord({ headers });
    const updatedSchema = this.#moveCache.getOrBuild(struct.schema, (s) => this.#movedSchema(s));
    const updated = new Struct(updatedSchema);
    for (const field of updatedSchema.fields) {
      updated.put(field.name, fieldValue(struct, field.name, this.#replaceNullWithDefault));
    }
    return this.side.update(record, updatedSchema, updated).newRecord({ headers });
  }

  #movedSchema(schema: Schema): Schema {
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    for (const field of schema.fields) {
      if (!this.#fields.includes(field.name)) builder.field(field.name, field.schema);
    }
    return builder.build();
  }
}

/** `org.apache.kafka.connect.transforms.HeaderFrom$Key`. */
export class HeaderFromKey<R extends ConnectRecord> extends HeaderFrom<R> {
  constructor() {
    super(KEY_SIDE);
  }
}

/** `org.apache.kafka.connect.transforms.HeaderFrom$Value`. */
export class HeaderFromValue<R extends ConnectRecord> extends HeaderFrom<R> {
  constructor() {
    super(VALUE_SIDE);
  }
}
