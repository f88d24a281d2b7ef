/**
 * A caching client of Confluent's Schema Registry REST API (Confluent's
 * `CachedSchemaRegistryClient`): what the schema-registry converters call to register a
 * schema, find its id, fetch a schema by id, and read a subject's latest version.
 *
 * Answers are cached (bounded LRU caches, `schemas.cache.size` each): by id, by subject and
 * schema (register and look-up share it), and the latest version of a subject for
 * `latest.cache.ttl.sec`. Concurrent calls for the same thing share one request. A container
 * keeps one client per registry settings ({@link SchemaRegistryClients}), so a warm Lambda
 * calls the registry only for schemas it has not seen.
 */
import { ConnectError } from 'serverless-connect/connect';
import { LruCache } from '../lru-cache.js';
import { httpsFetch } from './https-fetch.js';
import type { SchemaRegistrySettings } from './registry-config.js';
import { type FetchLike, RegistryRest } from './registry-rest.js';

export type { FetchLike } from './registry-rest.js';

/** The registry's schema formats. */
export type SchemaType = 'AVRO' | 'PROTOBUF' | 'JSON';

/** A reference from one schema to another registered under `subject`, `version`. */
export interface SchemaReference {
  readonly name: string;
  readonly subject: string;
  readonly version: number;
}

/** A schema as the registry stores it. */
export interface RegistrySchema {
  readonly schemaType: SchemaType;
  /** The schema's text (Avro's JSON, a .proto file, a JSON Schema). */
  readonly schema: string;
  readonly references: readonly SchemaReference[];
}

/** A schema registered under a subject. */
export interface RegisteredSchema extends RegistrySchema {
  readonly subject: string;
  readonly id: number;
  readonly version: number;
}

export type CompatibilityLevel =
  | 'NONE'
  | 'BACKWARD'
  | 'BACKWARD_TRANSITIVE'
  | 'FORWARD'
  | 'FORWARD_TRANSITIVE'
  | 'FULL'
  | 'FULL_TRANSITIVE';

/** What the client is built from: the registry's settings, `fetch` and a clock. */
export interface SchemaRegistryClientDeps {
  readonly fetch: FetchLike;
  readonly clock: { now(): number };
}

export interface NormalizeOption {
  /** Ask the registry to normalize the schema first (`normalize.schemas`). */
  readonly normalize?: boolean;
}

