/**
 * Config provider placeholders, as Kafka's `ConfigTransformer`: a config value may contain
 * `${provider:path:key}` or `${provider:key}` (empty path), replaced at task start by what the
 * named provider returns. Examples:
 * - `${env:DB_PASSWORD}`: an environment variable;
 * - `${file:/opt/secrets/app.properties:db.password}`: a key of a Java `.properties` file;
 * - `${secretsmanager:prod/db:password}`: a JSON key of an AWS Secrets Manager secret, or
 *   `${secretsmanager:prod/db-password}` for the whole secret string;
 * - `${ssm::/prod/db/password}` or `${ssm:/prod/db/password}`: an SSM parameter.
 *
 * Matching is Kafka's, lazy: the provider name ends at the first `:`, the path at the next `:`,
 * so keys may contain `:` but paths and provider names cannot, and `}` ends the placeholder.
 * A value may hold several placeholders and text around them; resolved text is not scanned
 * again.
 *
 * Stored configs keep the placeholder text. {@link resolvePlaceholders} returns a new map; only
 * that copy holds secrets, so it must not be logged or persisted. Unlike Kafka, which leaves an
 * unresolvable placeholder in place, resolution fails with a {@link ConfigError} naming the
 * config key; messages name the placeholder, never a resolved value.
 *
 * A provider may refuse a reference by the operator's policy (`refusal`: an environment variable
 * outside `config.providers.env.param.allowlist.pattern`, a file outside
 * `config.providers.file.param.allowed.paths`). {@link refusedPlaceholders} lists those without
 * reading anything, for config validation; resolution checks them first and fails on one.
 */
import type { ConfigProviderResolver } from '../connect/config-provider.js';
import { ConfigError, ConnectError } from '../connect/errors.js';

/** The provider interface is the plugin API's: a plugin package may contribute providers. */
export type { ConfigProviderResolver } from '../connect/config-provider.js';

/** Kafka's `ConfigTransformer.DEFAULT_PATTERN`. Global: reset `lastIndex` or use `matchAll`. */
export const PLACEHOLDER_PATTERN = /\$\{([^}]*?):(?:([^}]*?):)?([^}]*?)\}/g;

/** One placeholder found in a config value. */
export interface ConfigPlaceholder {
  /** The config key whose value holds the placeholder. */
  readonly configKey: string;
  readonly provider: string;
  /** Empty for `${provider:key}`. */
  readonly path: string;
  readonly key: string;
  /** The placeholder as written, e.g. `${env:DB_PASSWORD}`. */
  readonly text: string;
}

/** True when `value` contains at least one placeholder. */
export function hasPlaceholder(value: string): boolean {
  return new RegExp(PLACEHOLDER_PATTERN.source).test(value);
}

/** Every placeholder in `props`, in key order then position. Null values are skipped. */
export function findPlaceholders(
  props: Readonly<Record<string, string | null | undefined>>,
): ConfigPlaceholder[] {
  const found: ConfigPlaceholder[] = [];
  for (const [configKey, value] of Object.entries(props)) {
    if (typeof value !== 'string') continue;
    for (const match of value.matchAll(PLACEHOLDER_PATTERN)) {
      const [text, provider = '', path = '', key = ''] = match;
      found.push({ configKey, provider, path, key, text });
    }
  }
  return found;
}

/**
 * The keys of `props` whose values contain placeholders (Connect's `keysWithVariableValues`),
 * e.g. to put the placeholder text back into task configs derived from resolved ones.
 */
export function keysWithPlaceholders(
  props: Readonly<Record<string, string | null | undefined>>,
): Set<string> {
  return new Set(findPlaceholders(props).map((p) => p.configKey));
}

/** A placeholder its provider refuses, and why (never a value). */
export interface PlaceholderRefusal {
  readonly configKey: string;
  /** For the config key's errors: names the placeholder and the reason. */
  readonly message: string;
}

/**
 * The placeholders in `props` their providers refuse by policy, in key order (each reference
 * asked once; a check that throws refuses too). Placeholders of providers that are not
 * configured, or have no `refusal`, are not refused here. Reads no secret.
 */
