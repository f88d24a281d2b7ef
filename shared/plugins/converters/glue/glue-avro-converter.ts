/**
 * The AWS Glue Schema Registry library's Avro converter for Kafka Connect,
 * `com.amazonaws.services.schemaregistry.kafkaconnect.AWSKafkaAvroConverter`: Connect data ↔
 * Avro on Glue's wire format (header version 3, compression byte, the 16-byte schema version
 * id, the Avro binary, zlib-compressed with `compression=ZLIB`), the schemas in a Glue registry.
 *
 * Writing: only Connect structs, as the library (its serializer takes Avro records, enums, fixed
 * and arrays, and its AvroData hands it records only for structs: anything else fails with
 * "Unsupported type passed for serialization"). The struct's schema is mapped to Avro (`AvroData`,
 * as the AvroConverter maps it) without its optionality (the record's own schema is registered and
 * written, not a union with null), the schema named (`schemaName`, or the naming strategy: the topic by default), and its version id
 * found or registered by the client (`glue-registry-client.ts`). Reading: the version id is read,
 * its definition fetched, the value decoded with the Connect schema of that definition (no
 * registry version in it: Glue's converter sets none).
 *
 * Asynchronous only when it must be: once the version id of a schema (or the definition of an
 * id) is in the container's client cache, a conversion is synchronous.
 *
 * Errors (as the library's, wrapped in its DataException messages: `Converting Kafka Connect data
 * to byte[] failed due to serialization error: …`): Glue unreachable or busy is a
 * RetriableError; an unknown version id, an unregistered schema with auto-registration off, an
 * incompatible (FAILURE) or invalid schema, bytes not on the wire format or not Avro of their
 * schema: DataError, a record error under `errors.tolerance`.
 *
 * @example
 * const converter = new GlueAvroConverter();
 * converter.configure({ region: 'eu-west-1', 'registry.name': 'orders', schemaAutoRegistrationEnabled: 'true' }, false);
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
  Struct,
  schemaEquals,
} from 'serverless-connect/connect';
import { type AvroCodec, AvroData } from '../avro/avro-codec.js';
import { copySchema } from '../avro/schema-copy.js';
import { conversionError } from '../schema-registry/conversion-error.js';
import {
  GLUE_AVRO_CONVERTER_CONFIG_DEF,
  type GlueAvroSettings,
  parseGlueAvroSettings,
  schemaNameFor,
} from './glue-avro-converter-config.js';
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

interface Configured {
  readonly settings: GlueAvroSettings;
  readonly client: GlueSchemaRegistryClient;
  readonly avroData: AvroData;
}

/** The last schema written: the next record has it too, most of the time. */
interface LastWrite {
  readonly schema: Schema;
  readonly topic: string;
  readonly codec: AvroCodec;
  readonly schemaName: string;
}

/** The Avro binary of `value` (a struct of `write.schema`) as the record `write.codec` writes. */
function encoded(write: LastWrite, value: unknown): Uint8Array {
  if (write.codec.connectSchema === write.schema) return write.codec.encode(value);
  // An optional schema: the value again as a struct of its required copy.
  if (!(value instanceof Struct)) return write.codec.encode(value);
  if (value.schema !== write.schema && !schemaEquals(value.schema, write.schema)) {
    throw new DataError('Mismatching struct schema');
  }
  const struct = new Struct(write.codec.connectSchema);
  for (const field of write.schema.fields) struct.put(field.name, value.get(field.name));
  return write.codec.encode(struct);
}

/** The Avro codec reading the values of a version's definition. */
function readerOf(state: Configured, version: GlueSchemaDefinition): AvroCodec {
  if (version.dataFormat !== 'AVRO') {
    throw new DataError(
      `Schema version ${version.schemaVersionId} is a ${version.dataFormat} schema, not an Avro schema`,
    );
  }
  return state.avroData.forAvroSchema(version.schemaDefinition);
}

/**
 * Converts between Connect data and Avro on the Glue Schema Registry's wire format (see the
 * module notes). One instance converts keys or values of one task; its registry client is the
 * container's (shared by converters with the same registry settings).
 */