function malformed(what: string): ConnectError {
  return new ConnectError(`Schema registry answered ${what} with an unexpected body`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function referencesOf(value: unknown): SchemaReference[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((r) => ({
    name: String(r.name),
    subject: String(r.subject),
    version: Number(r.version),
  }));
}

/** A body carrying a schema (`GET /schemas/ids/{id}`, look-up, versions). */
function schemaOf(body: unknown, what: string): RegistrySchema {
  if (!isObject(body) || typeof body.schema !== 'string') throw malformed(what);
  // The registry leaves schemaType out for Avro (and Apicurio in look-up answers).
  const type = body.schemaType ?? 'AVRO';
  if (type !== 'AVRO' && type !== 'PROTOBUF' && type !== 'JSON') throw malformed(what);
  return { schemaType: type, schema: body.schema, references: referencesOf(body.references) };
}

function registeredOf(body: unknown, what: string): RegisteredSchema {
  const schema = schemaOf(body, what);
  const b = body as Record<string, unknown>;
  if (typeof b.id !== 'number' || typeof b.version !== 'number' || typeof b.subject !== 'string') {
    throw malformed(what);
  }
  return { ...schema, subject: b.subject, id: b.id, version: b.version };
}

/** The request body of register, look-up and compatibility checks. */
function requestBody(schema: RegistrySchema): Record<string, unknown> {
  return {
    ...(schema.schemaType === 'AVRO' ? {} : { schemaType: schema.schemaType }),
    schema: schema.schema,
    ...(schema.references.length === 0 ? {} : { references: schema.references }),
  };
}

function subjectPath(subject: string): string {
  return `/subjects/${encodeURIComponent(subject)}`;
}

function normalizeQuery(options: NormalizeOption): string {
  return options.normalize === true ? '?normalize=true' : '';
}

/** What the subject-and-schema cache keeps: the id, and the version once a look-up told it. */
interface SubjectSchemaEntry {
  readonly id: number;
  readonly registered: RegisteredSchema | null;
}

/** A caching client of one registry (one set of URLs and credentials). */
export class SchemaRegistryClient {
  readonly #rest: RegistryRest;
  readonly #clock: { now(): number };
  readonly #latestTtlMs: number | null;
  readonly #byId: LruCache<number, RegistrySchema>;
  readonly #bySubjectSchema: LruCache<string, SubjectSchemaEntry>;
  readonly #latest: LruCache<string, { readonly schema: RegisteredSchema; readonly at: number }>;
  readonly #versions: LruCache<string, RegisteredSchema>;
  readonly #inFlight = new Map<string, Promise<unknown>>();

  constructor(settings: SchemaRegistrySettings, deps: SchemaRegistryClientDeps) {
    const { tls } = settings;
    this.#rest = new RegistryRest(
      settings,
      tls === null ? deps.fetch : httpsFetch(tls, deps.fetch),
    );
    this.#clock = deps.clock;
    this.#latestTtlMs = settings.latestTtlMs;
    this.#byId = new LruCache(settings.cacheCapacity);
    this.#bySubjectSchema = new LruCache(settings.cacheCapacity);
    this.#latest = new LruCache(settings.latestTtlMs === 0 ? 0 : settings.cacheCapacity);
    this.#versions = new LruCache(settings.cacheCapacity);
  }

  /** The registry's base URLs, without credentials. */
  get urls(): string[] {
    return this.#rest.urls;
  }

  /**
   * Registers `schema` under `subject` (a new version unless the subject has it already) and
   * returns its global id. Cached: a schema registered or looked up before costs no request.
   * @throws SchemaRegistryRequestError 409 when incompatible, 422 (42201) when invalid.
   */
  async register(
    subject: string,
    schema: RegistrySchema,
    options: NormalizeOption = {},
  ): Promise<number> {
    const key = this.#subjectSchemaKey(subject, schema, options);
    const cached = this.#bySubjectSchema.get(key);
    if (cached !== undefined) return cached.id;
    return this.#once(`register\0${key}`, async () => {
      const what = `POST ${subjectPath(subject)}/versions`;
      const body = await this.#rest.request({
        method: 'POST',
        path: `${subjectPath(subject)}/versions${normalizeQuery(options)}`,
        body: requestBody(schema),
      });
      if (!isObject(body) || typeof body.id !== 'number') throw malformed(what);
      const id = body.id;
      this.#bySubjectSchema.set(key, { id, registered: null });
      if (this.#byId.get(id) === undefined) this.#byId.set(id, schema);
      return id;
    });
  }

  /**
   * The id and version of `schema` under `subject`, without registering it (Confluent's
   * `getId` / `getVersion`). Cached like {@link register}.
   * @throws SchemaRegistryRequestError 404: 40401 unknown subject, 40403 schema not there.
   */
  async lookup(
    subject: string,
    schema: RegistrySchema,
    options: NormalizeOption = {},
  ): Promise<RegisteredSchema> {
    const key = this.#subjectSchemaKey(subject, schema, options);
    const cached = this.#bySubjectSchema.get(key)?.registered;
    if (cached !== undefined && cached !== null) return cached;
    return this.#once(`lookup\0${key}`, async () => {
      const body = await this.#rest.request({
        method: 'POST',
        path: `${subjectPath(subject)}${normalizeQuery(options)}`,
        body: requestBody(schema),
      });
      const found = registeredOf(body, `POST ${subjectPath(subject)}`);
      // Apicurio leaves schemaType out of look-up answers: the request's is the truth.
      const registered = { ...found, schemaType: schema.schemaType };
      this.#bySubjectSchema.set(key, { id: registered.id, registered });
      if (this.#byId.get(registered.id) === undefined) this.#byId.set(registered.id, schema);
      return registered;
    });
  }

  /**
   * The schema with global id `id`, as a reader of the wire format needs it. Cached.
   * @throws SchemaRegistryRequestError 404 (40403) for an unknown id.
   */
  async schemaById(id: number): Promise<RegistrySchema> {
    const cached = this.#byId.get(id);
    if (cached !== undefined) return cached;
    return this.#once(`id\0${id}`, async () => {
      const path = `/schemas/ids/${id}`;
      const schema = schemaOf(await this.#rest.request({ method: 'GET', path }), `GET ${path}`);
      this.#byId.set(id, schema);
      return schema;
    });
  }

  /**
   * The latest version under `subject` (`use.latest.version`), cached for
   * `latest.cache.ttl.sec`.
   * @throws SchemaRegistryRequestError 404 (40401) for an unknown subject.
   */
  async latest(subject: string): Promise<RegisteredSchema> {
    const cached = this.#latest.get(subject);
    if (cached !== undefined && this.#fresh(cached.at)) return cached.schema;
    return this.#once(`latest\0${subject}`, async () => {
      const path = `${subjectPath(subject)}/versions/latest`;
      const schema = registeredOf(await this.#rest.request({ method: 'GET', path }), path);
      this.#latest.set(subject, { schema, at: this.#clock.now() });
      if (this.#byId.get(schema.id) === undefined) this.#byId.set(schema.id, schema);
      return schema;
    });
  }

  /**
   * Version `version` of `subject`, as a reader resolves a schema's references. Cached: a
   * registered version never changes.
   * @throws SchemaRegistryRequestError 404: 40401 unknown subject, 40402 unknown version.
   */
  async version(subject: string, version: number): Promise<RegisteredSchema> {
    const key = `${subject}\0${version}`;
    const cached = this.#versions.get(key);
    if (cached !== undefined) return cached;
    return this.#once(`version\0${key}`, async () => {
      const path = `${subjectPath(subject)}/versions/${version}`;
      const schema = registeredOf(await this.#rest.request({ method: 'GET', path }), path);
      this.#versions.set(key, schema);
      if (this.#byId.get(schema.id) === undefined) this.#byId.set(schema.id, schema);
      return schema;
    });
  }

  /**
   * Whether `schema` may be registered under `subject` after `version` (default: the latest)
   * under the subject's compatibility level. Never cached.
   */
  async isCompatible(
    subject: string,
    schema: RegistrySchema,
    version: number | 'latest' = 'latest',
  ): Promise<boolean> {
    const path = `/compatibility${subjectPath(subject)}/versions/${version}`;
    const body = await this.#rest.request({ method: 'POST', path, body: requestBody(schema) });
    if (!isObject(body) || typeof body.is_compatible !== 'boolean') throw malformed(path);
    return body.is_compatible;
  }

  /** Sets the compatibility level of `subject`, or the registry's default when `null`. */
  async setCompatibility(subject: string | null, level: CompatibilityLevel): Promise<void> {
    const path = subject === null ? '/config' : `/config/${encodeURIComponent(subject)}`;
    await this.#rest.request({ method: 'PUT', path, body: { compatibility: level } });
  }

  #fresh(at: number): boolean {
    return this.#latestTtlMs === null || this.#clock.now() - at < this.#latestTtlMs;
  }

  #subjectSchemaKey(subject: string, schema: RegistrySchema, options: NormalizeOption): string {
    const refs = schema.references.map((r) => `${r.name}\u0001${r.subject}\u0001${r.version}`);
    return [subject, options.normalize === true, schema.schemaType, schema.schema, ...refs].join(
      '\0',
    );
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

