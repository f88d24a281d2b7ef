/**
 * The core of every Glue converter (the AWS library's `GlueSchemaRegistryKafkaSerializer` and
 * `...Deserializer` as its Kafka Connect converters use them), whatever the data format: a
 * {@link GlueFormat} maps Connect data to its format's definition and payload, this class does
 * the rest once for all of them.
 *
 * Writing: the value's writer (cached per Connect schema), the schema named (`schemaName`, or the
 * naming strategy: the topic by default), its version id found or registered by the container's
 * client (`glue-registry-client.ts`, with the format's `DataFormat`), the payload framed on
 * Glue's wire format (`glue-wire-format.ts`: header version 3, compression byte, the 16-byte
 * schema version id, zlib with `compression=ZLIB`). A null value is no bytes (a tombstone,
 * nothing registered) unless its schema is required. Reading: the version id is read, its
 * definition fetched once per container, checked to be of the format, and read with the
 * format's reader (cached per version id).
 *
 * Asynchronous only when it must be: once the version id of a schema (or the definition of an
 * id) is in the container's client cache, a conversion is synchronous.
 *
 * Errors (as the library's, wrapped in its DataException messages: `Converting Kafka Connect data
 * to byte[] failed due to serialization error: …`): Glue unreachable or busy is a
 * RetriableError; an unknown version id, an unregistered schema with auto-registration off, an
 * incompatible (FAILURE) or invalid schema, bytes not on the wire format or not of their schema:
 * DataError, a record error under `errors.tolerance`.
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
import { LruCache } from '../lru-cache.js';
import { conversionError } from '../schema-registry/conversion-error.js';
import { type GlueDataFormat, type GlueSettings, schemaNameFor } from './glue-converter-config.js';
import {
  type GlueRegistryClients,
  type GlueSchemaDefinition,
  type GlueSchemaRegistryClient,
  systemGlueRegistryClients,
} from './glue-registry-client.js';
import { glueFrame, glueUnframe } from './glue-wire-format.js';

const SERIALIZE_FAILURE =
  'Converting Kafka Connect data to byte[] failed due to serialization error';
const DESERIALIZE_FAILURE =
  'Converting byte[] to Kafka Connect data failed due to serialization error';

/** How the values of one Connect schema are written in a format. */
export interface GlueWriter {
  /** The schema definition registered (and looked up) for these values. */
  readonly definition: string;
  /** The record's name, for `AWSSchemaNamingStrategyConnectNameImpl`; `null`: the topic. */
  readonly recordName: string | null;
  /** The payload of a value (not null). @throws DataError when it does not fit the schema. */
  encode(value: unknown): Uint8Array;
}

/** How the payloads of one schema version are read. */
export interface GlueReader {
  /** @throws DataError for a payload that is not of the version's schema. */
  read(payload: Uint8Array): SchemaAndValue;
}

/** A data format of the Glue converters: the Connect ↔ format mapping, no registry, no framing. */
export interface GlueFormat {
  readonly dataFormat: GlueDataFormat;
  /** Writers and readers kept per converter (each way). */
  readonly cacheSize: number;
  /** @throws DataError for a Connect schema the format does not write. */
  writerFor(schema: Schema): GlueWriter;
  /** @throws DataError for a definition that is not a valid schema of the format. */
  readerFor(version: GlueSchemaDefinition): GlueReader;
}

/** What a configured converter is made of. */
export interface GlueConfigured {
  readonly settings: GlueSettings;
  readonly format: GlueFormat;
}

interface State extends GlueConfigured {
  readonly client: GlueSchemaRegistryClient;
  readonly writers: LruCache<Schema, GlueWriter>;
  readonly readers: LruCache<string, GlueReader>;
}

/** The last schema written: the next record has it too, most of the time. */
interface LastWrite {
  readonly schema: Schema;
  readonly topic: string;
  readonly writer: GlueWriter;
  readonly schemaName: string;
}

/**
 * A Glue converter of one data format (see the module notes). One instance converts keys or
 * values of one task; its registry client is the container's (shared by converters with the
 * same registry settings).
 */
export abstract class GlueConverter implements Converter {
  readonly #clients: GlueRegistryClients;
  readonly #name: string;
  #state: State | null = null;
  #lastWrite: LastWrite | null = null;

  /**
   * @param name the converter's name in messages (`Glue Avro converter`).
   * @param clients the container's Glue clients (tests bring their own).
   */
  protected constructor(name: string, clients: GlueRegistryClients = systemGlueRegistryClients()) {
    this.#name = name;
    this.#clients = clients;
  }

