/**
 * TimestampConverter (Connect's `org.apache.kafka.connect.transforms.TimestampConverter$Key` /
 * `$Value`): converts a timestamp, the whole key/value or one `field` of it, between `string`
 * (with `format`, a SimpleDateFormat pattern in UTC), `unix` (int64 in `unix.precision`), and
 * the logical `Date`, `Time` and `Timestamp` types. Null timestamps stay null.
 */
import {
  ConfigDef,
  ConfigError,
  type ConnectRecord,
  copySchemaBasics,
  invalidValue,
  type Schema,
  SchemaBuilder,
  Struct,
  type Transformation,
  ValidString,
} from 'serverless-connect/connect';
import { parsed, REPLACE_NULL_WITH_DEFAULT, withReplaceNullWithDefault } from './util/config.js';
import { JavaDateFormat } from './util/java-date-format.js';
import { mapCopy, mapGet, toMapValueLike } from './util/map-values.js';
import { KEY_SIDE, type OperatingSide, VALUE_SIDE } from './util/operating-side.js';
import { fieldValue, requireMap, requireStructOrNull } from './util/requirements.js';
import { SchemaUpdateCache } from './util/schema-update-cache.js';
import {
  inferTimestampType,
  type TimestampType,
  TRANSLATORS,
  type TranslatorConfig,
  timestampTypeFromSchema,
  type UnixPrecision,
} from './util/timestamp-translators.js';

const FIELD = 'field';
const TARGET_TYPE = 'target.type';
const FORMAT = 'format';
const UNIX_PRECISION = 'unix.precision';
const PURPOSE = 'converting timestamp formats';
const TYPES: readonly TimestampType[] = ['string', 'unix', 'Date', 'Time', 'Timestamp'];
const PRECISIONS: readonly UnixPrecision[] = [
  'nanoseconds',
  'microseconds',
  'milliseconds',
  'seconds',
];

function configDef(): ConfigDef {
  return withReplaceNullWithDefault(
    new ConfigDef()
      .define({
        name: FIELD,
        type: 'STRING',
        defaultValue: '',
        importance: 'HIGH',
        documentation:
          'The field containing the timestamp, or empty if the entire value is a timestamp',
      })
      .define({
        name: TARGET_TYPE,
        type: 'STRING',
        validator: ValidString.in(...TYPES),
        importance: 'HIGH',
        documentation:
          'The desired timestamp representation: string, unix, Date, Time, or Timestamp',
      })
      .define({
        name: FORMAT,
        type: 'STRING',
        defaultValue: '',
        importance: 'MEDIUM',
        documentation:
          'A SimpleDateFormat-compatible format for the timestamp. Used to generate the output when type=string or used to parse the input if the input is a string.',
      })
      .define({
        name: UNIX_PRECISION,
        type: 'STRING',
        defaultValue: 'milliseconds',
        validator: ValidString.in(...PRECISIONS),
        importance: 'LOW',
        documentation:
          'The desired Unix precision for the timestamp: seconds, milliseconds, microseconds, or nanoseconds. Used to generate the output when type=unix or used to parse the input if the input is a Long.Note: This SMT will cause precision loss during conversions from, and to, values with sub-millisecond components.',
      }),
  );
}

interface Settings extends TranslatorConfig {
  readonly field: string;
  readonly type: TimestampType;
  readonly replaceNullWithDefault: boolean;
}

