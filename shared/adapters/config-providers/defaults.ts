import type { ConfigProviderResolver } from '../../config/config-providers.js';
import { createSecretsManagerConfigProvider, createSsmConfigProvider } from './aws-provider.js';
import { sdkParameterStoreReader, sdkSecretsManagerReader } from './aws-sdk-readers.js';
import { createEnvConfigProvider, type ReservedVariables } from './env-provider.js';
import { createFileConfigProvider } from './file-provider.js';

/**
 * The worker's config provider settings, Kafka Connect's `config.providers.<name>.param.*`. The
 * operator sets them (the functions' environment, the CDK construct's `configProviders`, the
 * environment of `npm start`), never a connector config.
 */
export interface ConfigProviderSettings {
  /**
   * `config.providers.env.param.allowlist.pattern`: the environment variables `${env:NAME}` may
   * read, a regex the whole name must match.
   */
  readonly envAllowlistPattern: string;
  /**
   * `config.providers.file.param.allowed.paths`: the absolute directories `${file:...}` may
   * read; `undefined` allows every path (but /proc).
   */
  readonly fileAllowedPaths: readonly string[] | undefined;
  /** Variables refused whatever the allowlist says (Lambda's). @default none */
  readonly reservedVariables?: ReservedVariables;
}

/**
 * The config providers every deployment offers (`${env:...}`, `${file:...}`,
 * `${secretsmanager:...}`, `${ssm:...}`), the first two limited by `settings`. The AWS clients
 * are created now but connect only when a placeholder needs them; secrets are read again at
 * most every 5 minutes per container. Throws a `ConfigError` naming the setting when the
 * allowlist is not a regex or an allowed path is not an existing absolute directory.
 */
export function defaultConfigProviders(
  settings: ConfigProviderSettings,
  now: () => number = () => Date.now(),
): Readonly<Record<string, ConfigProviderResolver>> {
  const cache = { ttlMs: 300_000, now };
  return {
    env: createEnvConfigProvider({
      allowlistPattern: settings.envAllowlistPattern,
      ...(settings.reservedVariables === undefined ? {} : { reserved: settings.reservedVariables }),
    }),
    file: createFileConfigProvider(
      settings.fileAllowedPaths === undefined ? {} : { allowedPaths: settings.fileAllowedPaths },
    ),
    secretsmanager: createSecretsManagerConfigProvider(sdkSecretsManagerReader(), { cache }),
    ssm: createSsmConfigProvider(sdkParameterStoreReader(), { cache }),
  };
}
