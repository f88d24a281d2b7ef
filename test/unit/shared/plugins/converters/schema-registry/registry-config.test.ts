import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('refuses SASL_INHERIT and the TLS keys it does not know, saying which it takes', () => {
    expect(
      configError({
        'schema.registry.url': 'http://sr:8081',
        'basic.auth.credentials.source': 'SASL_INHERIT',
      }).key,
    ).toBe('basic.auth.credentials.source');
    const tls = configError({
      'schema.registry.url': 'https://sr:8081',
      'schema.registry.ssl.keymanager.algorithm': 'SunX509',
    });
    expect(tls.key).toBe('schema.registry.ssl.keymanager.algorithm');
    expect(tls.message).toContain('trust store, key store and endpoint identification keys');
  });
});

describe('schemaRegistrySettingsOf TLS', () => {
  const storeFile = (bytes: number[] | string) => {
    const file = join(mkdtempSync(join(tmpdir(), 'tls-')), 'store');
    writeFileSync(file, typeof bytes === 'string' ? bytes : Buffer.from(bytes));
    return file;
  };
  const JKS = [0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2];
  const base = { 'schema.registry.url': 'https://sr:8081' };

  it('has no TLS settings without the keys, and the host name check on by default', () => {
    expect(settings(base).tls).toBeNull();
    const pem = storeFile('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    expect(settings({ ...base, 'schema.registry.ssl.truststore.location': pem }).tls).toEqual({
      ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      checkServerIdentity: true,
    });
    expect(
      settings({ ...base, 'schema.registry.ssl.endpoint.identification.algorithm': '' }).tls
        ?.checkServerIdentity,
    ).toBe(false);
  });

  it.each([
    [
      'schema.registry.ssl.keystore.location',
      'key',
      /keytool -importkeystore .* -deststoretype PKCS12/,
    ],
    ['schema.registry.ssl.truststore.location', 'trust', /keytool -exportcert -rfc/],
  ])('refuses a JKS %s (told from its bytes) with the command that converts it', (key, _, how) => {
    const error = configError({
      ...base,
      [key]: storeFile(JKS),
      'schema.registry.ssl.keystore.password': 'pw-123',
    });
    expect(error.key).toBe(key);
    expect(error.message).toMatch(how);
    expect(error.message).not.toContain('pw-123');
  });

  it('names the key and the file it cannot read, and refuses a PKCS12 trust store and a PEM key store without its key', () => {
    const missing = configError({
      ...base,
      'schema.registry.ssl.keystore.location': '/no/such.p12',
    });
    expect(missing.message).toBe(
      'Invalid value /no/such.p12 for configuration schema.registry.ssl.keystore.location: the file cannot be read (ENOENT)',
    );
    expect(
      configError({
        ...base,
        'schema.registry.ssl.truststore.location': storeFile([0x30, 0x82, 1, 2]),
      }).message,
    ).toContain('openssl pkcs12 -in <file>.p12 -nokeys -out ca.pem');
    expect(
      configError({
        ...base,
        'schema.registry.ssl.keystore.certificate.chain': '-----BEGIN CERTIFICATE-----',
      }).key,
    ).toBe('schema.registry.ssl.keystore.key');
  });

  it('declares the passwords and inline keys as PASSWORD keys', () => {
    const secrets = [
      'truststore.password',
      'truststore.certificates',
      'keystore.password',
      'keystore.key',
      'keystore.certificate.chain',
      'key.password',
    ].map((k) => SCHEMA_REGISTRY_CONFIG_DEF.configKey(`schema.registry.ssl.${k}`)?.type);
    expect(new Set(secrets)).toEqual(new Set(['PASSWORD']));
  });
});
