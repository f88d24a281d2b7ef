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
import { LruCache } from '../lru-cache.js';
import { conversionError } from '../schema-registry/conversion-error.js';
import {
  type RegistrySchema,
  type SchemaRegistryClient,
  type SchemaRegistryClients,
  systemSchemaRegistryClients,
} from '../schema-registry/schema-registry-client.js';
import { subjectName } from '../schema-registry/subject-strategy.js';
import { HEADER_SIZE, unframe, writeHeader } from '../schema-registry/wire-format.js';
import { type AvroCodec, AvroData, resolutionProblem } from './avro-codec.js';
import {
  AVRO_CONVERTER_CONFIG_DEF,
  type AvroConverterSettings,
  parseAvroConverterSettings,
} from './avro-converter-config.js';
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
  readonly settings: AvroConverterSettings;
  readonly isKey: boolean;
  readonly client: SchemaRegistryClient;
  readonly avroData: AvroData;
  /** The id of each (codec, topic) registered or looked up (they never change). */
  readonly targets: LruCache<AvroCodec, Map<string, WriteTarget>>;
  /** The reading codec of each (schema id, topic) (the version is the subject's). */
  readonly readers: LruCache<number, Map<string, AvroCodec>>;
  /** Whether the record's codec can be read by a latest version's (`latest.compatibility.strict`). */
  readonly resolutions: WeakMap<AvroCodec, WeakMap<AvroCodec, string | null>>;
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

/** The Avro binary of `value` (of `codec`'s schema) as `target` writes it. */
/** `value` in Confluent's wire format: the header, then the Avro binary (one allocation). */
function wireBytes(codec: AvroCodec, target: WriteTarget, value: unknown): Uint8Array {
  const { writer } = target;
  const bytes =
    writer === codec
      ? codec.encode(value, HEADER_SIZE)
      : writer.encode(projectValue(value, writer.connectSchema), HEADER_SIZE);
  return writeHeader(bytes, target.id);
}

function avroSchemaOf(codec: AvroCodec): RegistrySchema {
  return { schemaType: 'AVRO', schema: codec.schemaText, references: [] };
}

/** The Avro schema a registry answered with; DataError for another format or references. */
function checkedAvro(schema: RegistrySchema, what: string): RegistrySchema {
  if (schema.schemaType !== 'AVRO') {
    throw new DataError(`${what} is a ${schema.schemaType} schema, not an Avro schema`);
  }
  if (schema.references.length > 0) {
    throw new DataError(`${what} has schema references, which the AvroConverter does not resolve`);
  }
  return schema;
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
    this.#state = {
      settings,
      isKey,
      client: this.#clients.clientFor(settings.registry),
      avroData: new AvroData({ cacheSize: settings.cacheSize, ...settings.avroData }),
      targets: new LruCache(settings.cacheSize),
      readers: new LruCache(settings.cacheSize),
      resolutions: new WeakMap(),
    };
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
      const target = state.targets.get(codec)?.get(topic);
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
          : state.readers.get(framed.schemaId)?.get(topic);
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
      const target = await this.#writeTarget(state, topic, codec);
      return wireBytes(codec, target, value);
    } catch (error) {
      throw conversionError(serializeFailure(topic), error);
    }
  }

  /** The id and writer of `codec`'s values in `topic`, from the registry. */
  async #writeTarget(state: Configured, topic: string, codec: AvroCodec): Promise<WriteTarget> {
    const { settings, client, isKey } = state;
    const subject = subjectName(settings.subjectNameStrategy, topic, isKey, codec.recordName);
    const options = { normalize: settings.serializer.normalize };
    let target: WriteTarget;
    switch (settings.serializer.mode) {
      case 'auto-register':
        target = {
          id: await client.register(subject, avroSchemaOf(codec), options),
          writer: codec,
        };
        break;
      case 'lookup':
        target = {
          id: (await client.lookup(subject, avroSchemaOf(codec), options)).id,
          writer: codec,
        };
        break;
      case 'use-latest':
        // Never remembered here: the latest version changes (the client caches it for a while).
        return this.#latestTarget(state, subject, codec);
    }
    let byTopic = state.targets.get(codec);
    if (byTopic === undefined) {
      byTopic = new Map();
      state.targets.set(codec, byTopic);
    }
    byTopic.set(topic, target);
    return target;
  }

  /** The subject's latest version as the writer (`use.latest.version`). */
  async #latestTarget(state: Configured, subject: string, codec: AvroCodec): Promise<WriteTarget> {
    const latest = await state.client.latest(subject);
    const what = `The latest version (${latest.version}) of subject ${subject}`;
    const writer = state.avroData.forAvroSchema(checkedAvro(latest, what).schema, latest.version);
    if (state.settings.serializer.latestCompatibilityStrict) {
      let byWriter = state.resolutions.get(writer);
      if (byWriter === undefined) {
        byWriter = new WeakMap();
        state.resolutions.set(writer, byWriter);
      }
      let problem = byWriter.get(codec);
      if (problem === undefined) {
        problem = resolutionProblem(writer, codec);
        byWriter.set(codec, problem);
      }
      if (problem !== null) {
        throw new DataError(
          `Incompatible schema ${writer.schemaText} for schema ${codec.schemaText}: ${problem}. ` +
            'Set latest.compatibility.strict=false to disable this check',
        );
      }
    }
    return { id: latest.id, writer };
  }

  async #deserialize(
    state: Configured,
    topic: string,
    id: number,
    payload: Uint8Array,
  ): Promise<SchemaAndValue> {
    try {
      const { settings, client, isKey } = state;
      const schema = checkedAvro(await client.schemaById(id), `Schema ${id}`);
      const subject = subjectName(
        settings.subjectNameStrategy,
        topic,
        isKey,
        recordFullName(schema.schema),
      );
      const { version } = await client.lookup(subject, schema);
      const codec = state.avroData.forAvroSchema(schema.schema, version);
      let byTopic = state.readers.get(id);
      if (byTopic === undefined) {
        byTopic = new Map();
        state.readers.set(id, byTopic);
      }
      byTopic.set(topic, codec);
      this.#lastRead = { id, topic, codec };
      return { schema: codec.connectSchema, value: codec.decode(payload) };
    } catch (error) {
      throw conversionError(deserializeFailure(topic), error);
    }
  }
}
