/**
 * The schema registry client's keys, named as Confluent's converters name them
 * (`SchemaRegistryClientConfig`, `AbstractKafkaSchemaSerDeConfig`), and their parsed form,
 * {@link SchemaRegistrySettings}. A converter's ConfigDef adds {@link SCHEMA_REGISTRY_CONFIG_DEF}.
 *
 * TLS: an `https` URL is reached with Node's public CAs (and `NODE_EXTRA_CA_CERTS`) unless the
 * `schema.registry.ssl.*` keys (`registry-tls.ts`) name a trust store or a client certificate.
 */
import {
  ConfigDef,
  ConfigError,
  invalidValue,
  Password,
  Range,
  ValidString,
} from 'serverless-connect/connect';
import { encodeBase64 } from '../base64.js';
import { utf8Bytes } from '../utf8.js';
import {
  type RegistryTls,
  registryTlsOf,
  SCHEMA_REGISTRY_TLS_CONFIG_DEF,
  unsupportedTlsKey,
} from './registry-tls.js';

export const SCHEMA_REGISTRY_URL_CONFIG = 'schema.registry.url';
export const BASIC_AUTH_CREDENTIALS_SOURCE_CONFIG = 'basic.auth.credentials.source';
export const BASIC_AUTH_USER_INFO_CONFIG = 'basic.auth.user.info';
export const SCHEMAS_CACHE_SIZE_CONFIG = 'schemas.cache.size';
export const LATEST_CACHE_TTL_CONFIG = 'latest.cache.ttl.sec';
export const HTTP_CONNECT_TIMEOUT_MS_CONFIG = 'http.connect.timeout.ms';
export const HTTP_READ_TIMEOUT_MS_CONFIG = 'http.read.timeout.ms';

const GROUP = 'Schema Registry';

/** The registry client's keys; a converter's ConfigDef adds them (`withAll`). */
export const SCHEMA_REGISTRY_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: SCHEMA_REGISTRY_URL_CONFIG,
    type: 'LIST',
    importance: 'HIGH',
    group: GROUP,
    documentation:
      'Comma-separated list of URLs for Schema Registry instances that can be used to register ' +
      'or look up schemas. A request that gets no answer (or 408, 429, 500, 502-504) is tried ' +
      'on the next URL; the client then stays on the URL that answered.',
  })
  .define({
    name: BASIC_AUTH_CREDENTIALS_SOURCE_CONFIG,
    type: 'STRING',
    defaultValue: 'URL',
    validator: ValidString.in('URL', 'USER_INFO', 'SASL_INHERIT'),
    importance: 'MEDIUM',
    group: GROUP,
    documentation:
      'Where the HTTP basic authentication credentials come from: URL (the user info of each ' +
      'schema.registry.url, http://user:password@host) or USER_INFO (basic.auth.user.info). ' +
      'SASL_INHERIT is not supported.',
  })
  .define({
    name: BASIC_AUTH_USER_INFO_CONFIG,
    type: 'PASSWORD',
    defaultValue: '',
    importance: 'MEDIUM',
    group: GROUP,
    documentation:
      'The credentials as user:password, with basic.auth.credentials.source=USER_INFO. A config ' +
      'provider placeholder keeps them out of the stored config.',
  })
  .define({
    name: SCHEMAS_CACHE_SIZE_CONFIG,
    type: 'INT',
    defaultValue: 1000,
    validator: Range.atLeast(0),
    importance: 'LOW',
    group: GROUP,
    documentation:
      'The most schemas each of the registry caches holds (by id, by subject and schema, latest ' +
      'by subject), shared by the converters of a container that use the same registry settings.',
  })
  .define({
    name: LATEST_CACHE_TTL_CONFIG,
    type: 'LONG',
    defaultValue: 60,
    validator: Range.atLeast(-1),
    importance: 'LOW',
    group: GROUP,
    documentation:
      'How long, in seconds, the latest version of a subject is cached; -1 caches it for good.',
  })
  .define({
    name: HTTP_CONNECT_TIMEOUT_MS_CONFIG,
    type: 'INT',
    defaultValue: 60_000,
    validator: Range.atLeast(1),
    importance: 'LOW',
    group: GROUP,
    documentation:
      'Connect timeout in milliseconds. fetch has no connect timeout of its own: a request as a ' +
      'whole may take this plus http.read.timeout.ms, the worst case of the Java client too.',
  })
  .define({
    name: HTTP_READ_TIMEOUT_MS_CONFIG,
    type: 'INT',
    defaultValue: 60_000,
    validator: Range.atLeast(1),
    importance: 'LOW',
    group: GROUP,
    documentation: 'Read timeout in milliseconds (see http.connect.timeout.ms).',
  })
  .withAll(SCHEMA_REGISTRY_TLS_CONFIG_DEF);

