/**
 * AWS config providers, named as Amazon MSK Connect's config providers name them:
 * - `secretsmanager`: `${secretsmanager:<secret-id>:<json-key>}` reads one field of a JSON
 *   secret; `${secretsmanager:<secret-id>}` reads the whole secret string. `<secret-id>` is
 *   the secret's name (or a full ARN, whose colons are handled: a JSON key follows the 7 ARN
 *   parts, `${secretsmanager:arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-AbCdEf:password}`).
 * - `ssm`: `${ssm::/prod/db/password}` (MSK style) or `${ssm:/prod/db/password}` reads a
 *   parameter (SecureString decrypted), also by ARN.
 *
 * The AWS calls are injected ({@link SecretsManagerReader}, {@link ParameterStoreReader}) so
 * this module needs no SDK: the composition root wraps `@aws-sdk/client-secrets-manager`
 * `GetSecretValue` and `@aws-sdk/client-ssm` `GetParameter` (WithDecryption) in them.
 * Values can be cached per container with a TTL and an injected clock.
 */
import type { ConfigProviderResolver } from '../../config/config-providers.js';
import { ConfigError } from '../../connect/errors.js';

export const AWS_PROVIDER_NAMES = { secretsManager: 'secretsmanager', ssm: 'ssm' } as const;

/**
 * Reads a secret's `SecretString`. Resolves `undefined` when the secret does not exist or has
 * no string value; throws a `RetriableError` for throttling/network failures. Error messages
 * must not contain secret values.
 */
export interface SecretsManagerReader {
  getSecretString(secretId: string): Promise<string | undefined>;
}

/** Reads a parameter's decrypted value; `undefined` when it does not exist. */
export interface ParameterStoreReader {
  getParameter(name: string): Promise<string | undefined>;
}

/** Cache resolved values for `ttlMs` (per container), timed by `now`. */
export interface AwsProviderCacheOptions {
  readonly ttlMs: number;
  readonly now: () => number;
}

export interface AwsProviderOptions {
  /** @default no caching */
  readonly cache?: AwsProviderCacheOptions;
}

const ARN_PARTS = 7; // arn:aws:<service>:<region>:<account>:<type>:<name>

function cached(
  load: (id: string) => Promise<string | undefined>,
  cache: AwsProviderCacheOptions | undefined,
): (id: string) => Promise<string | undefined> {
  if (cache === undefined) return load;
  const entries = new Map<string, { value: Promise<string | undefined>; expiresAt: number }>();
  return (id) => {
    const now = cache.now();
    const hit = entries.get(id);
    if (hit !== undefined && hit.expiresAt > now) return hit.value;
    const value = load(id);
    entries.set(id, { value, expiresAt: now + cache.ttlMs });
    value.catch(() => entries.delete(id));
    return value;
  };
}

/** A reference's secret id and optional JSON key, from the placeholder's path and key. */
export function secretReference(path: string, key: string): { secretId: string; jsonKey?: string } {
  if (path === 'arn') {
    const parts = `arn:${key}`.split(':');
    const secretId = parts.slice(0, ARN_PARTS).join(':');
    return parts.length > ARN_PARTS
      ? { secretId, jsonKey: parts.slice(ARN_PARTS).join(':') }
      : { secretId };
  }
  return path === '' ? { secretId: key } : { secretId: path, jsonKey: key };
}

function jsonField(secretId: string, secret: string, field: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secret);
  } catch {
    // JSON.parse messages quote the input: never surface them.
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(
      `Secret ${secretId} is not a JSON object, so key '${field}' cannot be read; reference the whole secret as \${secretsmanager:${secretId}}`,
    );
  }
  if (!Object.hasOwn(parsed, field)) return undefined;
  const value: unknown = (parsed as Record<string, unknown>)[field];
  if (value === null || value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Creates the `secretsmanager` provider over `reader`. */
export function createSecretsManagerConfigProvider(
  reader: SecretsManagerReader,
  options: AwsProviderOptions = {},
): ConfigProviderResolver {
  const load = cached((id) => reader.getSecretString(id), options.cache);
  return {
    async get(path, keys) {
      const found: Record<string, string> = {};
      await Promise.all(
        [...keys].map(async (key) => {
          const { secretId, jsonKey } = secretReference(path, key);
          const secret = await load(secretId);
          if (secret === undefined) return;
          const value = jsonKey === undefined ? secret : jsonField(secretId, secret, jsonKey);
          if (value !== undefined) found[key] = value;
        }),
      );
      return found;
    },
  };
}

/** Creates the `ssm` provider over `reader`. Only an empty path (or an ARN) is supported. */
export function createSsmConfigProvider(
  reader: ParameterStoreReader,
  options: AwsProviderOptions = {},
): ConfigProviderResolver {
  const load = cached((name) => reader.getParameter(name), options.cache);
  return {
    async get(path, keys) {
      if (path !== '' && path !== 'arn') {
        throw new ConfigError(
          `Path is not supported for the ssm config provider, invalid value '${path}'; use \${ssm::<parameter-name>}`,
        );
      }
      const found: Record<string, string> = {};
      await Promise.all(
        [...keys].map(async (key) => {
          const value = await load(path === 'arn' ? `arn:${key}` : key);
          if (value !== undefined) found[key] = value;
        }),
      );
      return found;
    },
  };
}
