/**
 * The registry flow Confluent's three converters share (`AbstractKafkaSchemaSerDe` and its
 * serializer and deserializer), parameterised by the format: Avro, Protobuf and JSON Schema
 * differ only in how a Connect schema becomes registry schema text, how a fetched schema is
 * parsed, and what they write and read with.
 *
 * Writing: the record's writer (`W`, the format's mapping of a Connect schema) is named by the
 * subject name strategy, and its target (`T`: the id, and what values are written with) found as
 * `auto.register.schemas` and `use.latest.version` say: registered, looked up, or the subject's
 * latest version, checked with `latest.compatibility.strict` to be able to read the record's
 * schema (Confluent: `latestVersion.isBackwardCompatible(schema)`). Registered and looked-up
 * targets never change and are kept per (writer, topic); the latest version is asked of the
 * client each time (which caches it for `latest.cache.ttl.sec`).
 *
 * Reading: the schema of an id is fetched, made into a reading plan by the format, its subject
 * named from the plan's record name, its version looked up under that subject (Connect's schema
 * version, as Confluent's deserializer does) and the reader (`R`) kept per (id, key).
 *
 * The caches are bounded by `schemas.cache.size`; the registry's own answers are cached by the
 * container's {@link SchemaRegistryClient}.
 */
import { DataError } from 'serverless-connect/connect';
import { LruCache } from '../lru-cache.js';
import { ErrorCodes, SchemaRegistryRequestError } from './errors.js';
import type {
  RegisteredSchema,
  RegistrySchema,
  SchemaRegistryClient,
  SchemaType,
} from './schema-registry-client.js';
import type { SerializerSettings } from './serializer-config.js';
import { type SubjectNameStrategy, subjectName } from './subject-strategy.js';

/** What the format's hooks may ask of the registry. */
export interface RegistryScope {
  readonly client: SchemaRegistryClient;
  readonly subject: string;
}

/** A fetched schema made ready to read: its record name (for the subject) and its reader. */
export interface ReadPlan<R> {
  readonly recordName: string | null;
  reader(version: number | null): R;
}

/** How one format takes part in the registry flow. */
export interface RegistryFormat<W, T, R, H> {
  /** The registry's schema type of the format. */
  readonly schemaType: SchemaType;
  /** The converter's name in messages (`AvroConverter`). */
  readonly converterName: string;
  /** Whether fetched schemas may have references (the format then resolves them). */
  readonly references: boolean;
  /**
   * Whether a reader whose schema is not registered under its subject gets the version `null`
   * rather than the registry's 404.
   */
  readonly unversionedReaders: boolean;
  /** The schema to register or look up for `writer`. */
  registrySchema(writer: W): RegistrySchema;
  /** The record name the subject name strategies use (`null` for an unnamed schema). */
  recordName(writer: W): string | null;
  /** The target of `writer`'s values under its own registered schema `id`. */
  ownTarget(writer: W, id: number): T;
  /** The target of `writer`'s values written with the subject's latest version. */
  latestTarget(writer: W, latest: RegisteredSchema, scope: RegistryScope): T | Promise<T>;
  /**
   * Why `latest` cannot read values of `writer`'s schema (`latest.compatibility.strict`), or
   * `null` when it can.
   */
  incompatibility(
    writer: W,
    latest: RegisteredSchema,
    scope: RegistryScope,
  ): string | null | Promise<string | null>;
  /** The reading plan of schema `id`; `hint` is what the payload says besides the id. */
  readPlan(
    id: number,
    schema: RegistrySchema,
    hint: H,
    client: SchemaRegistryClient,
  ): ReadPlan<R> | Promise<ReadPlan<R>>;
}

/** The parts of a converter's settings the flow needs. */
export interface RegistrySerdeSettings {
  readonly isKey: boolean;
  readonly subjectNameStrategy: SubjectNameStrategy;
  readonly serializer: SerializerSettings;
  /** `schemas.cache.size`: the bound of each cache. */
  readonly cacheSize: number;
}

function getOrAdd<K, V>(cache: LruCache<K, Map<string, V>>, key: K): Map<string, V> {
  let byKey = cache.get(key);
  if (byKey === undefined) {
    byKey = new Map();
    cache.set(key, byKey);
  }
  return byKey;
}

/** One converter's registry flow (see the module notes). */
export class RegistrySerde<W, T, R, H = void> {
  readonly #format: RegistryFormat<W, T, R, H>;
  readonly #client: SchemaRegistryClient;
  readonly #settings: RegistrySerdeSettings;
  readonly #targets: LruCache<W, Map<string, T>>;
  readonly #readers: LruCache<number, Map<string, R>>;
  /** `latest.compatibility.strict` answers by subject, latest id and the record's schema. */
  readonly #incompatibilities: LruCache<string, string | null>;

