import { CompressionTypes, type KafkaConfig } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { adminKafkaConfig } from '../../../../../shared/adapters/kafkajs/client.js';
import { compressionOf } from '../../../../../shared/adapters/kafkajs/producers.js';
import { ConfigError } from '../../../../../shared/connect/errors.js';

const worker: KafkaConfig = { brokers: ['b1:9092'], clientId: 'worker' };
const workerSasl: KafkaConfig = {
  brokers: ['b1:9096'],
  clientId: 'worker',
  ssl: true,
  sasl: { mechanism: 'scram-sha-512', username: 'worker', password: 'wp' },
};

describe('compressionOf', () => {
  it('maps every compression.type to its kafkajs codec id', () => {
    expect(compressionOf({})).toBe(CompressionTypes.None);
    expect(compressionOf({ compression: 'none' })).toBe(CompressionTypes.None);
    expect(compressionOf({ compression: 'gzip' })).toBe(CompressionTypes.GZIP);
    expect(compressionOf({ compression: 'snappy' })).toBe(CompressionTypes.Snappy);
    expect(compressionOf({ compression: 'lz4' })).toBe(CompressionTypes.LZ4);
    expect(compressionOf({ compression: 'zstd' })).toBe(CompressionTypes.ZSTD);
  });
});

describe('adminKafkaConfig', () => {
  it("lays client id and timeouts over the worker's settings", () => {
    expect(
      adminKafkaConfig(worker, {
        clientId: 'orders-admin',
        requestTimeoutMs: 5000,
        connectionTimeoutMs: 2000,
      }),
    ).toEqual({
      brokers: ['b1:9092'],
      clientId: 'orders-admin',
      requestTimeout: 5000,
      connectionTimeout: 2000,
    });
  });

  it("keeps the worker's TLS and SASL when the connector overrides neither", () => {
    expect(adminKafkaConfig(workerSasl, { clientId: 'x' })).toEqual({
      ...workerSasl,
      clientId: 'x',
    });
  });

  it('replaces SASL credentials and turns TLS on or off with security.protocol', () => {
    // Act
    const sasl = adminKafkaConfig(worker, {
      security: {
        protocol: 'SASL_SSL',
        sasl: { mechanism: 'plain', username: 'alice', password: 'pw' },
      },
    });
    const plaintext = adminKafkaConfig(workerSasl, { security: { protocol: 'PLAINTEXT' } });

    // Assess
    expect(sasl.ssl).toBe(true);
    expect(sasl.sasl).toEqual({ mechanism: 'plain', username: 'alice', password: 'pw' });
    expect(plaintext.ssl).toBeUndefined();
    expect(plaintext.sasl).toBeUndefined();
  });

  it('passes PEM material and turns host name checking off when asked', () => {
    // Act
    const config = adminKafkaConfig(worker, {
      security: {
        protocol: 'SSL',
        tls: { ca: 'CA', cert: 'CERT', key: 'KEY', passphrase: 'kp', verifyHostname: false },
      },
    });

    // Assess
    const ssl = config.ssl as Record<string, unknown>;
    expect(ssl).toMatchObject({ ca: ['CA'], cert: 'CERT', key: 'KEY', passphrase: 'kp' });
    expect((ssl.checkServerIdentity as () => unknown)()).toBeUndefined();
  });

  it('throws a ConfigError when SASL is asked for and nobody has credentials', () => {
    expect(() => adminKafkaConfig(worker, { security: { protocol: 'SASL_PLAINTEXT' } })).toThrow(
      ConfigError,
    );
  });
});
