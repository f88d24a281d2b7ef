/**
 * InsertField (Connect's `org.apache.kafka.connect.transforms.InsertField$Key` / `$Value`):
 * inserts the record's topic, partition, offset (sink records only) and timestamp, and/or a
 * static value, as fields of the key or value. A field name suffixed with `!` makes the field
 * required in the output schema; `?` (the default) keeps it optional.
 *
 * Tombstones (a null key/value) pass through unchanged. Schemaless values must be maps;
 * schema'd values must be Structs (timestamps are inserted as `Timestamp` logical values).
 */
import {
  ConfigDef,
  ConfigError,
  type ConnectRecord,
  copySchemaBasics,
  invalidValue,
  LogicalTimestamp,
  type Schema,
  SchemaBuilder,
  Schemas,
  Struct,
  type Transformation,
} from 'serverless-connect/connect';
import { parsed, REPLACE_NULL_WITH_DEFAULT, withReplaceNullWithDefault } from './util/config.js';
import { mapCopy, toMapValueLike } from './util/map-values.js';
import { KEY_SIDE, type OperatingSide, VALUE_SIDE } from './util/operating-side.js';
import { fieldValue, requireMap, requireSinkRecord, requireStruct } from './util/requirements.js';
import { SchemaUpdateCache } from './util/schema-update-cache.js';

const TOPIC_FIELD = 'topic.field';
const PARTITION_FIELD = 'partition.field';
const OFFSET_FIELD = 'offset.field';
const TIMESTAMP_FIELD = 'timestamp.field';
const STATIC_FIELD = 'static.field';
const STATIC_VALUE = 'static.value';
const PURPOSE = 'field insertion';
const OPTIONALITY_DOC =
  'Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default).';

function configDef(): ConfigDef {
  const field = (name: string, doc: string) => ({
    name,
    type: 'STRING' as const,
    defaultValue: null,
    importance: 'MEDIUM' as const,
    documentation: doc,
  });
  return withReplaceNullWithDefault(
    new ConfigDef()
      .define(field(TOPIC_FIELD, `Field name for Kafka topic. ${OPTIONALITY_DOC}`))
      .define(field(PARTITION_FIELD, `Field name for Kafka partition. ${OPTIONALITY_DOC}`))
      .define(
        field(
          OFFSET_FIELD,
          `Field name for Kafka offset - only applicable to sink connectors.<br/>${OPTIONALITY_DOC}`,
        ),
      )
      .define(field(TIMESTAMP_FIELD, `Field name for record timestamp. ${OPTIONALITY_DOC}`))
      .define(field(STATIC_FIELD, `Field name for static data field. ${OPTIONALITY_DOC}`))
      .define(field(STATIC_VALUE, 'Static field value, if field name configured.')),
  );
}

interface InsertionSpec {
  readonly name: string;
  readonly optional: boolean;
}

function parseSpec(spec: string | null): InsertionSpec | null {
  if (spec === null) return null;
  if (spec.endsWith('?')) return { name: spec.slice(0, -1), optional: true };
  if (spec.endsWith('!')) return { name: spec.slice(0, -1), optional: false };
  return { name: spec, optional: true };
}

interface Settings {
  readonly topic: InsertionSpec | null;
  readonly partition: InsertionSpec | null;
  readonly offset: InsertionSpec | null;
  readonly timestamp: InsertionSpec | null;
  readonly static: InsertionSpec | null;
  readonly staticValue: string | null;
  readonly replaceNullWithDefault: boolean;
}

const OPTIONAL_TIMESTAMP = LogicalTimestamp.builder().optional().build();

/** Inserts record metadata and/or a static value as fields; see the module comment. */
export abstract class InsertField<R extends ConnectRecord> implements Transformation<R> {
  #settings: Settings | undefined;
  readonly #cache = new SchemaUpdateCache();

