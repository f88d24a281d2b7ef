/**
 * Confluent's `io.confluent.connect.protobuf.ProtobufConverter`, byte-compatible with it: a
 * record is magic byte 0, the schema's registry id (4 bytes, big-endian), the message-index
 * array, then the Protobuf payload. Writing registers the .proto text Confluent's mapping
 * gives the Connect schema under the subject of `key|value.subject.name.strategy` (or uses the
 * subject's latest version, or looks the schema up); reading fetches the schema by id, picks
 * the message the indexes name and maps it to Connect.
 *
 * Both directions are asynchronous (they may call the registry): the converter contract's
 * Promise-returning signatures. Registry answers are cached per container
 * (`systemSchemaRegistryClients()`); schemas are parsed and mapped once per converter.
 *
 * @example
 * const converter = new ProtobufConverter();
 * converter.configure({ 'schema.registry.url': 'http://registry:8081' }, false);
 * const bytes = await converter.fromConnectData('orders', headers, schema, struct);
 * const { schema, value } = await converter.toConnectData('orders', headers, bytes);
 */
import {
  type ConfigDef,
  DataError,
  NULL_SCHEMA_AND_VALUE,
  type ReadonlyHeaders,
  type Schema,
  type SchemaAndValue,
} from 'serverless-connect/connect';
import { withConverterType } from '../converter-config.js';
import { LruCache } from '../lru-cache.js';
import { ErrorCodes, SchemaRegistryRequestError } from '../schema-registry/errors.js';
import { schemaRegistrySettingsOf } from '../schema-registry/registry-config.js';
import {
  type RegistrySchema,
  type SchemaRegistryClient,
  type SchemaRegistryClients,
  systemSchemaRegistryClients,
} from '../schema-registry/schema-registry-client.js';
import {
  type SerializerSettings,
  serializerSettingsOf,
} from '../schema-registry/serializer-config.js';
import {
  type SubjectNameStrategy,
  subjectName,
  subjectNameStrategyOf,
} from '../schema-registry/subject-strategy.js';
import { frameProtobuf, unframeProtobuf } from './message-indexes.js';
import type { ParsedProto } from './proto-root.js';
import {
  PROTOBUF_CONVERTER_CONFIG_DEF,
  protobufDataSettingsOf,
} from './protobuf-converter-config.js';
import { ProtobufData, type ProtobufWriter } from './protobuf-data.js';

/** What a converter is built from; tests pass their own registry clients. */
export interface ProtobufConverterDeps {
  readonly clients?: SchemaRegistryClients;
}

interface Configured {
  readonly isKey: boolean;
  readonly client: SchemaRegistryClient;
  readonly data: ProtobufData;
  readonly strategy: SubjectNameStrategy;
  readonly serializer: SerializerSettings;
  /** `latest.compatibility.strict` answers, by subject, latest id and schema text. */
  readonly compatible: LruCache<string, boolean>;
}

/** Adds the topic to a mapping error's message, as Confluent's converter does. */
function withTopic(error: unknown, what: string): unknown {
  if (!(error instanceof DataError) || error instanceof SchemaRegistryRequestError) return error;
  return new DataError(`${what}: ${error.message}`, { cause: error });
}

/** Confluent's ProtobufConverter (class name `io.confluent.connect.protobuf.ProtobufConverter`). */
export class ProtobufConverter {
  readonly #clients: SchemaRegistryClients | undefined;
  #configured: Configured | undefined;

  constructor(deps: ProtobufConverterDeps = {}) {
    this.#clients = deps.clients;
  }

  configure(props: Readonly<Record<string, string>>, isKey: boolean): void {
    const values = PROTOBUF_CONVERTER_CONFIG_DEF.parse(withConverterType(props, isKey));
    const settings = schemaRegistrySettingsOf(values, props);
    const dataSettings = protobufDataSettingsOf(values);
    this.#configured = {
      isKey,
      client: (this.#clients ?? systemSchemaRegistryClients()).clientFor(settings),
      data: new ProtobufData(dataSettings),
      strategy: subjectNameStrategyOf(values, isKey),
      serializer: serializerSettingsOf(values),
      compatible: new LruCache(dataSettings.cacheSize),
    };
  }

  config(): ConfigDef {
    return PROTOBUF_CONVERTER_CONFIG_DEF;
  }

  #state(): Configured {
    if (this.#configured === undefined) throw new DataError('ProtobufConverter is not configured');
    return this.#configured;
  }

