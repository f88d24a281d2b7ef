/**
 * A caching client of the AWS Glue Schema Registry, as the AWS library's serializer and
 * deserializer behave (`SchemaByDefinitionFetcher`, `AWSSchemaRegistryClient`,
 * `GlueSchemaRegistryDeserializationFacade`):
 *
 * - Writing: the version id of a (schema name, definition) is found with
 *   `GetSchemaByDefinition`. When Glue has no such version and `schemaAutoRegistrationEnabled`:
 *   `RegisterSchemaVersion` when the schema exists, `CreateSchema` when it does not (and
 *   `RegisterSchemaVersion` after all when another writer created it meanwhile). A registered
 *   version is used once AVAILABLE: Glue checks compatibility asynchronously, so a PENDING
 *   version is polled (3 s, then up to 10 times, 1 s apart); FAILURE (incompatible) is a
 *   DataError. Auto-registration off and no such version: a DataError with the library's
 *   message.
 * - Reading: the schema of a version id, with `GetSchemaVersion`.
 *
 * Both answers are cached per container (bounded LRU caches of `cacheSize` entries); an entry
 * older than `timeToLiveMillis` is fetched again on its next use, and kept when that fails (as
 * the library's Guava caches `refreshAfterWrite`). A cached answer is returned synchronously, so
 * a converter's steady state makes no promise. Concurrent calls for the same thing share one
 * request. A container keeps one client per settings ({@link GlueRegistryClients}).
 */
import { DataError, RetriableError } from 'serverless-connect/connect';
import type { AwsConnection } from '../../connectors/aws-connection-config.js';
import { LruCache } from '../lru-cache.js';
import type { GlueRegistrySettings } from './glue-converter-config.js';
import {
  GlueAlreadyExistsError,
  GlueEntityNotFoundError,
  type GlueRegistryPort,
  type GlueSchemaId,
  type GlueVersionRef,
} from './glue-registry-port.js';
import { glueClientFor, sdkGluePort } from './glue-sdk-port.js';

/** How long the library waits before the first look at a PENDING version. */
export const FIRST_STATUS_WAIT_MS = 3_000;
/** How often a PENDING version is looked at (the library's `MAX_ATTEMPTS`). */
export const STATUS_ATTEMPTS = 10;
/** The pause between two looks (the library polls back to back). */
export const STATUS_POLL_MS = 1_000;

export const AUTO_REGISTRATION_IS_DISABLED_MSG =
  'Failed to auto-register schema. Auto registration of schema is not enabled.';

/** A schema version's definition, as a reader needs it. */
export interface GlueSchemaDefinition {
  readonly schemaVersionId: string;
  readonly schemaDefinition: string;
  /** `AVRO`, `JSON` or `PROTOBUF`. */
  readonly dataFormat: string;
}

/** What a client needs besides its port. */
export interface GlueRegistryClientDeps {
  readonly clock: { now(): number };
  readonly sleep: (ms: number) => Promise<void>;
}

interface Entry<V> {
  readonly value: V;
  readonly at: number;
}

/** A caching client of one registry (one connection and registry name). */
export class GlueSchemaRegistryClient {
  readonly #settings: GlueRegistrySettings;
  readonly #port: GlueRegistryPort;
  readonly #deps: GlueRegistryClientDeps;
  readonly #byDefinition: LruCache<string, Entry<string>>;
  readonly #byId: LruCache<string, Entry<GlueSchemaDefinition>>;
  readonly #inFlight = new Map<string, Promise<unknown>>();

  constructor(
    settings: GlueRegistrySettings,
    port: GlueRegistryPort,
    deps: GlueRegistryClientDeps,
  ) {
    this.#settings = settings;
    this.#port = port;
    this.#deps = deps;
    this.#byDefinition = new LruCache(settings.cacheSize);
    this.#byId = new LruCache(settings.cacheSize);
  }