/**
 * The clients of a container, one per registry settings (URLs, credentials, cache bounds), so
 * converters configured alike share one cache across tasks and warm invocations.
 */
export class SchemaRegistryClients {
  readonly #clients = new Map<string, SchemaRegistryClient>();
  readonly #deps: SchemaRegistryClientDeps;

  constructor(deps: SchemaRegistryClientDeps) {
    this.#deps = deps;
  }

  /** The container's client for `settings`, made on first use. */
  clientFor(settings: SchemaRegistrySettings): SchemaRegistryClient {
    // Credentials are part of the key (in memory only: the key is never shown).
    const key = JSON.stringify([
      settings.endpoints.map((e) => [e.url, e.authorization?.value() ?? null]),
      settings.cacheCapacity,
      settings.latestTtlMs,
      settings.requestTimeoutMs,
      tlsIdentity(settings),
    ]);
    let client = this.#clients.get(key);
    if (client === undefined) {
      client = new SchemaRegistryClient(settings, this.#deps);
      this.#clients.set(key, client);
    }
    return client;
  }
}

/** What tells TLS settings apart (in memory only, like the credentials). */
function tlsIdentity({ tls }: SchemaRegistrySettings): unknown {
  if (tls === null) return null;
  return [
    tls.ca,
    tls.cert,
    tls.key?.value(),
    tls.pfx?.toString('base64'),
    tls.passphrase?.value(),
    tls.checkServerIdentity,
  ];
}

let containerClients: SchemaRegistryClients | undefined;

/**
 * The container's clients, made on first use: the one place the registry client takes Node's
 * global `fetch` and the wall clock.
 */
export function systemSchemaRegistryClients(): SchemaRegistryClients {
  containerClients ??= new SchemaRegistryClients({
    fetch: (url, init) => globalThis.fetch(url, init),
    clock: { now: () => globalThis.Date.now() },
  });
  return containerClients;
}