  protected constructor(private readonly side: OperatingSide) {}

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    const values = configDef().parse(props);
    const settings: Settings = {
      topic: parseSpec(parsed.string(values, TOPIC_FIELD)),
      partition: parseSpec(parsed.string(values, PARTITION_FIELD)),
      offset: parseSpec(parsed.string(values, OFFSET_FIELD)),
      timestamp: parseSpec(parsed.string(values, TIMESTAMP_FIELD)),
      static: parseSpec(parsed.string(values, STATIC_FIELD)),
      staticValue: parsed.string(values, STATIC_VALUE),
      replaceNullWithDefault: parsed.boolean(values, REPLACE_NULL_WITH_DEFAULT),
    };
    const { topic, partition, offset, timestamp } = settings;
    if (!topic && !partition && !offset && !timestamp && !settings.static) {
      throw new ConfigError('No field insertion configured');
    }
    if (settings.static !== null && settings.staticValue === null) {
      throw invalidValue(
        STATIC_VALUE,
        null,
        `No value specified for static field: ${settings.static.name}`,
      );
    }
    this.#settings = settings;
    this.#cache.clear();
  }

  apply(record: R): R | null {
    const value = this.side.value(record);
    if (value === null) return record;
    return this.side.schema(record) === null
      ? this.#applySchemaless(record, value)
      : this.#applyWithSchema(record, value);
  }

  close(): void {
    this.#cache.clear();
  }

  get #config(): Settings {
    if (this.#settings === undefined) throw new ConfigError('InsertField is not configured');
    return this.#settings;
  }

  /** The [field, value] pairs to insert; the timestamp as `asDate` wants it. */
  #insertions(record: R, asDate: boolean): [string, unknown][] {
    const s = this.#config;
    const out: [string, unknown][] = [];
    if (s.topic) out.push([s.topic.name, record.topic]);
    if (s.partition && record.kafkaPartition !== null) {
      out.push([s.partition.name, record.kafkaPartition]);
    }
    if (s.offset) out.push([s.offset.name, requireSinkRecord(record, PURPOSE).kafkaOffset]);
    if (s.timestamp && record.timestamp !== null) {
      out.push([s.timestamp.name, asDate ? new Date(record.timestamp) : record.timestamp]);
    }
    if (s.static && s.staticValue !== null) out.push([s.static.name, s.staticValue]);
    return out;
  }

  #applySchemaless(record: R, value: unknown): R {
    const original = requireMap(value, PURPOSE);
    const updated = mapCopy(original);
    for (const [name, inserted] of this.#insertions(record, false)) updated.set(name, inserted);
    return this.side.update(record, null, toMapValueLike(original, updated));
  }

  #applyWithSchema(record: R, value: unknown): R {
    const struct = requireStruct(value, PURPOSE);
    const schema = this.#cache.getOrBuild(struct.schema, (s) => this.#updatedSchema(s));
    const updated = new Struct(schema);
    const replace = this.#config.replaceNullWithDefault;
    for (const field of struct.schema.fields) {
      updated.put(field.name, fieldValue(struct, field.name, replace));
    }
    for (const [name, inserted] of this.#insertions(record, true)) updated.put(name, inserted);
    return this.side.update(record, schema, updated);
  }

  #updatedSchema(schema: Schema): Schema {
    const s = this.#config;
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    for (const field of schema.fields) builder.field(field.name, field.schema);
    const add = (spec: InsertionSpec | null, optional: Schema, required: Schema) => {
      if (spec) builder.field(spec.name, spec.optional ? optional : required);
    };
    add(s.topic, Schemas.OPTIONAL_STRING, Schemas.STRING);
    add(s.partition, Schemas.OPTIONAL_INT32, Schemas.INT32);
    add(s.offset, Schemas.OPTIONAL_INT64, Schemas.INT64);
    add(s.timestamp, OPTIONAL_TIMESTAMP, LogicalTimestamp.schema());
    add(s.static, Schemas.OPTIONAL_STRING, Schemas.STRING);
    return builder.build();
  }
}

/** `org.apache.kafka.connect.transforms.InsertField$Key`. */
export class InsertFieldKey<R extends ConnectRecord> extends InsertField<R> {
  constructor() {
    super(KEY_SIDE);
  }
}

/** `org.apache.kafka.connect.transforms.InsertField$Value`. */
export class InsertFieldValue<R extends ConnectRecord> extends InsertField<R> {
  constructor() {
    super(VALUE_SIDE);
  }
}