  /**
   * The version id of `definition` under schema `schemaName` (registered when it is new and
   * auto-registration is on). Synchronous when cached and fresh.
   * @throws DataError when the version is not registered and auto-registration is off, when
   *   Glue refuses it (invalid, incompatible: FAILURE); RetriableError when Glue does not answer
   *   or the compatibility check is still PENDING after the polls.
   */
  versionIdFor(
    schemaName: string,
    definition: string,
    dataFormat = 'AVRO',
  ): string | Promise<string> {
    const key = `${dataFormat}\0${schemaName}\0${definition}`;
    const entry = this.#byDefinition.get(key);
    if (entry !== undefined && this.#fresh(entry)) return entry.value;
    return this.#once(`definition\0${key}`, async () => {
      try {
        const id = await this.#getOrRegister(
          { registryName: this.#settings.registryName, schemaName },
          definition,
          dataFormat,
        );
        const at = this.#deps.clock.now();
        this.#byDefinition.set(key, { value: id, at });
        if (this.#byId.get(id) === undefined) {
          this.#byId.set(id, {
            value: { schemaVersionId: id, schemaDefinition: definition, dataFormat },
            at,
          });
        }
        return id;
      } catch (error) {
        if (entry !== undefined) return entry.value; // a failed refresh keeps the old answer
        throw error;
      }
    });
  }

  /**
   * The definition of schema version `schemaVersionId`. Synchronous when cached and fresh.
   * @throws GlueEntityNotFoundError (a DataError) for an unknown id; RetriableError when Glue
   *   does not answer.
   */
  schemaVersion(schemaVersionId: string): GlueSchemaDefinition | Promise<GlueSchemaDefinition> {
    const entry = this.#byId.get(schemaVersionId);
    if (entry !== undefined && this.#fresh(entry)) return entry.value;
    return this.#once(`id\0${schemaVersionId}`, async () => {
      try {
        const version = await this.#port.getSchemaVersion(schemaVersionId);
        const value: GlueSchemaDefinition = {
          schemaVersionId: version.schemaVersionId,
          schemaDefinition: version.schemaDefinition,
          dataFormat: version.dataFormat,
        };
        this.#byId.set(schemaVersionId, { value, at: this.#deps.clock.now() });
        return value;
      } catch (error) {
        if (entry !== undefined) return entry.value;
        throw error;
      }
    });
  }

  async #getOrRegister(
    schemaId: GlueSchemaId,
    definition: string,
    dataFormat: string,
  ): Promise<string> {
    let missing: GlueEntityNotFoundError;
    try {
      const found = await this.#port.getSchemaByDefinition(schemaId, definition);
      return this.#availableNow(found);
    } catch (error) {
      if (!(error instanceof GlueEntityNotFoundError)) throw error;
      missing = error;
    }
    if (!this.#settings.autoRegistration) {
      throw new DataError(`${AUTO_REGISTRATION_IS_DISABLED_MSG} ${missing.message}`, {
        cause: missing,
      });
    }
    if (missing.entity === 'schema-version') return this.#register(schemaId, definition);
    let created: GlueVersionRef;
    try {
      created = await this.#port.createSchema({
        ...schemaId,
        dataFormat,
        compatibility: this.#settings.compatibility,
        description: this.#settings.description,
        schemaDefinition: definition,
      });
    } catch (error) {
      // The schema exists (another writer created it, or Glue said "not found" for a version).
      if (error instanceof GlueAlreadyExistsError) return this.#register(schemaId, definition);
      throw error;
    }
    return this.#available(created);
  }

  async #register(schemaId: GlueSchemaId, definition: string): Promise<string> {
    return this.#available(await this.#port.registerSchemaVersion(schemaId, definition));
  }

  /** The id of a version found by definition, which must be AVAILABLE already. */
  #availableNow(ref: GlueVersionRef): string {
    if (ref.status === 'AVAILABLE') return ref.schemaVersionId;
    const message = `Schema Found but status is ${ref.status} (schema version ${ref.schemaVersionId})`;
    if (ref.status === 'PENDING') throw new RetriableError(message);
    throw new DataError(message);
  }

  /** The id of a registered version once its compatibility check passed. */
  async #available(ref: GlueVersionRef): Promise<string> {
    const id = ref.schemaVersionId;
    let status = ref.status;
    if (status === 'AVAILABLE') return id;
    if (status === 'PENDING') await this.#deps.sleep(FIRST_STATUS_WAIT_MS);
    for (let attempt = 1; status === 'PENDING' && attempt <= STATUS_ATTEMPTS; attempt += 1) {
      if (attempt > 1) await this.#deps.sleep(STATUS_POLL_MS);
      status = (await this.#port.getSchemaVersion(id)).status;
    }
    if (status === 'AVAILABLE') return id;
    if (status === 'PENDING') {
      throw new RetriableError(
        `Retries exhausted for schema evolution check for schemaVersionId = ${id}`,
      );
    }
    throw new DataError(
      `Schema evolution check failed. schemaVersionId ${id} is in ${status} status.`,
    );
  }

  #fresh(entry: Entry<unknown>): boolean {
    return this.#deps.clock.now() - entry.at < this.#settings.timeToLiveMs;
  }

  /** Runs `call` once for concurrent callers with the same `key`. */
  #once<T>(key: string, call: () => Promise<T>): Promise<T> {
    const pending = this.#inFlight.get(key);
    if (pending !== undefined) return pending as Promise<T>;
    const started = call().finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, started);
    return started;
  }
}

/** What a container's clients are made from. */
export interface GlueRegistryClientsDeps extends GlueRegistryClientDeps {
  /** The port for a connection (called once per connection). */
  readonly portFor: (connection: AwsConnection) => GlueRegistryPort;
}

/**
 * The Glue clients of a container, one per registry settings, sharing one port (one AWS SDK
 * client) per connection, so converters configured alike share one cache across tasks and warm
 * invocations.
 */
export class GlueRegistryClients {
  readonly #deps: GlueRegistryClientsDeps;
  readonly #ports = new Map<string, GlueRegistryPort>();
  readonly #clients = new Map<string, GlueSchemaRegistryClient>();

  constructor(deps: GlueRegistryClientsDeps) {
    this.#deps = deps;
  }

  /** The container's client for `settings`, made on first use. */
  clientFor(settings: GlueRegistrySettings): GlueSchemaRegistryClient {
    // Credentials are part of the keys (in memory only: the keys are never shown).
    const connectionKey = JSON.stringify(settings.connection);
    const key = JSON.stringify([connectionKey, { ...settings, connection: null }]);
    let client = this.#clients.get(key);
    if (client === undefined) {
      let port = this.#ports.get(connectionKey);
      if (port === undefined) {
        port = this.#deps.portFor(settings.connection);
        this.#ports.set(connectionKey, port);
      }
      client = new GlueSchemaRegistryClient(settings, port, this.#deps);
      this.#clients.set(key, client);
    }
    return client;
  }
}

let containerClients: GlueRegistryClients | undefined;

/**
 * The container's Glue clients, made on first use: the one place they take the AWS SDK, the
 * wall clock and timers.
 */
export function systemGlueRegistryClients(): GlueRegistryClients {
  containerClients ??= new GlueRegistryClients({
    portFor: (connection) => sdkGluePort(glueClientFor(connection)),
    clock: { now: () => globalThis.Date.now() },
    sleep: (ms) => new Promise((resolve) => globalThis.setTimeout(resolve, ms)),
  });
  return containerClients;
}
