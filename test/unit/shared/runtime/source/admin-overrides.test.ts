import { describe, expect, it } from 'vitest';
import { parseConnectorConfig } from '../../../../../shared/config/connector-config.js';
import { ConfigError } from '../../../../../shared/connect/errors.js';
import { adminOptionsOf } from '../../../../../shared/runtime/source/admin-overrides.js';

const options = (overrides: Record<string, string>) =>
  adminOptionsOf(
    parseConnectorConfig(
      {
        name: 'c',
        'connector.class': 'x',
        'producer.override.linger.ms': '5',
        ...Object.fromEntries(
          Object.entries(overrides).map(([k, v]) => [`admin.override.${k}`, v]),
        ),
      },
      'source',
    ),
  );

describe('adminOptionsOf', () => {
  it('is undefined without honoured admin overrides (the worker admin client is used)', () => {
    expect(options({})).toBeUndefined();
    expect(options({ 'default.api.timeout.ms': '1000' })).toBeUndefined();
  });

  it('maps client id, timeouts and retries to the admin options', () => {
    expect(
      options({
        'client.id': 'orders-admin',
        'request.timeout.ms': '5000',
        'socket.connection.setup.timeout.ms': '2000',
        retries: '2',
        'retry.backoff.ms': '100',
        'retry.backoff.max.ms': '1000',
      }),
    ).toEqual({
      clientId: 'orders-admin',
      requestTimeoutMs: 5000,
      connectionTimeoutMs: 2000,
      retry: { retries: 2, initialRetryTimeMs: 100, maxRetryTimeMs: 1000 },
    });
  });

  it('maps the security settings kafkajs can honour', () => {
    expect(
      options({
        'security.protocol': 'SASL_SSL',
        'sasl.mechanism': 'SCRAM-SHA-256',
        'sasl.jaas.config':
          'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p";',
        'ssl.truststore.certificates': 'CA',
        'ssl.endpoint.identification.algorithm': 'https',
      }),
    ).toEqual({
      security: {
        protocol: 'SASL_SSL',
        sasl: { mechanism: 'scram-sha-256', username: 'u', password: 'p' },
        tls: { ca: 'CA', verifyHostname: true },
      },
    });
  });

  it('throws a ConfigError naming the refused key', () => {
    expect(() => options({ 'sasl.mechanism': 'OAUTHBEARER' })).toThrow(ConfigError);
    expect(() => options({ 'sasl.mechanism': 'OAUTHBEARER' })).toThrow(
      /admin\.override\.sasl\.mechanism/,
    );
  });
});
