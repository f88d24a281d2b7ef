/**
 * Confluent's `io.confluent.connect.json.JsonSchemaConverter`: Connect data ↔ JSON on
 * Confluent's wire format (magic byte 0, the schema's registry id, the JSON text in UTF-8), the
 * JSON Schema registered with and fetched from a Confluent-compatible Schema Registry (schema
 * type `JSON`).
 *
 * Writing: the Connect schema is mapped to JSON Schema (`from-connect-schema.ts`, cached per
 * schema object), its subject named by the subject name strategy (the record name is the
 * schema's `title`), and its id found as `auto.register.schemas` and `use.latest.version` say,
 * as the AvroConverter does. The value is written as `JsonSchemaData` writes it
 * (`json-schema-values.ts`) and, with `json.fail.invalid.schema`, validated against the schema
 * of the id it is framed with. Reading: the id is read, the schema fetched by id and its version
 * looked up under the subject, the JSON validated (with `json.fail.invalid.schema`) and read
 * with the Connect schema of that JSON Schema and version (`to-connect-schema.ts`).
 *
 * As Confluent's converter: a null value with a null schema, or with a required schema that has
 * no default, is written as no bytes (a tombstone, nothing registered); a null value with an
 * optional schema is written as the JSON `null` with the schema's id.
 *
 * Asynchronous only when it must be: once a schema's id (or an id's schema) is known, a
 * conversion is synchronous. Errors as `../schema-registry/conversion-error.ts` sorts them: the
 * registry unreachable is a RetriableError; an unknown id, an incompatible or invalid schema, a
 * payload that is not JSON or not valid against its schema: DataError, a record error under
 * `errors.tolerance`.
 *
 * @example
 * const converter = new JsonSchemaConverter();
 * converter.configure({ 'schema.registry.url': 'http://registry:8081' }, false);
 * const bytes = await converter.fromConnectData('orders', headers, schema, struct);
 */
import {
  type ConfigDef,
  type Converter,
  DataError,
  IllegalStateError,
  NULL_SCHEMA_AND_VALUE,
  type ReadonlyHeaders,
  type Schema,
  type SchemaAndValue,
} from 'serverless-connect/connect';
import { type JsonNode, parseJson, parseJsonText } from '../json-text.js';
import { LruCache } from '../lru-cache.js';
import { conversionError } from '../schema-registry/conversion-error.js';
import { type RegistryFormat, RegistrySerde } from '../schema-registry/registry-serde.js';
import {
  type RegistrySchema,
  type SchemaRegistryClients,
  systemSchemaRegistryClients,
} from '../schema-registry/schema-registry-client.js';
import { frame, unframe } from '../schema-registry/wire-format.js';
import { utf8Bytes } from '../utf8.js';
import { jsonSchemaOf } from './from-connect-schema.js';
import { backwardIncompatibilities } from './json-schema-compatibility.js';
import {
  JSON_SCHEMA_CONVERTER_CONFIG_DEF,
  type JsonSchemaConverterSettings,
  parseJsonSchemaConverterSettings,
} from './json-schema-converter-config.js';
import { JsonSchemaValidator } from './json-schema-validator.js';
import { writeJsonValue } from './json-schema-values.js';
import { jsonNodeText } from './json-tree.js';
import { readJsonValue } from './read-json-value.js';
import { connectSchemaOf } from './to-connect-schema.js';

/** The JSON Schema of one Connect schema. */
interface Writer {
  readonly schema: Schema;
  readonly registered: RegistrySchema;
  /** The JSON Schema as a tree (for `latest.compatibility.strict`). */
  readonly root: JsonNode;
  /** The `title`: the record name of the subject name strategies. */
  readonly title: string | null;
}

/** Where values of one writer go in one topic: the id, and the schema text they must match. */
interface WriteTarget {
  readonly id: number;
  readonly schemaText: string;
}

/** The reading side of one schema id in one topic. */
interface Reader {
  readonly schema: Schema;
  readonly schemaText: string;
}

interface Configured {
  readonly settings: JsonSchemaConverterSettings;
  readonly validator: JsonSchemaValidator | null;
  readonly writers: LruCache<Schema, Writer>;
  readonly serde: RegistrySerde<Writer, WriteTarget, Reader>;
}

const serializeFailure = (topic: string) =>
  `Converting Kafka Connect data to byte[] failed due to serialization error of topic ${topic}`;
const deserializeFailure = (topic: string) =>
  `Converting byte[] to Kafka Connect data failed due to serialization error of topic ${topic}`;

function titleOf(root: JsonNode | undefined): string | null {
  const title = root instanceof Map ? root.get('title') : undefined;
  return typeof title === 'string' ? title : null;
}

/**
 * JSON Schema in the registry flow: values are framed with the id of the schema they are
 * validated against; a latest version must be backward compatible with the record's schema.
 */