export async function refusedPlaceholders(
  props: Readonly<Record<string, string | null | undefined>>,
  providers: Readonly<Record<string, ConfigProviderResolver>>,
): Promise<PlaceholderRefusal[]> {
  const reasons = new Map<string, Promise<string | undefined>>();
  const checks = findPlaceholders(props).map(async (p) => {
    const resolver = Object.hasOwn(providers, p.provider) ? providers[p.provider] : undefined;
    if (resolver?.refusal === undefined) return undefined;
    const id = JSON.stringify([p.provider, p.path, p.key]);
    // A check that fails refuses: nothing is read that could not be checked.
    const reason =
      reasons.get(id) ??
      resolver
        .refusal(p.path, p.key)
        .catch((error: unknown) => `it could not be checked (${(error as Error)?.name ?? error})`);
    reasons.set(id, reason);
    const refused = await reason;
    if (refused === undefined) return undefined;
    return {
      configKey: p.configKey,
      message: `Config provider '${p.provider}' refuses ${p.text} in configuration ${p.configKey}: ${refused}`,
    };
  });
  return (await Promise.all(checks)).filter((r): r is PlaceholderRefusal => r !== undefined);
}

function lookupId(provider: string, path: string): string {
  return JSON.stringify([provider, path]);
}

async function fetchAll(
  placeholders: readonly ConfigPlaceholder[],
  providers: Readonly<Record<string, ConfigProviderResolver>>,
): Promise<Map<string, Readonly<Record<string, string>>>> {
  const requests = new Map<
    string,
    { provider: string; path: string; keys: Set<string>; firstKey: string }
  >();
  for (const p of placeholders) {
    const id = lookupId(p.provider, p.path);
    const request = requests.get(id) ?? {
      provider: p.provider,
      path: p.path,
      keys: new Set<string>(),
      firstKey: p.configKey,
    };
    request.keys.add(p.key);
    requests.set(id, request);
  }
  const results = new Map<string, Readonly<Record<string, string>>>();
  await Promise.all(
    [...requests.entries()].map(async ([id, { provider, path, keys, firstKey }]) => {
      const resolver = Object.hasOwn(providers, provider) ? providers[provider] : undefined;
      if (resolver === undefined) {
        throw new ConfigError(
          `Config provider '${provider}' used by configuration ${firstKey} is not configured`,
          firstKey,
        );
      }
      try {
        results.set(id, await resolver.get(path, keys));
      } catch (error) {
        if (error instanceof ConnectError) throw error;
        throw new ConfigError(
          `Config provider '${provider}' failed to resolve path '${path}' used by configuration ${firstKey}`,
          firstKey,
          { cause: error },
        );
      }
    }),
  );
  return results;
}

/**
 * Resolves every placeholder in `props` through `providers` (keyed by provider name), asking
 * each provider once per path for all keys needed there. Returns a new map: values without
 * placeholders are copied, `null` values kept. Throws a {@link ConfigError} naming the config
 * key when a provider refuses a placeholder (nothing is read then), is not configured or has no
 * value for a key; errors a provider throws as {@link ConnectError}s (e.g. retriable ones)
 * propagate unchanged.
 */
export async function resolvePlaceholders<V extends string | null | undefined>(
  props: Readonly<Record<string, V>>,
  providers: Readonly<Record<string, ConfigProviderResolver>>,
): Promise<Record<string, V>> {
  const placeholders = findPlaceholders(props);
  if (placeholders.length === 0) return Object.fromEntries(Object.entries(props));
  const [refused] = await refusedPlaceholders(props, providers);
  if (refused !== undefined) throw new ConfigError(refused.message, refused.configKey);
  const lookups = await fetchAll(placeholders, providers);
  return Object.fromEntries(
    Object.entries(props).map(([configKey, value]) => {
      if (typeof value !== 'string') return [configKey, value];
      const replace = (text: string, provider: string, path: string | undefined, key: string) => {
        const data = lookups.get(lookupId(provider, path ?? ''));
        const replacement = data !== undefined && Object.hasOwn(data, key) ? data[key] : undefined;
        if (typeof replacement !== 'string') {
          throw new ConfigError(
            `Could not resolve ${text} for configuration ${configKey}: provider '${provider}' has no value for key '${key}'${path ? ` at path '${path}'` : ''}`,
            configKey,
          );
        }
        return replacement;
      };
      return [configKey, value.replace(PLACEHOLDER_PATTERN, replace)];
    }),
  );
}