  /**
   * The record's bytes: framed Protobuf; `null` for a null value (a tombstone).
   * @throws DataError for a schemaless value or one that does not fit its schema, the
   *   registry's refusal (SchemaRegistryRequestError); SchemaRegistryUnavailableError
   *   (retriable) when the registry does not answer.
   */
  async fromConnectData(
    topic: string,
    _headers: ReadonlyHeaders,
    schema: Schema | null,
    value: unknown,
  ): Promise<Uint8Array | null> {
    if (value === null || value === undefined) return null;
    const state = this.#state();
    try {
      if (schema === null) {
        throw new DataError(
          'Schemaless values are not supported: the Protobuf converter needs a schema',
        );
      }
      const writer = state.data.forConnectSchema(schema);
      const subject = subjectName(state.strategy, topic, state.isKey, writer.messageName);
      const registrySchema: RegistrySchema = {
        schemaType: 'PROTOBUF',
        schema: writer.schemaText,
        references: [],
      };
      const normalize = { normalize: state.serializer.normalize };
      if (state.serializer.mode === 'use-latest') {
        return await this.#withLatest(state, subject, registrySchema, writer, schema, value);
      }
      const payload = writer.encode(value);
      const id =
        state.serializer.mode === 'auto-register'
          ? await state.client.register(subject, registrySchema, normalize)
          : (await state.client.lookup(subject, registrySchema, normalize)).id;
      return frameProtobuf(id, writer.indexes, payload);
    } catch (error) {
      throw withTopic(error, `Failed to serialize Protobuf data from topic ${topic}`);
    }
  }

  async #withLatest(
    state: Configured,
    subject: string,
    own: RegistrySchema,
    writer: ProtobufWriter,
    schema: Schema,
    value: unknown,
  ): Promise<Uint8Array> {
    const latest = await state.client.latest(subject);
    if (latest.schemaType !== 'PROTOBUF') {
      throw new DataError(
        `The latest schema of subject ${subject} is ${latest.schemaType}, not PROTOBUF`,
      );
    }
    if (state.serializer.latestCompatibilityStrict && latest.schema !== own.schema) {
      const key = `${subject}\0${latest.id}\0${own.schema}`;
      let compatible = state.compatible.get(key);
      if (compatible === undefined) {
        compatible = await state.client.isCompatible(subject, own, latest.version);
        state.compatible.set(key, compatible);
      }
      if (!compatible) {
        throw new DataError(
          `The record's schema is not compatible with the latest version (${latest.version}, ` +
            `id ${latest.id}) of subject ${subject} (latest.compatibility.strict=true)`,
        );
      }
    }
    const parsed = await this.#parsed(state, latest.id, latest);
    const latestWriter = state.data.writerFor(
      String(latest.id),
      parsed,
      writer.messageName,
      schema,
    );
    return frameProtobuf(latest.id, latestWriter.indexes, latestWriter.encode(value));
  }

  /**
   * The Connect schema and value of the record's bytes; the null value for `null`.
   * @throws DataError without Confluent's framing, for an unknown message index, an unknown
   *   schema id (SchemaRegistryRequestError 40403), a payload that is not the message;
   *   SchemaRegistryUnavailableError (retriable) when the registry does not answer.
   */
  async toConnectData(
    topic: string,
    _headers: ReadonlyHeaders,
    bytes: Uint8Array | null,
  ): Promise<SchemaAndValue> {
    if (bytes === null) return NULL_SCHEMA_AND_VALUE;
    const state = this.#state();
    try {
      const { schemaId, indexes, payload } = unframeProtobuf(bytes);
      const registrySchema = await state.client.schemaById(schemaId);
      if (registrySchema.schemaType !== 'PROTOBUF') {
        throw new DataError(`Schema ${schemaId} is ${registrySchema.schemaType}, not PROTOBUF`);
      }
      const parsed = await this.#parsed(state, schemaId, registrySchema);
      const messageName = parsed.messageName(indexes);
      const subject = subjectName(state.strategy, topic, state.isKey, messageName);
      const version = await this.#version(state, subject, registrySchema);
      const reader = state.data.reader(String(schemaId), parsed, messageName, version);
      return { schema: reader.connectSchema, value: reader.decode(payload) };
    } catch (error) {
      throw withTopic(error, `Failed to deserialize data for topic ${topic} to Protobuf`);
    }
  }

  /** The schema's version under `subject` (Connect's schema version); `null` when not there. */
  async #version(
    state: Configured,
    subject: string,
    schema: RegistrySchema,
  ): Promise<number | null> {
    try {
      return (await state.client.lookup(subject, schema)).version;
    } catch (error) {
      const notFound =
        error instanceof SchemaRegistryRequestError &&
        (error.errorCode === ErrorCodes.SUBJECT_NOT_FOUND ||
          error.errorCode === ErrorCodes.SCHEMA_NOT_FOUND);
      if (notFound) return null;
      throw error;
    }
  }

  /** Schema `id` parsed, with the texts of its references fetched on first use. */
  async #parsed(state: Configured, id: number, schema: RegistrySchema): Promise<ParsedProto> {
    const key = String(id);
    const cached = state.data.parsed(key);
    if (cached !== undefined) return cached;
    const dependencies = new Map<string, string>();
    const pending = [...schema.references];
    while (pending.length > 0) {
      const reference = pending.shift();
      if (reference === undefined || dependencies.has(reference.name)) continue;
      const referenced = await state.client.version(reference.subject, reference.version);
      dependencies.set(reference.name, referenced.schema);
      pending.push(...referenced.references);
    }
    return state.data.parse(key, schema.schema, dependencies);
  }
}
