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
import {
  type RegistrySchema,
  type SchemaRegistryClient,
  type SchemaRegistryClients,
  systemSchemaRegistryClients,
} from '../schema-registry/schema-registry-client.js';
import { subjectName } from '../schema-registry/subject-strategy.js';
import { frame, unframe } from '../schema-registry/wire-format.js';
import { utf8Bytes } from '../utf8.js';
import { jsonSchemaOf } from './from-connect-schema.js';
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
  readonly isKey: boolean;
  readonly client: SchemaRegistryClient;
  readonly validator: JsonSchemaValidator | null;
  readonly writers: LruCache<Schema, Writer>;
  readonly targets: LruCache<Writer, Map<string, WriteTarget>>;
  readonly readers: LruCache<number, Map<string, Reader>>;
  /** The registry's compatibility answers for `use.latest.version` (by subject, id, text). */
  readonly compatible: LruCache<string, boolean>;
}

const serializeFailure = (topic: string) =>
  `Converting Kafka Connect data to byte[] failed due to serialization error of topic ${topic}`;
const deserializeFailure = (topic: string) =>
  `Converting byte[] to Kafka Connect data failed due to serialization error of topic ${topic}`;

function titleOf(root: JsonNode | undefined): string | null {
  const title = root instanceof Map ? root.get('title') : undefined;
  return typeof title === 'string' ? title : null;
}

/** The JSON Schema a registry answered with; DataError for another format or references. */
function checkedJson(schema: RegistrySchema, what: string): RegistrySchema {
  if (schema.schemaType !== 'JSON') {
    throw new DataError(`${what} is a ${schema.schemaType} schema, not a JSON schema`);
  }
  if (schema.references.length > 0) {
    throw new DataError(
      `${what} has schema references, which the JsonSchemaConverter does not resolve`,
    );
  }
  return schema;
}

function getOrAdd<K, T>(cache: LruCache<K, Map<string, T>>, key: K): Map<string, T> {
  let byTopic = cache.get(key);
  if (byTopic === undefined) {
    byTopic = new Map();
    cache.set(key, byTopic);
  }
  return byTopic;
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
    const size = settings.cacheSize;
    this.#state = {
      settings,
      isKey,
      client: this.#clients.clientFor(settings.registry),
      validator: settings.validate ? new JsonSchemaValidator(size) : null,
      writers: new LruCache(size),
      targets: new LruCache(size),
      readers: new LruCache(size),
      compatible: new LruCache(size),
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
      const target = state.targets.get(writer)?.get(topic);
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
      const reader = state.readers.get(framed.schemaId)?.get(topic);
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
      const target = await this.#writeTarget(state, topic, writer);
      return this.#framed(state, target, json);
    } catch (error) {
      throw conversionError(serializeFailure(topic), error);
    }
  }

  /** The id (and schema) values of `writer` are framed with in `topic`, from the registry. */
  async #writeTarget(state: Configured, topic: string, writer: Writer): Promise<WriteTarget> {
    const { settings, client, isKey } = state;
    const subject = subjectName(settings.subjectNameStrategy, topic, isKey, writer.title);
    const options = { normalize: settings.serializer.normalize };
    const schemaText = writer.registered.schema;
    let id: number;
    switch (settings.serializer.mode) {
      case 'auto-register':
        id = await client.register(subject, writer.registered, options);
        break;
      case 'lookup':
        id = (await client.lookup(subject, writer.registered, options)).id;
        break;
      case 'use-latest':
        // Never remembered here: the latest version changes (the client caches it for a while).
        return this.#latestTarget(state, subject, writer);
    }
    const target = { id, schemaText };
    getOrAdd(state.targets, writer).set(topic, target);
    return target;
  }

  /**
   * The subject's latest version (`use.latest.version`). With `latest.compatibility.strict`,
   * the registry is asked whether the record's schema is compatible with it (once per schema
   * and latest version).
   */
  async #latestTarget(state: Configured, subject: string, writer: Writer): Promise<WriteTarget> {
    const { client, compatible, settings } = state;
    const latest = await client.latest(subject);
    const what = `The latest version (${latest.version}) of subject ${subject}`;
    checkedJson(latest, what);
    if (settings.serializer.latestCompatibilityStrict) {
      const key = `${subject}\0${latest.id}\0${writer.registered.schema}`;
      let ok = compatible.get(key);
      if (ok === undefined) {
        ok = await client.isCompatible(subject, writer.registered, latest.version);
        compatible.set(key, ok);
      }
      if (!ok) {
        throw new DataError(
          `Incompatible schema ${latest.schema} of type JSON for schema ${writer.registered.schema}. ` +
            'Set latest.compatibility.strict=false to disable this check',
        );
      }
    }
    return { id: latest.id, schemaText: latest.schema };
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
      const { settings, client, isKey } = state;
      const registered = checkedJson(await client.schemaById(id), `Schema ${id}`);
      const root = parseJsonText(registered.schema);
      if (root === undefined) throw new DataError(`Schema ${id} is empty`);
      const subject = subjectName(settings.subjectNameStrategy, topic, isKey, titleOf(root));
      const { version } = await client.lookup(subject, registered);
      const reader: Reader = {
        schema: connectSchemaOf(root, version, settings.data),
        schemaText: registered.schema,
      };
      getOrAdd(state.readers, id).set(topic, reader);
      return this.#read(state, reader, payload);
    } catch (error) {
      throw conversionError(deserializeFailure(topic), error);
    }
  }
}
