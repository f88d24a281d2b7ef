/**
 * ExtractField (Connect's `org.apache.kafka.connect.transforms.ExtractField$Key` / `$Value`):
 * replaces the key or value with one of its fields (with `field.syntax.version=V2`, a nested
 * field such as `address.city`). Schemaless: a missing field gives `null`. Schema'd: the new
 * schema is the field's; a field missing from the schema is an error. Tombstones stay null.
 */
import {
  ConfigDef,
  type ConnectRecord,
  DataError,
  type Transformation,
} from 'serverless-connect/connect';
import { parsed, REPLACE_NULL_WITH_DEFAULT, withReplaceNullWithDefault } from './util/config.js';
import { fieldSyntaxVersion, SingleFieldPath, withFieldSyntaxVersion } from './util/field-path.js';
import { KEY_SIDE, type OperatingSide, VALUE_SIDE } from './util/operating-side.js';
import { requireMapOrNull, requireStructOrNull } from './util/requirements.js';

const FIELD = 'field';
const PURPOSE = 'field extraction';

function configDef(): ConfigDef {
  return withReplaceNullWithDefault(
    withFieldSyntaxVersion(
      new ConfigDef().define({
        name: FIELD,
        type: 'STRING',
        importance: 'MEDIUM',
        documentation: 'Field name to extract.',
      }),
    ),
  );
}

/** Extracts one field; see the module comment. */
export abstract class ExtractField<R extends ConnectRecord> implements Transformation<R> {
  #path = new SingleFieldPath('', 'V1');
  #replaceNullWithDefault = true;

  protected constructor(private readonly side: OperatingSide) {}

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    const values = configDef().parse(props);
    this.#path = new SingleFieldPath(
      parsed.string(values, FIELD) ?? '',
      fieldSyntaxVersion(values),
    );
    this.#replaceNullWithDefault = parsed.boolean(values, REPLACE_NULL_WITH_DEFAULT);
  }

  apply(record: R): R | null {
    const schema = this.side.schema(record);
    const value = this.side.value(record);
    if (schema === null) {
      const map = requireMapOrNull(value, PURPOSE);
      return this.side.update(record, null, map === null ? null : this.#path.valueFromMap(map));
    }
    const struct = requireStructOrNull(value, PURPOSE);
    const field = this.#path.fieldFrom(schema);
    if (field === null) throw new DataError(`Unknown field: ${this.#path.text}`);
    return this.side.update(
      record,
      field.schema,
      struct === null ? null : this.#path.valueFromStruct(struct, this.#replaceNullWithDefault),
    );
  }

  close(): void {}
}

/** `org.apache.kafka.connect.transforms.ExtractField$Key`. */
export class ExtractFieldKey<R extends ConnectRecord> extends ExtractField<R> {
  constructor() {
    super(KEY_SIDE);
  }
}

/** `org.apache.kafka.connect.transforms.ExtractField$Value`. */
export class ExtractFieldValue<R extends ConnectRecord> extends ExtractField<R> {
  constructor() {
    super(VALUE_SIDE);
  }
}