function jsonSchemaFormat(
  settings: JsonSchemaConverterSettings,
): RegistryFormat<Writer, WriteTarget, Reader, void> {
  return {
    schemaType: 'JSON',
    converterName: 'JsonSchemaConverter',
    references: false,
    unversionedReaders: false,
    registrySchema: (writer) => writer.registered,
    recordName: (writer) => writer.title,
    ownTarget: (writer, id) => ({ id, schemaText: writer.registered.schema }),
    latestTarget: (_writer, latest) => ({ id: latest.id, schemaText: latest.schema }),
    incompatibility: (writer, latest) => {
      const update = parseJsonText(latest.schema);
      if (update === undefined) return 'the latest version is empty';
      const problems = backwardIncompatibilities(writer.root, update);
      return problems.length === 0 ? null : problems.join(', ');
    },
    readPlan: (id, schema) => {
      const root = parseJsonText(schema.schema);
      if (root === undefined) throw new DataError(`Schema ${id} is empty`);
      return {
        recordName: titleOf(root),
        reader: (version) => ({
          schema: connectSchemaOf(root, version, settings.data),
          schemaText: schema.schema,
        }),
      };
    },
  };
}

/**
 * Converts between Connect data and JSON with JSON Schema on Confluent's wire format (see the
 * module notes). One instance converts keys or values of one task; its registry client is the
 * container's.
 */
export class JsonSchemaConverter implements Converter {
  readonly #clients: SchemaRegistryClients;
  #state: Configured | null = null;

  /** @param clients the container's registry clients (tests bring their own). */
  constructor(clients: SchemaRegistryClients = systemSchemaRegistryClients()) {
    this.#clients = clients;
  }

  config(): ConfigDef {
    return JSON_SCHEMA_CONVERTER_CONFIG_DEF;
  }

  /** @throws ConfigError for an invalid config (e.g. no `schema.registry.url`). */
  configure(props: Readonly<Record<string, string>>, isKey: boolean): void {
    const settings = parseJsonSchemaConverterSettings(props, isKey);
    const client = this.#clients.clientFor(settings.registry);
    this.#state = {
      settings,
      validator: settings.validate ? new JsonSchemaValidator(settings.cacheSize) : null,
      writers: new LruCache(settings.cacheSize),
      serde: new RegistrySerde(jsonSchemaFormat(settings), client, settings),
    };
  }

  fromConnectData(
    topic: string,
    _headers: ReadonlyHeaders,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null | Promise<Uint8Array | null> {
    const state = this.#configured();
    let writer: Writer;
    let json: string | undefined;
    try {
      if (schema === null) {
        if (value === null || value === undefined) return null;
        throw new DataError('Schemaless values are not supported by the JsonSchemaConverter');
      }
      json = writeJsonValue(schema, value, state.settings.data.decimalFormat);
      if (json === undefined) return null; // a required schema's null: no bytes, as Confluent
      writer = this.#writer(state, schema);
      const target = state.serde.cachedTarget(writer, topic);
      if (target !== undefined) return this.#framed(state, target, json);
    } catch (error) {
      throw conversionError(serializeFailure(topic), error);
    }
    return this.#serialize(state, topic, writer, json);
  }

  toConnectData(
    topic: string,
    _headers: ReadonlyHeaders,
    bytes: Uint8Array | null,
  ): SchemaAndValue | Promise<SchemaAndValue> {
    if (bytes === null) return NULL_SCHEMA_AND_VALUE;
    const state = this.#configured();
    let framed: ReturnType<typeof unframe>;
    try {
      framed = unframe(bytes);
      const reader = state.serde.cachedReader(framed.schemaId, topic);
      if (reader !== undefined) return this.#read(state, reader, framed.payload);
    } catch (error) {
      throw conversionError(deserializeFailure(topic), error);
    }
    return this.#deserialize(state, topic, framed.schemaId, framed.payload);
  }

  #configured(): Configured {
    if (this.#state === null) throw new IllegalStateError('JsonSchemaConverter is not configured');
    return this.#state;
  }

  #writer(state: Configured, schema: Schema): Writer {
    const cached = state.writers.get(schema);
    if (cached !== undefined) return cached;
    const root = jsonSchemaOf(schema, state.settings.data);
    const writer: Writer = {
      schema,
      registered: { schemaType: 'JSON', schema: jsonNodeText(root), references: [] },
      root,
      title: titleOf(root),
    };
    state.writers.set(schema, writer);
    return writer;
  }

  #framed(state: Configured, target: WriteTarget, json: string): Uint8Array {
    state.validator?.check(target.schemaText, json);
    return frame(target.id, utf8Bytes(json));
  }

  async #serialize(
    state: Configured,
    topic: string,
    writer: Writer,
    json: string,
  ): Promise<Uint8Array> {
    try {
      const target = await state.serde.target(writer, topic);
      return this.#framed(state, target, json);
    } catch (error) {
      throw conversionError(serializeFailure(topic), error);
    }
  }

  #read(state: Configured, reader: Reader, payload: Uint8Array): SchemaAndValue {
    state.validator?.check(reader.schemaText, payload);
    const { root } = parseJson(payload);
    if (root === undefined) return NULL_SCHEMA_AND_VALUE;
    return { schema: reader.schema, value: readJsonValue(reader.schema, root) };
  }

  async #deserialize(
    state: Configured,
    topic: string,
    id: number,
    payload: Uint8Array,
  ): Promise<SchemaAndValue> {
    try {
      const reader = await state.serde.reader(id, topic, topic, undefined);
      return this.#read(state, reader, payload);
    } catch (error) {
      throw conversionError(deserializeFailure(topic), error);
    }
  }
}
