// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config placeholders such as ${env:X} are plain text here
import { describe, expect, it } from 'vitest';
import {
  type ConfigProviderResolver,
  findPlaceholders,
  hasPlaceholder,
  keysWithPlaceholders,
  refusedPlaceholders,
  resolvePlaceholders,
} from '../../../../shared/config/config-providers.js';
import { ConfigError, RetriableError } from '../../../../shared/connect/errors.js';

/** A fake provider backed by a map of path → key → value, recording its calls. */
function fakeProvider(data: Record<string, Record<string, string>>) {
  const calls: { path: string; keys: string[] }[] = [];
  const provider: ConfigProviderResolver = {
    async get(path, keys) {
      calls.push({ path, keys: [...keys].sort() });
      const values = data[path] ?? {};
      return Object.fromEntries(
        [...keys].flatMap((k) => (k in values ? [[k, values[k] as string]] : [])),
      );
    },
  };
  return { provider, calls };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('findPlaceholders', () => {
  it('parses provider, optional path and key like Kafka ConfigTransformer', () => {
    const found = findPlaceholders({
      a: '${env:DB_PASSWORD}',
      b: 'jdbc:postgresql://${file:/opt/app.properties:db.host}:5432/${env:DB}',
      c: '${ssm::/prod/db/password}',
      d: '${secretsmanager:prod/db:password}',
      e: 'no placeholder ${here}',
      f: null,
    });
    expect(
      found.map(({ configKey, provider, path, key }) => [configKey, provider, path, key]),
    ).toEqual([
      ['a', 'env', '', 'DB_PASSWORD'],
      ['b', 'file', '/opt/app.properties', 'db.host'],
      ['b', 'env', '', 'DB'],
      ['c', 'ssm', '', '/prod/db/password'],
      ['d', 'secretsmanager', 'prod/db', 'password'],
    ]);
    expect(found[0]?.text).toBe('${env:DB_PASSWORD}');
  });

  it('lets keys contain colons but not paths', () => {
    const [p] = findPlaceholders({ x: '${vault:secret/db:user:name}' });
    expect(p).toMatchObject({ provider: 'vault', path: 'secret/db', key: 'user:name' });
  });

  it('tells which keys hold placeholders', () => {
    expect(hasPlaceholder('${env:X}')).toBe(true);
    expect(hasPlaceholder('$env:X')).toBe(false);
    expect(keysWithPlaceholders({ a: '${env:X}', b: 'plain', c: 'x ${file:/f:k}' })).toEqual(
      new Set(['a', 'c']),
    );
  });
});

describe('resolvePlaceholders', () => {
  it('replaces placeholders and keeps other values, without touching the input', async () => {
    // Prepare
    const env = fakeProvider({ '': { DB_USER: 'app', DB_PASSWORD: 'p@ss$1' } });
    const props = {
      user: '${env:DB_USER}',
      url: 'u=${env:DB_USER};p=${env:DB_PASSWORD}',
      plain: 'x',
      gone: null,
    };

    // Act
    const resolved = await resolvePlaceholders(props, { env: env.provider });

    // Assess
    expect(resolved).toEqual({ user: 'app', url: 'u=app;p=p@ss$1', plain: 'x', gone: null });
    expect(props.user).toBe('${env:DB_USER}');
  });

  it('asks each provider once per path for all keys needed there', async () => {
    const file = fakeProvider({ '/a.properties': { x: '1', y: '2' }, '/b.properties': { x: '3' } });
    await resolvePlaceholders(
      {
        p: '${file:/a.properties:x}',
        q: '${file:/a.properties:y}',
        r: '${file:/b.properties:x}',
        s: '${file:/a.properties:x}',
      },
      { file: file.provider },
    );
    expect(file.calls).toEqual([
      { path: '/a.properties', keys: ['x', 'y'] },
      { path: '/b.properties', keys: ['x'] },
    ]);
  });

  it('does not scan resolved values again', async () => {
    const env = fakeProvider({ '': { A: '${env:B}', B: 'b' } });
    expect(await resolvePlaceholders({ k: '${env:A}' }, { env: env.provider })).toEqual({
      k: '${env:B}',
    });
  });

  it('returns a copy when there is nothing to resolve', async () => {
    const props = { a: 'b' };
    const resolved = await resolvePlaceholders(props, {});
    expect(resolved).toEqual(props);
    expect(resolved).not.toBe(props);
  });

  it('fails naming the config key when a provider is not configured', async () => {
    const error = await rejection(resolvePlaceholders({ 'db.password': '${vault:db:pw}' }, {}));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe('db.password');
    expect(error.message).toBe(
      "Config provider 'vault' used by configuration db.password is not configured",
    );
  });

  it('fails naming the config key when the provider has no such key, without echoing secrets', async () => {
    // Prepare
    const env = fakeProvider({ '': { OTHER: 'top-secret' } });

    // Act
    const error = await rejection(
      resolvePlaceholders(
        { ok: '${env:OTHER}', 'db.password': '${env:MISSING}' },
        { env: env.provider },
      ),
    );

    // Assess
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe('db.password');
    expect(error.message).toBe(
      "Could not resolve ${env:MISSING} for configuration db.password: provider 'env' has no value for key 'MISSING'",
    );
    expect(error.message).not.toContain('top-secret');
  });

  it('passes Connect errors from providers through, e.g. retriable ones', async () => {
    const flaky: ConfigProviderResolver = {
      get: async () => {
        throw new RetriableError('throttled');
      },
    };
    const error = await rejection(resolvePlaceholders({ a: '${ssm::/x}' }, { ssm: flaky }));
    expect(error).toBeInstanceOf(RetriableError);
  });

  it('wraps other provider failures in a ConfigError that keeps the cause', async () => {
    const broken: ConfigProviderResolver = {
      get: async () => {
        throw new TypeError('socket closed');
      },
    };
    const error = await rejection(resolvePlaceholders({ a: '${ssm::/x}' }, { ssm: broken }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      "Config provider 'ssm' failed to resolve path '' used by configuration a",
    );
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it('ignores inherited names when looking up providers', async () => {
    const error = await rejection(resolvePlaceholders({ a: '${toString:x}' }, {}));
    expect(error.message).toContain("Config provider 'toString'");
  });
});

describe('refusedPlaceholders', () => {
  /** A provider refusing keys that start with AWS_, recording what it is asked. */
  function guarded() {
    const { provider, calls } = fakeProvider({
      '': { AWS_SECRET_ACCESS_KEY: 'aws-secret', OK: 'v' },
    });
    const asked: string[] = [];
    const refusing: ConfigProviderResolver = {
      get: provider.get,
      refusal: async (_path, key) => {
        asked.push(key);
        return key.startsWith('AWS_') ? `environment variable ${key} is not allowed` : undefined;
      },
    };
    return { refusing, calls, asked };
  }

  it('lists the refused placeholders by config key, asking each reference once', async () => {
    // Prepare
    const { refusing, asked } = guarded();

    // Act
    const refused = await refusedPlaceholders(
      {
        'kafka.topic': 'leak-${env:AWS_SECRET_ACCESS_KEY}',
        'other.topic': '${env:AWS_SECRET_ACCESS_KEY}-${env:OK}',
        fine: '${env:OK}',
        vault: '${vault:db:password}',
        plain: 'text',
      },
      { env: refusing },
    );

    // Assess
    expect(refused).toEqual([
      {
        configKey: 'kafka.topic',
        message:
          "Config provider 'env' refuses ${env:AWS_SECRET_ACCESS_KEY} in configuration kafka.topic: environment variable AWS_SECRET_ACCESS_KEY is not allowed",
      },
      {
        configKey: 'other.topic',
        message:
          "Config provider 'env' refuses ${env:AWS_SECRET_ACCESS_KEY} in configuration other.topic: environment variable AWS_SECRET_ACCESS_KEY is not allowed",
      },
    ]);
    expect(asked.sort()).toEqual(['AWS_SECRET_ACCESS_KEY', 'OK']);
  });

  it('refuses a placeholder whose check fails, naming only the error kind', async () => {
    const broken: ConfigProviderResolver = {
      get: async () => ({}),
      refusal: async () => {
        throw new TypeError('socket closed near s3cr3t');
      },
    };
    const [refused] = await refusedPlaceholders({ k: '${vault:db:pw}' }, { vault: broken });
    expect(refused?.message).toBe(
      "Config provider 'vault' refuses ${vault:db:pw} in configuration k: it could not be checked (TypeError)",
    );
  });

  it('refuses nothing for providers without a policy', async () => {
    const { provider } = fakeProvider({});
    expect(await refusedPlaceholders({ a: '${env:AWS_X}' }, { env: provider })).toEqual([]);
  });

  it('makes resolution fail on a refusal before anything is read', async () => {
    // Prepare
    const { refusing, calls } = guarded();

    // Act
    const error = await rejection(
      resolvePlaceholders(
        { ok: '${env:OK}', 'kafka.topic': '${env:AWS_SECRET_ACCESS_KEY}' },
        { env: refusing },
      ),
    );

    // Assess
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe('kafka.topic');
    expect(error.message).not.toContain('aws-secret');
    expect(calls).toEqual([]);
  });
});
