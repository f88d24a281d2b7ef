/**
 * TLS to the schema registry: Confluent's `schema.registry.ssl.*` keys (Kafka's SSL keys with the
 * registry's prefix), read once at configure into the options of Node's TLS
 * ({@link RegistryTls}: `ca`, `cert` + `key`, or `pfx`, with their passphrase).
 *
 * | store | types | what |
 * |---|---|---|
 * | truststore | PEM (a file, or `ssl.truststore.certificates` inline) | the CAs the registry's certificate is checked against (instead of the public ones) |
 * | keystore | PEM (a file holding the key and the chain, or `ssl.keystore.key` + `ssl.keystore.certificate.chain` inline), PKCS12 | the client certificate, for a registry that asks for one |
 *
 * Without a `.type`, a store's type is told from its content (PEM text, PKCS12, JKS). JKS (and
 * JCEKS) cannot be read by Node: refused with a ConfigError that says how to convert it. A
 * PKCS12 truststore is refused likewise (Node takes CAs as PEM). `ssl.endpoint.identification.
 * algorithm` empty turns the host name check off (`https`, the default, keeps it). Passwords and
 * inline keys are PASSWORD keys: never in a message or a log. Other `schema.registry.ssl.*`
 * keys (protocols, providers, algorithms) are refused rather than ignored.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { ConfigDef, ConfigError, invalidValue, Password } from 'serverless-connect/connect';

const PREFIX = 'schema.registry.ssl.';
export const TRUSTSTORE_LOCATION_CONFIG = `${PREFIX}truststore.location`;
export const TRUSTSTORE_PASSWORD_CONFIG = `${PREFIX}truststore.password`;
export const TRUSTSTORE_TYPE_CONFIG = `${PREFIX}truststore.type`;
export const TRUSTSTORE_CERTIFICATES_CONFIG = `${PREFIX}truststore.certificates`;
export const KEYSTORE_LOCATION_CONFIG = `${PREFIX}keystore.location`;
export const KEYSTORE_PASSWORD_CONFIG = `${PREFIX}keystore.password`;
export const KEYSTORE_TYPE_CONFIG = `${PREFIX}keystore.type`;
export const KEYSTORE_KEY_CONFIG = `${PREFIX}keystore.key`;
export const KEYSTORE_CERTIFICATE_CHAIN_CONFIG = `${PREFIX}keystore.certificate.chain`;
export const KEY_PASSWORD_CONFIG = `${PREFIX}key.password`;
export const ENDPOINT_IDENTIFICATION_CONFIG = `${PREFIX}endpoint.identification.algorithm`;

const GROUP = 'Schema Registry TLS';

/** What Node's TLS takes to reach the registry. */
export interface RegistryTls {
  /** The trusted CAs (PEM); absent: Node's (public CAs and NODE_EXTRA_CA_CERTS). */
  readonly ca?: string;
  /** The client certificate chain and its key (PEM). */
  readonly cert?: string;
  readonly key?: Password;
  /** The client certificate and key as PKCS12. */
  readonly pfx?: Buffer;
  /** The key's (or the PKCS12 store's) password. */
  readonly passphrase?: Password;
  /** False when `ssl.endpoint.identification.algorithm` is empty. */
  readonly checkServerIdentity: boolean;
}

type Store = 'PEM' | 'PKCS12' | 'JKS';

function define(def: ConfigDef, name: string, type: 'STRING' | 'PASSWORD', doc: string): ConfigDef {
  return def.define({
    name,
    type,
    defaultValue: null,
    importance: 'MEDIUM',
    group: GROUP,
    documentation: doc,
  });
}

