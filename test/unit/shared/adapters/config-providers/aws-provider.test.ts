// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config placeholders such as ${env:X} are plain text here
import { describe, expect, it } from 'vitest';
import {
  createSecretsManagerConfigProvider,
  createSsmConfigProvider,
  type SecretsManagerReader,
  secretReference,
} from '../../../../../shared/adapters/config-providers/aws-provider.js';
import { resolvePlaceholders } from '../../../../../shared/config/config-providers.js';
import { ConfigError } from '../../../../../shared/connect/errors.js';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf';

function fakeSecrets(secrets: Record<string, string>) {
  const reads: string[] = [];
  const reader: SecretsManagerReader = {
    async getSecretString(id) {
      reads.push(id);
      return secrets[id];
    },
  };
  return { reader, reads };
}

describe('secretReference', () => {
  it('splits a placeholder into secret id and JSON key, handling ARNs', () => {
    expect(secretReference('prod/db', 'password')).toEqual({
      secretId: 'prod/db',
      jsonKey: 'password',
    });
    expect(secretReference('', 'prod/api-key')).toEqual({ secretId: 'prod/api-key' });
    expect(secretReference('arn', ARN.slice(4))).toEqual({ secretId: ARN });
    expect(secretReference('arn', `${ARN.slice(4)}:password`)).toEqual({
      secretId: ARN,
      jsonKey: 'password',
    });
  });
});

describe('createSecretsManagerConfigProvider', () => {
  it('resolves JSON keys, whole secrets and ARNs through placeholders', async () => {
    // Prepare
    const { reader } = fakeSecrets({
      'prod/db': JSON.stringify({ username: 'app', password: 'pw', port: 5432 }),
      'prod/api-key': 'raw-key',
      [ARN]: JSON.stringify({ password: 'arn-pw' }),
    });
    const providers = { secretsmanager: createSecretsManagerConfigProvider(reader) };

    // Act
    const resolved = await resolvePlaceholders(
      {
        user: '${secretsmanager:prod/db:username}',
        port: '${secretsmanager:prod/db:port}',
        key: '${secretsmanager:prod/api-key}',
        byArn: `\${secretsmanager:${ARN}:password}`,
      },
      providers,
    );

    // Assess
    expect(resolved).toEqual({ user: 'app', port: '5432', key: 'raw-key', byArn: 'arn-pw' });
  });

  it('reports a missing secret or key as unresolvable', async () => {
    const { reader } = fakeSecrets({ 'prod/db': '{"username":"app"}' });
    const providers = { secretsmanager: createSecretsManagerConfigProvider(reader) };
    await expect(
      resolvePlaceholders({ a: '${secretsmanager:prod/db:password}' }, providers),
    ).rejects.toThrow(
      "provider 'secretsmanager' has no value for key 'password' at path 'prod/db'",
    );
    await expect(
      resolvePlaceholders({ a: '${secretsmanager:nope:password}' }, providers),
    ).rejects.toThrow(ConfigError);
  });

  it('refuses a JSON key on a secret that is not JSON without echoing the secret', async () => {
    const { reader } = fakeSecrets({ plain: 'not-json-top-secret' });
    const provider = createSecretsManagerConfigProvider(reader);
    const error = await provider.get('plain', new Set(['k'])).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('Secret plain is not a JSON object');
    expect(error.message).not.toContain('top-secret');
  });

  it('reads each secret once per lookup and caches within the TTL', async () => {
    // Prepare
    let now = 0;
    const { reader, reads } = fakeSecrets({ 'prod/db': '{"a":"1","b":"2"}' });
    const provider = createSecretsManagerConfigProvider(reader, {
      cache: { ttlMs: 1000, now: () => now },
    });

    // Act
    await provider.get('prod/db', new Set(['a', 'b']));
    await provider.get('prod/db', new Set(['a']));
    now = 1001;
    await provider.get('prod/db', new Set(['a']));

    // Assess
    expect(reads).toEqual(['prod/db', 'prod/db']);
  });
});

describe('createSsmConfigProvider', () => {
  const params: Record<string, string> = {
    '/prod/db/password': 'ssm-pw',
    'arn:aws:ssm:eu-west-1:123456789012:parameter/prod/token': 'tok',
  };
  const provider = createSsmConfigProvider({ getParameter: async (name) => params[name] });

  it('resolves parameters in MSK style and short style, and by ARN', async () => {
    const resolved = await resolvePlaceholders(
      {
        a: '${ssm::/prod/db/password}',
        b: '${ssm:/prod/db/password}',
        c: '${ssm:arn:aws:ssm:eu-west-1:123456789012:parameter/prod/token}',
      },
      { ssm: provider },
    );
    expect(resolved).toEqual({ a: 'ssm-pw', b: 'ssm-pw', c: 'tok' });
  });

  it('rejects a path', async () => {
    await expect(provider.get('/prod', new Set(['x']))).rejects.toThrow(
      "Path is not supported for the ssm config provider, invalid value '/prod'",
    );
  });
});
