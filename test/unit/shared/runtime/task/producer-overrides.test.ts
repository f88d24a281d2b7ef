import { describe, expect, it } from 'vitest';
import { parseConnectorConfig } from '../../../../../shared/config/connector-config.js';
import { ConfigError } from '../../../../../shared/connect/errors.js';
import { producerOptionsOf } from '../../../../../shared/runtime/task/producer-overrides.js';

const options = (overrides: Record<string, string>) =>
  producerOptionsOf(
    parseConnectorConfig(
      {
        name: 'c',
        'connector.class': 'x',
        ...Object.fromEntries(
          Object.entries(overrides).map(([k, v]) => [`producer.override.${k}`, v]),
        ),
      },
      'source',
    ),
  );

describe('producerOptionsOf', () => {
  it('leaves compression to the worker default when the connector sets none', () => {
    expect(options({})).toEqual({});
  });

  it.each(['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const)(
    'honours compression.type=%s',
    (codec) => {
      expect(options({ 'compression.type': codec })).toEqual({ compression: codec });
    },
  );

  it('honours transaction.timeout.ms', () => {
    expect(options({ 'compression.type': 'zstd', 'transaction.timeout.ms': '30000' })).toEqual({
      compression: 'zstd',
      transactionTimeoutMs: 30_000,
    });
  });

  it('refuses settings that would break the delivery guarantee', () => {
    expect(() => options({ acks: '1' })).toThrow(ConfigError);
    expect(() => options({ acks: '1' })).toThrow(
      'Invalid value 1 for configuration producer.override.acks: Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.',
    );
    expect(() => options({ 'enable.idempotence': 'false' })).toThrow(
      /producer\.override\.enable\.idempotence/,
    );
    expect(() => options({ 'transactional.id': 'mine' })).toThrow(
      /producer\.override\.transactional\.id/,
    );
    expect(options({ acks: 'all', 'enable.idempotence': 'true' })).toEqual({});
  });

  it("rejects unknown codecs with Kafka's message, and bad timeouts", () => {
    expect(() => options({ 'compression.type': 'brotli' })).toThrow(
      'Invalid value brotli for configuration compression.type: String must be one of: none, gzip, snappy, lz4, zstd',
    );
    expect(() => options({ 'transaction.timeout.ms': '-5' })).toThrow(/at least 1/);
  });
});