export class GlueAvroConverter implements Converter {
  readonly #clients: GlueRegistryClients;
  #state: Configured | null = null;
  #lastWrite: LastWrite | null = null;
  readonly #requiredCopies = new WeakMap<Schema, Schema>();

  /** @param clients the container's Glue clients (tests bring their own). */
  constructor(clients: GlueRegistryClients = systemGlueRegistryClients()) {
    this.#clients = clients;
  }

  config(): ConfigDef {
    return GLUE_AVRO_CONVERTER_CONFIG_DEF;
  }

  /** @throws ConfigError for an invalid config (e.g. `compression=GZIP`). */
  configure(props: Readonly<Record<string, string>>, isKey: boolean): void {
    const settings = parseGlueAvroSettings(props, isKey);
    this.#state = {
      settings,
      client: this.#clients.clientFor(settings.registry),
      avroData: new AvroData({ cacheSize: settings.avroCacheSize, ...settings.avroData }),
    };
    this.#lastWrite = null;
  }

  fromConnectData(
    topic: string,
    _headers: ReadonlyHeaders,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null | Promise<Uint8Array | null> {
    const state = this.#configured();
    let write: LastWrite;
    let id: string | Promise<string>;
    try {
      const last = this.#lastWrite;
      if (last !== null && last.schema === schema && last.topic === topic) {
        write = last;
      } else {
        if (schema === null) {
          if (value === null || value === undefined) return null;
          throw new DataError('Schemaless values are not supported by the Glue Avro converter');
        }
        const codec = state.avroData.forConnectSchema(this.#required(schema));
        if (codec.recordName === null) {
          throw new DataError(
            `Unsupported type passed for serialization: the Glue Avro converter writes Connect structs (Avro records), not ${schema.type}`,
          );
        }
        const schemaName = schemaNameFor(state.settings.naming, topic, codec.recordName);
        write = { schema, topic, codec, schemaName };
      }
      if (value === null || value === undefined) {
        if (!write.schema.optional) throw new DataError('Found null value for non-optional schema');
        return null; // a tombstone: nothing is registered
      }
      id = state.client.versionIdFor(write.schemaName, write.codec.schemaText);
      if (typeof id === 'string') {
        this.#lastWrite = write;
        return glueFrame(id, encoded(write, value), state.settings.compression);
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
    const state = this.#configured();
    let framed: ReturnType<typeof glueUnframe>;
    let version: GlueSchemaDefinition | Promise<GlueSchemaDefinition>;
    try {
      framed = glueUnframe(bytes);
      version = state.client.schemaVersion(framed.schemaVersionId);
      if (!(version instanceof Promise)) {
        const codec = readerOf(state, version);
        return { schema: codec.connectSchema, value: codec.decode(framed.payload) };
      }
    } catch (error) {
      throw conversionError(DESERIALIZE_FAILURE, error);
    }
    return this.#deserialize(state, version, framed.payload);
  }

  /**
   * `schema` without its optionality: the library registers and writes the schema of the Avro
   * record itself (`GenericContainer.getSchema()`), never a union with null.
   */
  #required(schema: Schema): Schema {
    if (!schema.optional) return schema;
    let required = this.#requiredCopies.get(schema);
    if (required === undefined) {
      required = copySchema(schema, { optional: false });
      this.#requiredCopies.set(schema, required);
    }
    return required;
  }

  #configured(): Configured {
    if (this.#state === null) throw new IllegalStateError('GlueAvroConverter is not configured');
    return this.#state;
  }

  async #serialize(
    state: Configured,
    write: LastWrite,
    pending: Promise<string>,
    value: unknown,
  ): Promise<Uint8Array> {
    try {
      const id = await pending;
      this.#lastWrite = write;
      return glueFrame(id, encoded(write, value), state.settings.compression);
    } catch (error) {
      throw conversionError(SERIALIZE_FAILURE, error);
    }
  }

  async #deserialize(
    state: Configured,
    pending: Promise<GlueSchemaDefinition>,
    payload: Uint8Array,
  ): Promise<SchemaAndValue> {
    try {
      const codec = readerOf(state, await pending);
      return { schema: codec.connectSchema, value: codec.decode(payload) };
    } catch (error) {
      throw conversionError(DESERIALIZE_FAILURE, error);
    }
  }
}