  abstract config(): ConfigDef;

  /** The settings and format of `props`. @throws ConfigError naming the offending key. */
  protected abstract configured(
    props: Readonly<Record<string, string>>,
    isKey: boolean,
  ): GlueConfigured;

  /** @throws ConfigError for an invalid config (e.g. `compression=GZIP`). */
  configure(props: Readonly<Record<string, string>>, isKey: boolean): void {
    const { settings, format } = this.configured(props, isKey);
    this.#state = {
      settings,
      format,
      client: this.#clients.clientFor(settings.registry),
      writers: new LruCache(format.cacheSize),
      readers: new LruCache(format.cacheSize),
    };
    this.#lastWrite = null;
  }

  fromConnectData(
    topic: string,
    _headers: ReadonlyHeaders,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null | Promise<Uint8Array | null> {
    const state = this.#configuredState();
    let write: LastWrite;
    let id: string | Promise<string>;
    try {
      if (value === null || value === undefined) {
        if (schema !== null && !schema.optional) {
          throw new DataError('Found null value for non-optional schema');
        }
        return null; // a tombstone: nothing is registered
      }
      if (schema === null) {
        throw new DataError(`Schemaless values are not supported by the ${this.#name}`);
      }
      const last = this.#lastWrite;
      write =
        last !== null && last.schema === schema && last.topic === topic
          ? last
          : this.#write(state, topic, schema);
      id = state.client.versionIdFor(
        write.schemaName,
        write.writer.definition,
        state.format.dataFormat,
      );
      if (typeof id === 'string') {
        this.#lastWrite = write;
        return glueFrame(id, write.writer.encode(value), state.settings.compression);
      }
    } catch (error) {
      throw conversionError(SERIALIZE_FAILURE, error);
    }
    return this.#serialize(state, write, id, value);
  }

  toConnectData(
    _topic: string,
    _headers: ReadonlyHeaders,
    bytes: Uint8Array | null,
  ): SchemaAndValue | Promise<SchemaAndValue> {
    if (bytes === null) return NULL_SCHEMA_AND_VALUE;
    const state = this.#configuredState();
    let framed: ReturnType<typeof glueUnframe>;
    let version: GlueSchemaDefinition | Promise<GlueSchemaDefinition>;
    try {
      framed = glueUnframe(bytes);
      const reader = state.readers.get(framed.schemaVersionId);
      version = state.client.schemaVersion(framed.schemaVersionId);
      if (!(version instanceof Promise)) {
        return (reader ?? this.#reader(state, version)).read(framed.payload);
      }
    } catch (error) {
      throw conversionError(DESERIALIZE_FAILURE, error);
    }
    return this.#deserialize(state, version, framed.payload);
  }

  #configuredState(): State {
    if (this.#state === null) throw new IllegalStateError(`The ${this.#name} is not configured`);
    return this.#state;
  }

  #write(state: State, topic: string, schema: Schema): LastWrite {
    let writer = state.writers.get(schema);
    if (writer === undefined) {
      writer = state.format.writerFor(schema);
      state.writers.set(schema, writer);
    }
    const schemaName = schemaNameFor(state.settings.naming, topic, writer.recordName);
    return { schema, topic, writer, schemaName };
  }

  #reader(state: State, version: GlueSchemaDefinition): GlueReader {
    const { dataFormat } = state.format;
    if (version.dataFormat !== dataFormat) {
      throw new DataError(
        `Schema version ${version.schemaVersionId} has data format ${version.dataFormat}, not ${dataFormat}`,
      );
    }
    const reader = state.format.readerFor(version);
    state.readers.set(version.schemaVersionId, reader);
    return reader;
  }

  async #serialize(
    state: State,
    write: LastWrite,
    pending: Promise<string>,
    value: unknown,
  ): Promise<Uint8Array> {
    try {
      const id = await pending;
      this.#lastWrite = write;
      return glueFrame(id, write.writer.encode(value), state.settings.compression);
    } catch (error) {
      throw conversionError(SERIALIZE_FAILURE, error);
    }
  }

  async #deserialize(
    state: State,
    pending: Promise<GlueSchemaDefinition>,
    payload: Uint8Array,
  ): Promise<SchemaAndValue> {
    try {
      const version = await pending;
      const reader = state.readers.get(version.schemaVersionId) ?? this.#reader(state, version);
      return reader.read(payload);
    } catch (error) {
      throw conversionError(DESERIALIZE_FAILURE, error);
    }
  }
}
