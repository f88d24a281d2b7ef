/**
 * Confluent's `io.confluent.connect.avro.AvroConverter`: Connect data ↔ Avro on Confluent's wire
 * format (magic byte 0, the schema's registry id, Avro binary), the schema registered with and
 * fetched from a Confluent-compatible Schema Registry.
 *
 * Writing: the Connect schema is mapped to Avro (`AvroData`, cached per schema object), its
 * subject named by the subject name strategy, and its id found as `auto.register.schemas`,
 * `use.latest.version` say: registered (a new version when it is new), looked up, or the
 * subject's latest version (checked to be able to read the record's schema when
 * `latest.compatibility.strict`). Reading: the id is read, the schema fetched by id and its
 * version looked up under the subject (as Confluent's deserializer does), the value decoded with
 * the Connect schema carrying that version.
 *
 * Asynchronous only when it must be: once a schema's id (or an id's schema) is known, a
 * conversion is synchronous, from this converter's own memo and the container's registry client
 * caches; the registry is called once per new schema per container (twice to read: the schema,
 * its version). `use.latest.version` asks the client for the latest version on every record (a
 * promise, cached by the client for `latest.cache.ttl.sec`).
 *
 * Errors (`conversion-error.ts`): the registry unreachable is a RetriableError (retried per
 * `errors.retry.*`); an unknown id, an incompatible (409) or invalid schema, bytes that are not
 * the wire format or not Avro of their schema, a value that does not fit its schema: DataError,
 * a record error under `errors.tolerance`, with the registry's message.
 *
 * @example
 * const converter = new AvroConverter();
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
import { conversionError } from '../schema-registry/conversion-error.js';
import { type RegistryFormat, RegistrySerde } from '../schema-registry/registry-serde.js';
import {
  type SchemaRegistryClients,
  systemSchemaRegistryClients,
} from '../schema-registry/schema-registry-client.js';
import { HEADER_SIZE, unframe, writeHeader } from '../schema-registry/wire-format.js';
import { type AvroCodec, AvroData, resolutionProblem } from './avro-codec.js';
import { AVRO_CONVERTER_CONFIG_DEF, parseAvroConverterSettings } from './avro-converter-config.js';
import { recordFullName } from './avro-data-options.js';
import { projectValue } from './project-value.js';

/** Where the values of one schema go: the registry id, and the codec writing them. */
interface WriteTarget {
  readonly id: number;
  /** The record's own codec, or the latest version's with `use.latest.version`. */
  readonly writer: AvroCodec;
}

/** What `configure` builds. */
interface Configured {
  readonly avroData: AvroData;
  readonly serde: RegistrySerde<AvroCodec, WriteTarget, AvroCodec>;
}

/** The last schema written: the next record has it too, most of the time. */
interface LastWrite {
  readonly schema: Schema;
  readonly topic: string;
  readonly codec: AvroCodec;
  readonly target: WriteTarget;
}

/** The last schema id read. */
interface LastRead {
  readonly id: number;
  readonly topic: string;
  readonly codec: AvroCodec;
}

const serializeFailure = (topic: string) => `Failed to serialize Avro data from topic ${topic}`;
const deserializeFailure = (topic: string) =>
  `Failed to deserialize data for topic ${topic} to Avro`;

/** `value` in Confluent's wire format: the header, then the Avro binary (one allocation). */
function wireBytes(codec: AvroCodec, target: WriteTarget, value: unknown): Uint8Array {
  const { writer } = target;
  const bytes =
    writer === codec
      ? codec.encode(value, HEADER_SIZE)
      : writer.encode(projectValue(value, writer.connectSchema), HEADER_SIZE);
  return writeHeader(bytes, target.id);
}

/** Avro in the registry flow: codecs write and read, a latest version must resolve the record's. */
function avroFormat(avroData: AvroData): RegistryFormat<AvroCodec, WriteTarget, AvroCodec, void> {
  const latestCodec = (latest: { schema: string; version: number }) =>
    avroData.forAvroSchema(latest.schema, latest.version);
  return {
    schemaType: 'AVRO',
    converterName: 'AvroConverter',
    references: false,
    unversionedReaders: false,
    registrySchema: (codec) => ({ schemaType: 'AVRO', schema: codec.schemaText, references: [] }),
    recordName: (codec) => codec.recordName,
    ownTarget: (codec, id) => ({ id, writer: codec }),
    latestTarget: (_codec, latest) => ({ id: latest.id, writer: latestCodec(latest) }),
    incompatibility: (codec, latest) => resolutionProblem(latestCodec(latest), codec),
    readPlan: (_id, schema) => ({
      recordName: recordFullName(schema.schema),
      reader: (version) => avroData.forAvroSchema(schema.schema, version),
    }),
  };
}