  constructor(
    format: RegistryFormat<W, T, R, H>,
    client: SchemaRegistryClient,
    settings: RegistrySerdeSettings,
  ) {
    this.#format = format;
    this.#client = client;
    this.#settings = settings;
    this.#targets = new LruCache(settings.cacheSize);
    this.#readers = new LruCache(settings.cacheSize);
    this.#incompatibilities = new LruCache(settings.cacheSize);
  }

  /** The target of `writer` in `topic` when known without the registry. */
  cachedTarget(writer: W, topic: string): T | undefined {
    return this.#targets.get(writer)?.get(topic);
  }

  /**
   * The target of `writer`'s values in `topic`, from the registry.
   * @throws SchemaRegistryRequestError (a DataError) for the registry's refusal,
   *   SchemaRegistryUnavailableError when it does not answer, DataError for a latest version of
   *   another format or one that cannot read the record's schema.
   */
  async target(writer: W, topic: string): Promise<T> {
    const { isKey, subjectNameStrategy, serializer } = this.#settings;
    const format = this.#format;
    const client = this.#client;
    const subject = subjectName(subjectNameStrategy, topic, isKey, format.recordName(writer));
    const options = { normalize: serializer.normalize };
    let id: number;
    switch (serializer.mode) {
      case 'auto-register':
        id = await client.register(subject, format.registrySchema(writer), options);
        break;
      case 'lookup':
        id = (await client.lookup(subject, format.registrySchema(writer), options)).id;
        break;
      case 'use-latest':
        // Never kept here: the latest version changes (the client caches it for a while).
        return this.#latestTarget(writer, subject);
    }
    const target = format.ownTarget(writer, id);
    getOrAdd(this.#targets, writer).set(topic, target);
    return target;
  }

  /** The reader of schema `id` under `key` (the topic, and what else tells readers apart). */
  cachedReader(id: number, key: string): R | undefined {
    return this.#readers.get(id)?.get(key);
  }

  /**
   * The reader of schema `id` in `topic`, kept under `key`.
   * @throws SchemaRegistryRequestError 40403 for an unknown id (a DataError), DataError for a
   *   schema of another format, SchemaRegistryUnavailableError when the registry does not answer.
   */
  async reader(id: number, topic: string, key: string, hint: H): Promise<R> {
    const { isKey, subjectNameStrategy } = this.#settings;
    const schema = this.#checked(await this.#client.schemaById(id), `Schema ${id}`);
    const plan = await this.#format.readPlan(id, schema, hint, this.#client);
    const subject = subjectName(subjectNameStrategy, topic, isKey, plan.recordName);
    const reader = plan.reader(await this.#version(subject, schema));
    getOrAdd(this.#readers, id).set(key, reader);
    return reader;
  }

  async #latestTarget(writer: W, subject: string): Promise<T> {
    const format = this.#format;
    const scope = { client: this.#client, subject };
    const latest = await this.#client.latest(subject);
    this.#checked(latest, `The latest version (${latest.version}) of subject ${subject}`);
    const own = format.registrySchema(writer);
    if (this.#settings.serializer.latestCompatibilityStrict && latest.schema !== own.schema) {
      const key = `${subject}\0${latest.id}\0${own.schema}`;
      let problem = this.#incompatibilities.get(key);
      if (problem === undefined) {
        problem = await format.incompatibility(writer, latest, scope);
        this.#incompatibilities.set(key, problem);
      }
      if (problem !== null) {
        throw new DataError(
          `Incompatible schema ${latest.schema} of type ${latest.schemaType} for schema ` +
            `${own.schema}: ${problem}. Set latest.compatibility.strict=false to disable this check`,
        );
      }
    }
    return format.latestTarget(writer, latest, scope);
  }

  /** `schema` when the format can use it; DataError for another format or references. */
  #checked<S extends RegistrySchema>(schema: S, what: string): S {
    const format = this.#format;
    if (schema.schemaType !== format.schemaType) {
      throw new DataError(`${what} is a ${schema.schemaType} schema, not ${format.schemaType}`);
    }
    if (!format.references && schema.references.length > 0) {
      throw new DataError(
        `${what} has schema references, which the ${format.converterName} does not resolve`,
      );
    }
    return schema;
  }

  /** The version of `schema` under `subject` (Connect's schema version). */
  async #version(subject: string, schema: RegistrySchema): Promise<number | null> {
    try {
      return (await this.#client.lookup(subject, schema)).version;
    } catch (error) {
      const notFound =
        error instanceof SchemaRegistryRequestError &&
        (error.errorCode === ErrorCodes.SUBJECT_NOT_FOUND ||
          error.errorCode === ErrorCodes.SCHEMA_NOT_FOUND);
      if (notFound && this.#format.unversionedReaders) return null;
      throw error;
    }
  }
}
