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
import { SchemaRegistryRequestError } from '../schema-registry/errors.js';
import { type RegistryFormat, RegistrySerde } from '../schema-registry/registry-serde.js';
import {
  type RegistrySchema,
  type SchemaRegistryClient,
  type SchemaRegistryClients,
  systemSchemaRegistryClients,
} from '../schema-registry/schema-registry-client.js';
import { frameProtobuf, unframeProtobuf } from './message-indexes.js';
import type { ParsedProto } from './proto-root.js';
import {
  PROTOBUF_CONVERTER_CONFIG_DEF,
  parseProtobufConverterSettings,
} from './protobuf-converter-config.js';
import { ProtobufData, type ProtobufReader, type ProtobufWriter } from './protobuf-data.js';

/** What a converter is built from; tests pass their own registry clients. */
export interface ProtobufConverterDeps {
  readonly clients?: SchemaRegistryClients;
}

/** Where values of one Connect schema go: the id, and the writer of that schema's message. */
interface WriteTarget {
  readonly id: number;
  readonly writer: ProtobufWriter;
}

interface Configured {
  readonly data: ProtobufData;
  /** Writers are Connect schemas; readers are told apart by the message indexes. */
  readonly serde: RegistrySerde<Schema, WriteTarget, ProtobufReader, readonly number[]>;
}

/** Adds the topic to a mapping error's message, as Confluent's converter does. */
function withTopic(error: unknown, what: string): unknown {
  if (!(error instanceof DataError) || error instanceof SchemaRegistryRequestError) return error;
  return new DataError(`${what}: ${error.message}`, { cause: error });
}

/** Schema `id` parsed, with the texts of its references fetched on first use. */
async function parsedSchema(
  data: ProtobufData,
  client: SchemaRegistryClient,
  id: number,
  schema: RegistrySchema,
): Promise<ParsedProto> {
  const key = String(id);
  const cached = data.parsed(key);
  if (cached !== undefined) return cached;
  const dependencies = new Map<string, string>();
  const pending = [...schema.references];
  while (pending.length > 0) {
    const reference = pending.shift();
    if (reference === undefined || dependencies.has(reference.name)) continue;
    const referenced = await client.version(reference.subject, reference.version);
    dependencies.set(reference.name, referenced.schema);
    pending.push(...referenced.references);
  }
  return data.parse(key, schema.schema, dependencies);
}

/**
 * Protobuf in the registry flow: a Connect schema's .proto is registered; a latest version is
 * written as the message of the same name (fields matched by name) and checked by the registry
 * (`latest.compatibility.strict`); readers resolve references and pick the message by indexes.
 */
function protobufFormat(
  data: ProtobufData,
): RegistryFormat<Schema, WriteTarget, ProtobufReader, readonly number[]> {
  const registrySchema = (schema: Schema): RegistrySchema => ({
    schemaType: 'PROTOBUF',
    schema: data.forConnectSchema(schema).schemaText,
    references: [],
  });
  return {
    schemaType: 'PROTOBUF',
    converterName: 'ProtobufConverter',
    references: true,
    unversionedReaders: true,
    registrySchema,
    recordName: (schema) => data.forConnectSchema(schema).messageName,
    ownTarget: (schema, id) => ({ id, writer: data.forConnectSchema(schema) }),
    latestTarget: async (schema, latest, { client }) => {
      const parsed = await parsedSchema(data, client, latest.id, latest);
      const { messageName } = data.forConnectSchema(schema);
      return {
        id: latest.id,
        writer: data.writerFor(String(latest.id), parsed, messageName, schema),
      };
    },
    incompatibility: async (schema, latest, { client, subject }) =>
      (await client.isCompatible(subject, registrySchema(schema), latest.version))
        ? null
        : `the registry finds it incompatible with version ${latest.version} of ${subject}`,
    readPlan: async (id, schema, indexes, client) => {
      const parsed = await parsedSchema(data, client, id, schema);
      const messageName = parsed.messageName(indexes);
      return {
        recordName: messageName,
        reader: (version) => data.reader(String(id), parsed, messageName, version),
      };
    },
  };
}

/** Confluent's ProtobufConverter (class name `io.confluent.connect.protobuf.ProtobufConverter`). */
export class ProtobufConverter {
  readonly #clients: SchemaRegistryClients | undefined;
  #configured: Configured | undefined;

  constructor(deps: ProtobufConverterDeps = {}) {
    this.#clients = deps.clients;
  }

  configure(props: Readonly<Record<string, string>>, isKey: boolean): void {
    const settings = parseProtobufConverterSettings(props, isKey);
    const data = new ProtobufData(settings.data);
    const client = (this.#clients ?? systemSchemaRegistryClients()).clientFor(settings.registry);
    this.#configured = { data, serde: new RegistrySerde(protobufFormat(data), client, settings) };
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
    const { serde } = this.#state();
    try {
      if (schema === null) {
        throw new DataError(
          'Schemaless values are not supported: the Protobuf converter needs a schema',
        );
      }
      const { id, writer } =
        serde.cachedTarget(schema, topic) ?? (await serde.target(schema, topic));
      return frameProtobuf(id, writer.indexes, writer.encode(value));
    } catch (error) {
      throw withTopic(error, `Failed to serialize Protobuf data from topic ${topic}`);
    }
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
    const { serde } = this.#state();
    try {
      const { schemaId, indexes, payload } = unframeProtobuf(bytes);
      const key = `${topic}\0${indexes.join(',')}`;
      const reader =
        serde.cachedReader(schemaId, key) ?? (await serde.reader(schemaId, topic, key, indexes));
      return { schema: reader.connectSchema, value: reader.decode(payload) };
    } catch (error) {
      throw withTopic(error, `Failed to deserialize data for topic ${topic} to Protobuf`);
    }
  }
}