/**
 * Converts between Connect data and Avro on Confluent's wire format (see the module notes).
 * One instance converts keys or values of one task; its registry client is the container's
 * (shared by converters with the same registry settings).
 */
export class AvroConverter implements Converter {
  readonly #clients: SchemaRegistryClients;
  #state: Configured | null = null;
  #lastWrite: LastWrite | null = null;
  #lastRead: LastRead | null = null;

  /** @param clients the container's registry clients (tests bring their own). */
  constructor(clients: SchemaRegistryClients = systemSchemaRegistryClients()) {
    this.#clients = clients;
  }

  config(): ConfigDef {
    return AVRO_CONVERTER_CONFIG_DEF;
  }

  /** @throws ConfigError for an invalid config (e.g. no `schema.registry.url`). */
  configure(props: Readonly<Record<string, string>>, isKey: boolean): void {
    const settings = parseAvroConverterSettings(props, isKey);
    const avroData = new AvroData({ cacheSize: settings.cacheSize, ...settings.avroData });
    const client = this.#clients.clientFor(settings.registry);
    this.#state = { avroData, serde: new RegistrySerde(avroFormat(avroData), client, settings) };
    this.#lastWrite = null;
    this.#lastRead = null;
  }

  fromConnectData(
    topic: string,
    _headers: ReadonlyHeaders,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null | Promise<Uint8Array | null> {
    const last = this.#lastWrite;
    if (
      last !== null &&
      last.schema === schema &&
      last.topic === topic &&
      value !== null &&
      value !== undefined
    ) {
      try {
        return wireBytes(last.codec, last.target, value);
      } catch (error) {
        throw conversionError(serializeFailure(topic), error);
      }
    }
    const state = this.#configured();
    let codec: AvroCodec;
    try {
      if (schema === null) {
        if (value === null || value === undefined) return null;
        throw new DataError('Schemaless values are not supported by the AvroConverter');
      }
      codec = state.avroData.forConnectSchema(schema);
      if (value === null || value === undefined) {
        if (!schema.optional) throw new DataError('Found null value for non-optional schema');
        return null; // a tombstone: nothing is registered
      }
      const target = state.serde.cachedTarget(codec, topic);
      if (target !== undefined) {
        this.#lastWrite = { schema, topic, codec, target };
        return wireBytes(codec, target, value);
      }
    } catch (error) {
      throw conversionError(serializeFailure(topic), error);
    }
    return this.#serialize(state, topic, codec, value);
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
      const last = this.#lastRead;
      const codec =
        last !== null && last.id === framed.schemaId && last.topic === topic
          ? last.codec
          : state.serde.cachedReader(framed.schemaId, topic);
      if (codec !== undefined) {
        this.#lastRead = { id: framed.schemaId, topic, codec };
        return { schema: codec.connectSchema, value: codec.decode(framed.payload) };
      }
    } catch (error) {
      throw conversionError(deserializeFailure(topic), error);
    }
    return this.#deserialize(state, topic, framed.schemaId, framed.payload);
  }

  #configured(): Configured {
    if (this.#state === null) throw new IllegalStateError('AvroConverter is not configured');
    return this.#state;
  }

  async #serialize(
    state: Configured,
    topic: string,
    codec: AvroCodec,
    value: unknown,
  ): Promise<Uint8Array> {
    try {
      const target = await state.serde.target(codec, topic);
      return wireBytes(codec, target, value);
    } catch (error) {
      throw conversionError(serializeFailure(topic), error);
    }
  }

  async #deserialize(
    state: Configured,
    topic: string,
    id: number,
    payload: Uint8Array,
  ): Promise<SchemaAndValue> {
    try {
      const codec = await state.serde.reader(id, topic, topic, undefined);
      this.#lastRead = { id, topic, codec };
      return { schema: codec.connectSchema, value: codec.decode(payload) };
    } catch (error) {
      throw conversionError(deserializeFailure(topic), error);
    }
  }
}
