import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../../shared/connect/errors.js';
import {
  SCHEMA_REGISTRY_CONFIG_DEF,
  type SchemaRegistrySettings,
  schemaRegistrySettingsOf,
} from '../../../../../../shared/plugins/converters/schema-registry/registry-config.js';

function settings(props: Record<string, string>): SchemaRegistrySettings {
  return schemaRegistrySettingsOf(SCHEMA_REGISTRY_CONFIG_DEF.parse(props), props);
}

function configError(props: Record<string, string>): ConfigError {
  try {
    settings(props);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('schemaRegistrySettingsOf', () => {
  it('takes several URLs, without their user info or trailing slash', () => {
    const parsed = settings({
      'schema.registry.url': 'http://u:p@one:8081/, https://two:8081/apis/ccompat/v7',
    });
    expect(parsed.endpoints.map((e) => e.url)).toEqual([
      'http://one:8081',
      'https://two:8081/apis/ccompat/v7',
    ]);
    expect(parsed.endpoints.map((e) => e.authorization !== null)).toEqual([true, false]);
  });

  it('has Confluent defaults: 1000 schemas per cache, latest for 60 s, 60 s + 60 s per request', () => {
    expect(settings({ 'schema.registry.url': 'http://sr:8081' })).toMatchObject({
      cacheCapacity: 1000,
      latestTtlMs: 60_000,
      requestTimeoutMs: 120_000,
    });
    expect(
      settings({ 'schema.registry.url': 'http://sr:8081', 'latest.cache.ttl.sec': '-1' })
        .latestTtlMs,
    ).toBeNull();
  });

  it('names the key, never the credentials, of a URL it refuses', () => {
    const error = configError({ 'schema.registry.url': 'ftp://bob:hunter2@sr:2121' });
    expect(error.key).toBe('schema.registry.url');
    expect(error.message).toBe(
      'Invalid value for configuration schema.registry.url: entry 1 is a ftp: URL; only http and https are supported',
    );
    const unparsable = configError({ 'schema.registry.url': 'http://ok:1,bob:hunter2@@' });
    expect(unparsable.message).not.toContain('hunter2');
    expect(unparsable.message).toContain('entry 2 is a bob: URL');
    expect(configError({ 'schema.registry.url': 'http://[bob:hunter2' }).message).toBe(
      'Invalid value for configuration schema.registry.url: entry 1 is not a URL',
    );
  });

  it('asks for user:password with USER_INFO, and hides what it got', () => {
    const error = configError({
      'schema.registry.url': 'http://sr:8081',
      'basic.auth.credentials.source': 'USER_INFO',
      'basic.auth.user.info': 'no-colon-secret',
    });
    expect(error.key).toBe('basic.auth.user.info');
    expect(error.message).not.toContain('no-colon-secret');
  });

  it('refuses SASL_INHERIT and the TLS keys it cannot honour, saying what to do', () => {
    expect(
      configError({
        'schema.registry.url': 'http://sr:8081',
        'basic.auth.credentials.source': 'SASL_INHERIT',
      }).key,
    ).toBe('basic.auth.credentials.source');
    const tls = configError({
      'schema.registry.url': 'https://sr:8081',
      'schema.registry.ssl.truststore.location': '/etc/ca.jks',
    });
    expect(tls.key).toBe('schema.registry.ssl.truststore.location');
    expect(tls.message).toContain('NODE_EXTRA_CA_CERTS');
  });
});
