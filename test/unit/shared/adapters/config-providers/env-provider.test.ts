// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config placeholders such as ${env:X} are plain text here
import { describe, expect, it } from 'vitest';
import {
  createEnvConfigProvider,
  LAMBDA_RESERVED_VARIABLES,
} from '../../../../../shared/adapters/config-providers/env-provider.js';
import { resolvePlaceholders } from '../../../../../shared/config/config-providers.js';
import { ConfigError } from '../../../../../shared/connect/errors.js';

const env = { CONNECT_DB_PASSWORD: 'pw', AWS_SECRET_ACCESS_KEY: 'aws-secret', EMPTY: '' };

/** What Lambda puts in a function's environment, beside a variable of the operator's. */
const lambdaEnv = {
  AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'lambda-secret',
  AWS_SESSION_TOKEN: 'lambda-token',
  AWS_LAMBDA_FUNCTION_NAME: 'fn',
  AWS_REGION: 'eu-west-1',
  _HANDLER: 'index.handler',
  _X_AMZN_TRACE_ID: 'Root=1-abc',
  LAMBDA_TASK_ROOT: '/var/task',
  LAMBDA_RUNTIME_DIR: '/var/runtime',
  TZ: ':UTC',
  CONNECT_DB_PASSWORD: 'pw',
};

describe('createEnvConfigProvider', () => {
  it('resolves environment variables by name', async () => {
    const provider = createEnvConfigProvider({ env });
    expect(await provider.get('', new Set(['CONNECT_DB_PASSWORD', 'EMPTY', 'NOPE']))).toEqual({
      CONNECT_DB_PASSWORD: 'pw',
      EMPTY: '',
    });
    await expect(provider.refusal?.('', 'CONNECT_DB_PASSWORD')).resolves.toBeUndefined();
  });

  it('never returns variables outside the allowlist pattern', async () => {
    const provider = createEnvConfigProvider({ env, allowlistPattern: 'CONNECT_.*' });
    const resolved = await provider.get(
      '',
      new Set(['CONNECT_DB_PASSWORD', 'AWS_SECRET_ACCESS_KEY']),
    );
    expect(resolved).toEqual({ CONNECT_DB_PASSWORD: 'pw' });
  });

  it('matches the whole name, as Kafka does', async () => {
    const provider = createEnvConfigProvider({ env, allowlistPattern: 'CONNECT' });
    expect(await provider.refusal?.('', 'CONNECT_DB_PASSWORD')).toBe(
      "environment variable CONNECT_DB_PASSWORD is not allowed by the worker's config.providers.env.param.allowlist.pattern",
    );
  });

  it('refuses a variable outside the allowlist, naming the config key and never the value', async () => {
    // Prepare
    const providers = { env: createEnvConfigProvider({ env, allowlistPattern: 'CONNECT_.*' }) };

    // Act
    const error = await resolvePlaceholders(
      { 'x.key': 'leak-${env:AWS_SECRET_ACCESS_KEY}' },
      providers,
    ).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe('x.key');
    expect((error as Error).message).toBe(
      "Config provider 'env' refuses ${env:AWS_SECRET_ACCESS_KEY} in configuration x.key: environment variable AWS_SECRET_ACCESS_KEY is not allowed by the worker's config.providers.env.param.allowlist.pattern",
    );
    expect((error as Error).message).not.toContain('aws-secret');
  });

  it("refuses Lambda's reserved variables even when the allowlist is .*", async () => {
    // Prepare
    const provider = createEnvConfigProvider({
      env: lambdaEnv,
      allowlistPattern: '.*',
      reserved: LAMBDA_RESERVED_VARIABLES,
    });
    const reserved = Object.keys(lambdaEnv).filter((name) => name !== 'CONNECT_DB_PASSWORD');

    // Act
    const resolved = await provider.get('', new Set(Object.keys(lambdaEnv)));
    const reasons = await Promise.all(reserved.map((name) => provider.refusal?.('', name)));

    // Assess
    expect(resolved).toEqual({ CONNECT_DB_PASSWORD: 'pw' });
    expect(reasons.every((r) => r?.includes('is reserved by AWS Lambda'))).toBe(true);
    await expect(
      resolvePlaceholders({ 'kafka.topic': '${env:AWS_SECRET_ACCESS_KEY}' }, { env: provider }),
    ).rejects.toThrow(
      'environment variable AWS_SECRET_ACCESS_KEY is reserved by AWS Lambda (the function’s credentials and the runtime’s own variables) and never readable by connector configs',
    );
  });

  it('rejects paths as Kafka EnvVarConfigProvider does', async () => {
    const provider = createEnvConfigProvider({ env });
    await expect(provider.get('some/path', new Set(['X']))).rejects.toThrow(
      "Path is not supported for EnvVarConfigProvider, invalid value 'some/path'",
    );
    expect(await provider.refusal?.('some/path', 'X')).toBe(
      "EnvVarConfigProvider takes no path (got 'some/path')",
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
