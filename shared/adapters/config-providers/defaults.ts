import type { ConfigProviderResolver } from '../../config/config-providers.js';
import { createSecretsManagerConfigProvider, createSsmConfigProvider } from './aws-provider.js';
import { sdkParameterStoreReader, sdkSecretsManagerReader } from './aws-sdk-readers.js';
import { createEnvConfigProvider } from './env-provider.js';
import { createFileConfigProvider } from './file-provider.js';

/**
 * The config providers every deployment offers (`${env:...}`, `${file:...}`,
 * `${secretsmanager:...}`, `${ssm:...}`). The AWS clients are created now but connect only when a
 * placeholder needs them; secrets are read again at most every 5 minutes per container.
 */
export function defaultConfigProviders(
  now: () => number = () => Date.now(),
): Readonly<Record<string, ConfigProviderResolver>> {
  const cache = { ttlMs: 300_000, now };
  return {
    env: createEnvConfigProvider(),
    file: createFileConfigProvider(),
    secretsmanager: createSecretsManagerConfigProvider(sdkSecretsManagerReader(), { cache }),
    ssm: createSsmConfigProvider(sdkParameterStoreReader(), { cache }),
  };
}