/** One registry URL: where requests go, and the credentials it is called with. */
export interface RegistryEndpoint {
  /** The base URL without user info or trailing slash: safe to show. */
  readonly url: string;
  /** The `Authorization` header's value, or `null` without credentials. */
  readonly authorization: Password | null;
}

/** Everything the client needs, parsed and checked. */
export interface SchemaRegistrySettings {
  readonly endpoints: readonly RegistryEndpoint[];
  /** The bound on each cache (0 caches nothing). */
  readonly cacheCapacity: number;
  /** How long the latest version of a subject is cached; `null` for good, 0 not at all. */
  readonly latestTtlMs: number | null;
  /** The bound on one request, connecting included. */
  readonly requestTimeoutMs: number;
  /** The trust store and client certificate of `https` URLs; `null`: Node's defaults. */
  readonly tls: RegistryTls | null;
}

/** `url` without its user info, for messages and requests. */
export function redactedUrl(url: URL): string {
  const safe = new URL(url.href);
  safe.username = '';
  safe.password = '';
  return safe.href.replace(/\/+$/, '');
}

function basicAuthorization(userInfo: string): Password {
  return new Password(`Basic ${encodeBase64(utf8Bytes(userInfo))}`);
}

/** A refused entry of the URL list, named by position: the value may hold credentials. */
function invalidUrl(position: number, why: string): ConfigError {
  return new ConfigError(
    `Invalid value for configuration ${SCHEMA_REGISTRY_URL_CONFIG}: entry ${position} ${why}`,
    SCHEMA_REGISTRY_URL_CONFIG,
  );
}

function parseEndpointUrl(text: string, position: number): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidUrl(position, 'is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidUrl(position, `is a ${url.protocol} URL; only http and https are supported`);
  }
  return url;
}

/**
 * The settings of parsed config `values` (from a ConfigDef holding
 * {@link SCHEMA_REGISTRY_CONFIG_DEF}) and the raw `props` (to refuse the `schema.registry.ssl.*`
 * keys this client does not know).
 * @throws ConfigError naming the offending key; a URL's credentials never appear in it.
 */
export function schemaRegistrySettingsOf(
  values: Readonly<Record<string, unknown>>,
  props: Readonly<Record<string, unknown>> = {},
): SchemaRegistrySettings {
  const ssl = unsupportedTlsKey(props);
  if (ssl !== undefined) {
    throw new ConfigError(
      `${ssl} is not supported: the registry client takes the trust store, key store and ` +
        'endpoint identification keys of schema.registry.ssl.* (see the converter README)',
      ssl,
    );
  }
  const texts = (values[SCHEMA_REGISTRY_URL_CONFIG] as string[] | undefined) ?? [];
  if (texts.length === 0) {
    throw invalidValue(SCHEMA_REGISTRY_URL_CONFIG, '', 'at least one URL is required');
  }
  const urls = texts.map((text, i) => parseEndpointUrl(text, i + 1));
  const source = values[BASIC_AUTH_CREDENTIALS_SOURCE_CONFIG] as string;
  if (source === 'SASL_INHERIT') {
    throw invalidValue(
      BASIC_AUTH_CREDENTIALS_SOURCE_CONFIG,
      source,
      'SASL_INHERIT is not supported; use USER_INFO or URL',
    );
  }
  let shared: Password | null = null;
  if (source === 'USER_INFO') {
    const userInfo = (values[BASIC_AUTH_USER_INFO_CONFIG] as Password | null)?.value() ?? '';
    if (!userInfo.includes(':')) {
      throw invalidValue(
        BASIC_AUTH_USER_INFO_CONFIG,
        new Password(userInfo),
        'expected user:password with basic.auth.credentials.source=USER_INFO',
      );
    }
    shared = basicAuthorization(userInfo);
  }
  const endpoints = urls.map((url): RegistryEndpoint => {
    const fromUrl =
      url.username === ''
        ? null
        : basicAuthorization(
            `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`,
          );
    return { url: redactedUrl(url), authorization: source === 'URL' ? fromUrl : shared };
  });
  const ttl = Number(values[LATEST_CACHE_TTL_CONFIG] ?? 60);
  return {
    endpoints,
    cacheCapacity: (values[SCHEMAS_CACHE_SIZE_CONFIG] as number | undefined) ?? 1000,
    latestTtlMs: ttl < 0 ? null : ttl * 1000,
    requestTimeoutMs:
      ((values[HTTP_CONNECT_TIMEOUT_MS_CONFIG] as number | undefined) ?? 60_000) +
      ((values[HTTP_READ_TIMEOUT_MS_CONFIG] as number | undefined) ?? 60_000),
    tls: registryTlsOf(values),
  };
}
