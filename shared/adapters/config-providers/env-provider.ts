/**
 * The `env` config provider, as Kafka's `EnvVarConfigProvider`: `${env:NAME}` resolves to the
 * environment variable `NAME`. Paths are not supported (`${env:some/path:NAME}` fails). An
 * allowlist (Kafka's `allowlist.pattern`, a regex the whole name must match) limits which
 * variables configs may read; keep it tight in Lambda, whose environment also holds AWS
 * credentials.
 */
import type { ConfigProviderResolver } from '../../config/config-providers.js';
import { compileFullMatch } from '../../connect/config-validators.js';
import { ConfigError } from '../../connect/errors.js';

/** The provider name configs use: `${env:NAME}`. */
export const ENV_PROVIDER_NAME = 'env';

export interface EnvConfigProviderOptions {
  /**
   * The variables to read, looked up at each resolution.
   * @default process.env
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Only variables whose whole name matches this regex are visible (Kafka's
   * `allowlist.pattern`); others resolve as missing.
   * @default '.*'
   */
  readonly allowlistPattern?: string;
}

/**
 * Creates the `env` provider. Throws {@link ConfigError} if `allowlistPattern` is not a valid
 * regex.
 *
 * @example
 * const providers = { env: createEnvConfigProvider({ allowlistPattern: 'CONNECT_.*' }) };
 * await resolvePlaceholders({ 'db.password': '${env:CONNECT_DB_PASSWORD}' }, providers);
 */
export function createEnvConfigProvider(
  options: EnvConfigProviderOptions = {},
): ConfigProviderResolver {
  let allowlist: RegExp;
  try {
    allowlist = compileFullMatch(options.allowlistPattern ?? '.*');
  } catch (error) {
    throw new ConfigError(
      `Invalid value ${options.allowlistPattern} for configuration allowlist.pattern: not a valid regex`,
      'allowlist.pattern',
      { cause: error },
    );
  }
  return {
    async get(path, keys) {
      if (path !== '') {
        throw new ConfigError(
          `Path is not supported for EnvVarConfigProvider, invalid value '${path}'`,
        );
      }
      const env = options.env ?? process.env;
      const found: Record<string, string> = {};
      for (const key of keys) {
        const value = Object.hasOwn(env, key) ? env[key] : undefined;
        if (value !== undefined && allowlist.test(key)) found[key] = value;
      }
      return found;
    },
  };
}