/** The TLS keys; a registry converter's ConfigDef adds them (through `SCHEMA_REGISTRY_CONFIG_DEF`). */
export const SCHEMA_REGISTRY_TLS_CONFIG_DEF: ConfigDef = [
  [
    TRUSTSTORE_LOCATION_CONFIG,
    'STRING',
    'The trust store file: PEM certificates of the CAs to trust.',
  ],
  [TRUSTSTORE_PASSWORD_CONFIG, 'PASSWORD', 'The trust store password (not needed for PEM).'],
  [
    TRUSTSTORE_TYPE_CONFIG,
    'STRING',
    'PEM; told from the file when absent. JKS and PKCS12 trust stores: convert to PEM.',
  ],
  [
    TRUSTSTORE_CERTIFICATES_CONFIG,
    'PASSWORD',
    'Trusted certificates in PEM, inline (with truststore.type PEM or absent).',
  ],
  [
    KEYSTORE_LOCATION_CONFIG,
    'STRING',
    'The key store file: PKCS12, or PEM holding the private key and the certificate chain.',
  ],
  [KEYSTORE_PASSWORD_CONFIG, 'PASSWORD', 'The PKCS12 key store password.'],
  [
    KEYSTORE_TYPE_CONFIG,
    'STRING',
    'PKCS12 or PEM; told from the file when absent. JKS: convert to PKCS12 (keytool -importkeystore).',
  ],
  [
    KEYSTORE_KEY_CONFIG,
    'PASSWORD',
    'The client private key in PEM, inline (with keystore.certificate.chain).',
  ],
  [
    KEYSTORE_CERTIFICATE_CHAIN_CONFIG,
    'PASSWORD',
    'The client certificate chain in PEM, inline (with keystore.key).',
  ],
  [KEY_PASSWORD_CONFIG, 'PASSWORD', 'The password of an encrypted PEM private key.'],
  [
    ENDPOINT_IDENTIFICATION_CONFIG,
    'STRING',
    "'https' (the default) checks the registry's host name against its certificate; empty does not.",
  ],
].reduce(
  (def, [name, type, doc]) =>
    define(def, name as string, type as 'STRING' | 'PASSWORD', doc as string),
  new ConfigDef(),
);

const TLS_KEYS = new Set(SCHEMA_REGISTRY_TLS_CONFIG_DEF.names());

/** A `schema.registry.ssl.*` key of `props` this client does not know, or `undefined`. */
export function unsupportedTlsKey(props: Readonly<Record<string, unknown>>): string | undefined {
  return Object.keys(props).find((key) => key.startsWith(PREFIX) && !TLS_KEYS.has(key));
}

