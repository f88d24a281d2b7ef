// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config placeholders such as ${env:X} are plain text here
import { describe, expect, it } from 'vitest';
import { createEnvConfigProvider } from '../../../../../shared/adapters/config-providers/env-provider.js';
import { resolvePlaceholders } from '../../../../../shared/config/config-providers.js';
import { ConfigError } from '../../../../../shared/connect/errors.js';

const env = { CONNECT_DB_PASSWORD: 'pw', AWS_SECRET_ACCESS_KEY: 'aws-secret', EMPTY: '' };

describe('createEnvConfigProvider', () => {
  it('resolves environment variables by name', async () => {
    const provider = createEnvConfigProvider({ env });
    expect(await provider.get('', new Set(['CONNECT_DB_PASSWORD', 'EMPTY', 'NOPE']))).toEqual({
      CONNECT_DB_PASSWORD: 'pw',
      EMPTY: '',
    });
  });

  it('hides variables outside the allowlist pattern', async () => {
    const provider = createEnvConfigProvider({ env, allowlistPattern: 'CONNECT_.*' });
    const resolved = await provider.get(
      '',
      new Set(['CONNECT_DB_PASSWORD', 'AWS_SECRET_ACCESS_KEY']),
    );
    expect(resolved).toEqual({ CONNECT_DB_PASSWORD: 'pw' });
  });

  it('makes a disallowed variable fail resolution like a missing one', async () => {
    const providers = { env: createEnvConfigProvider({ env, allowlistPattern: 'CONNECT_.*' }) };
    await expect(
      resolvePlaceholders({ 'x.key': '${env:AWS_SECRET_ACCESS_KEY}' }, providers),
    ).rejects.toThrow('Could not resolve ${env:AWS_SECRET_ACCESS_KEY} for configuration x.key');
  });

  it('rejects paths as Kafka EnvVarConfigProvider does', async () => {
    const provider = createEnvConfigProvider({ env });
    await expect(provider.get('some/path', new Set(['X']))).rejects.toThrow(
      "Path is not supported for EnvVarConfigProvider, invalid value 'some/path'",
    );
  });

  it('reads process.env by default', async () => {
    process.env.SC_ENV_PROVIDER_TEST = 'from-process';
    try {
      expect(await createEnvConfigProvider().get('', new Set(['SC_ENV_PROVIDER_TEST']))).toEqual({
        SC_ENV_PROVIDER_TEST: 'from-process',
      });
    } finally {
      delete process.env.SC_ENV_PROVIDER_TEST;
    }
  });

  it('rejects an invalid allowlist pattern at creation', () => {
    expect(() => createEnvConfigProvider({ allowlistPattern: '(' })).toThrow(ConfigError);
  });
});