/** Converts timestamps between representations; see the module comment. */
export abstract class TimestampConverter<R extends ConnectRecord> implements Transformation<R> {
  #settings: Settings = {
    field: '',
    type: 'Timestamp',
    format: null,
    unixPrecision: 'milliseconds',
    replaceNullWithDefault: true,
  };
  readonly #cache = new SchemaUpdateCache();

  protected constructor(private readonly side: OperatingSide) {}

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    const values = configDef().parse(props);
    const type = parsed.string(values, TARGET_TYPE) as TimestampType;
    const pattern = parsed.string(values, FORMAT) ?? '';
    if (type === 'string' && pattern.trim() === '') {
      throw new ConfigError(
        'TimestampConverter requires format option to be specified when using string timestamps',
        FORMAT,
      );
    }
    let format: JavaDateFormat | null = null;
    if (pattern.trim() !== '') {
      try {
        format = new JavaDateFormat(pattern);
      } catch (error) {
        throw invalidValue(
          FORMAT,
          pattern,
          `TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: ${pattern} (${(error as Error).message})`,
        );
      }
    }
    this.#settings = {
      field: parsed.string(values, FIELD) ?? '',
      type,
      format,
      unixPrecision: parsed.string(values, UNIX_PRECISION) as UnixPrecision,
      replaceNullWithDefault: parsed.boolean(values, REPLACE_NULL_WITH_DEFAULT),
    };
    this.#cache.clear();
  }

  apply(record: R): R | null {
    const schema = this.side.schema(record);
    return schema === null ? this.#applySchemaless(record) : this.#applyWithSchema(record, schema);
  }

  close(): void {
    this.#cache.clear();
  }

  #convert(value: unknown, from: TimestampType | null): unknown {
    if (value === null || value === undefined) return null;
    const source = TRANSLATORS[from ?? inferTimestampType(value)];
    const raw = source.toRaw(this.#settings, value);
    return TRANSLATORS[this.#settings.type].toType(this.#settings, raw);
  }

  #applySchemaless(record: R): R {
    const value = this.side.value(record);
    const { field } = this.#settings;
    if (value === null || field === '') {
      return this.side.update(record, null, this.#convert(value, null));
    }
    const original = requireMap(value, PURPOSE);
    const updated = mapCopy(original);
    updated.set(field, this.#convert(mapGet(original, field), null));
    return this.side.update(record, null, toMapValueLike(original, updated));
  }

  #applyWithSchema(record: R, schema: Schema): R {
    const { field, type } = this.#settings;
    const value = this.side.value(record);
    if (field === '') {
      const updatedSchema = TRANSLATORS[type].typeSchema(schema.optional);
      return this.side.update(
        record,
        updatedSchema,
        this.#convert(value, timestampTypeFromSchema(schema)),
      );
    }
    const struct = requireStructOrNull(value, PURPOSE);
    const updatedSchema = this.#cache.getOrBuild(schema, (s) => this.#updatedSchema(s));
    return this.side.update(record, updatedSchema, this.#convertStruct(struct, updatedSchema));
  }

  #updatedSchema(schema: Schema): Schema {
    const { field, type } = this.#settings;
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    for (const f of schema.fields) {
      builder.field(
        f.name,
        f.name === field ? TRANSLATORS[type].typeSchema(f.schema.optional) : f.schema,
      );
    }
    if (schema.optional) builder.optional();
    if (schema.defaultValue !== null) {
      builder.defaultValue(
        this.#convertStruct(requireStructOrNull(schema.defaultValue, PURPOSE), builder.build()),
      );
    }
    return builder.build();
  }

  #convertStruct(struct: Struct | null, updatedSchema: Schema): Struct | null {
    if (struct === null) return null;
    const { field, replaceNullWithDefault } = this.#settings;
    const updated = new Struct(updatedSchema);
    for (const f of struct.schema.fields) {
      const original = fieldValue(struct, f.name, replaceNullWithDefault);
      updated.put(
        f.name,
        f.name === field ? this.#convert(original, timestampTypeFromSchema(f.schema)) : original,
      );
    }
    return updated;
  }
}

/** `org.apache.kafka.connect.transforms.TimestampConverter$Key`. */
export class TimestampConverterKey<R extends ConnectRecord> extends TimestampConverter<R> {
  constructor() {
    super(KEY_SIDE);
  }
}

/** `org.apache.kafka.connect.transforms.TimestampConverter$Value`. */
export class TimestampConverterValue<R extends ConnectRecord> extends TimestampConverter<R> {
  constructor() {
    super(VALUE_SIDE);
  }
}