const secret = (values: Readonly<Record<string, unknown>>, key: string): Password | undefined => {
  const value = values[key];
  return value instanceof Password && value.value() !== '' ? value : undefined;
};
const text = (values: Readonly<Record<string, unknown>>, key: string): string | undefined => {
  const value = values[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

function readStore(key: string, location: string, read: (path: string) => Buffer): Buffer {
  try {
    return read(location);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw invalidValue(
      key,
      location,
      `the file cannot be read (${typeof code === 'string' ? code : 'error'})`,
    );
  }
}

/** The type of a store: the `.type` key, else told from the bytes. */
function storeType(
  typeKey: string,
  given: string | undefined,
  bytes: Uint8Array | undefined,
): Store {
  if (given !== undefined) {
    const type = given.toUpperCase();
    if (type === 'PEM' || type === 'PKCS12' || type === 'JKS') return type;
    if (type === 'JCEKS') return 'JKS';
    throw invalidValue(typeKey, given, 'supported types are PEM and PKCS12');
  }
  if (bytes === undefined) return 'PEM';
  const head = new TextDecoder().decode(bytes.subarray(0, 64)).trimStart();
  if (head.startsWith('-----BEGIN')) return 'PEM';
  const magic =
    (((bytes[0] ?? 0) << 24) |
      ((bytes[1] ?? 0) << 16) |
      ((bytes[2] ?? 0) << 8) |
      (bytes[3] ?? 0)) >>>
    0;
  return magic === 0xfeedfeed || magic === 0xcececece ? 'JKS' : 'PKCS12';
}

/** Refuses a JKS store, saying how to convert it. */
function jksRefusal(key: string, store: 'key' | 'trust'): never {
  const how =
    store === 'key'
      ? 'convert it with keytool -importkeystore -srckeystore <file>.jks -destkeystore <file>.p12 -deststoretype PKCS12, then set schema.registry.ssl.keystore.type=PKCS12'
      : 'export its CAs as PEM (keytool -exportcert -rfc -alias <alias> -keystore <file>.jks -file ca.pem), then set schema.registry.ssl.truststore.type=PEM';
  throw new ConfigError(
    `Invalid value for configuration ${key}: JKS key stores cannot be read by Node's TLS; ${how}`,
    key,
  );
}

function trustedCas(
  values: Readonly<Record<string, unknown>>,
  read: (path: string) => Buffer,
): string | undefined {
  const inline = secret(values, TRUSTSTORE_CERTIFICATES_CONFIG)?.value();
  const location = text(values, TRUSTSTORE_LOCATION_CONFIG);
  const bytes =
    location === undefined ? undefined : readStore(TRUSTSTORE_LOCATION_CONFIG, location, read);
  const type = storeType(TRUSTSTORE_TYPE_CONFIG, text(values, TRUSTSTORE_TYPE_CONFIG), bytes);
  if (type === 'JKS') jksRefusal(TRUSTSTORE_LOCATION_CONFIG, 'trust');
  if (type === 'PKCS12') {
    throw new ConfigError(
      `Invalid value for configuration ${TRUSTSTORE_TYPE_CONFIG}: a PKCS12 trust store cannot be read by Node's TLS; export its CAs as PEM (openssl pkcs12 -in <file>.p12 -nokeys -out ca.pem) and set it to PEM`,
      TRUSTSTORE_TYPE_CONFIG,
    );
  }
  if (inline !== undefined) return inline;
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}

/** The client certificate: PEM (file or inline) or PKCS12, checked to open with its password. */
function clientCertificate(
  values: Readonly<Record<string, unknown>>,
  read: (path: string) => Buffer,
): Pick<RegistryTls, 'cert' | 'key' | 'pfx' | 'passphrase'> {
  const inlineKey = secret(values, KEYSTORE_KEY_CONFIG);
  const inlineChain = secret(values, KEYSTORE_CERTIFICATE_CHAIN_CONFIG);
  const location = text(values, KEYSTORE_LOCATION_CONFIG);
  if (location === undefined && inlineKey === undefined && inlineChain === undefined) return {};
  const bytes =
    location === undefined ? undefined : readStore(KEYSTORE_LOCATION_CONFIG, location, read);
  const type = storeType(KEYSTORE_TYPE_CONFIG, text(values, KEYSTORE_TYPE_CONFIG), bytes);
  if (type === 'JKS') jksRefusal(KEYSTORE_LOCATION_CONFIG, 'key');
  if (type === 'PKCS12') {
    if (bytes === undefined)
      throw invalidValue(KEYSTORE_TYPE_CONFIG, 'PKCS12', `needs ${KEYSTORE_LOCATION_CONFIG}`);
    const passphrase = secret(values, KEYSTORE_PASSWORD_CONFIG);
    opens(KEYSTORE_PASSWORD_CONFIG, passphrase, { pfx: bytes, passphrase: passphrase?.value() });
    return { pfx: bytes, ...(passphrase === undefined ? {} : { passphrase }) };
  }
  const pem = bytes === undefined ? undefined : new TextDecoder().decode(bytes);
  const cert = inlineChain?.value() ?? pem;
  const key = inlineKey ?? (pem === undefined ? undefined : new Password(pem));
  if (cert === undefined || key === undefined) {
    throw invalidValue(
      cert === undefined ? KEYSTORE_CERTIFICATE_CHAIN_CONFIG : KEYSTORE_KEY_CONFIG,
      null,
      'a PEM key store needs both the private key and the certificate chain',
    );
  }
  const passphrase = secret(values, KEY_PASSWORD_CONFIG);
  opens(KEY_PASSWORD_CONFIG, passphrase, {
    cert,
    key: key.value(),
    passphrase: passphrase?.value(),
  });
  return { cert, key, ...(passphrase === undefined ? {} : { passphrase }) };
}

/** ConfigError on `passwordKey` (never its value) when Node's TLS cannot open the store. */
function opens(
  passwordKey: string,
  password: Password | undefined,
  options: Parameters<typeof createSecureContext>[0],
): void {
  try {
    createSecureContext(options);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalidValue(
      passwordKey,
      password ?? null,
      `the key store cannot be opened with it (${reason})`,
    );
  }
}

/**
 * The TLS settings of parsed config `values` (from a ConfigDef holding
 * {@link SCHEMA_REGISTRY_TLS_CONFIG_DEF}), or `null` when no TLS key is set.
 * @throws ConfigError naming the offending key; never a password or key.
 */
export function registryTlsOf(
  values: Readonly<Record<string, unknown>>,
  read: (path: string) => Buffer = readFileSync,
): RegistryTls | null {
  const set = [...TLS_KEYS].some((key) => values[key] !== null && values[key] !== undefined);
  if (!set) return null;
  const algorithm = text(values, ENDPOINT_IDENTIFICATION_CONFIG);
  if (algorithm !== undefined && algorithm.toLowerCase() !== 'https') {
    throw invalidValue(
      ENDPOINT_IDENTIFICATION_CONFIG,
      algorithm,
      "only 'https' or empty is supported",
    );
  }
  const ca = trustedCas(values, read);
  return {
    ...(ca === undefined ? {} : { ca }),
    ...clientCertificate(values, read),
    checkServerIdentity: values[ENDPOINT_IDENTIFICATION_CONFIG] !== '',
  };
}
