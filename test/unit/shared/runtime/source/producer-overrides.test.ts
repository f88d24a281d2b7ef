import { describe, expect, it } from 'vitest';
import { parseConnectorConfig } from '../../../../../shared/connect/connector-config.js';
import { ConfigError } from '../../../../../shared/connect/errors.js';
import { producerOptionsOf } from '../../../../../shared/runtime/source/producer-overrides.js';

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
  it('honours compression.type and transaction.timeout.ms', () => {
    expect(options({})).toEqual({ compression: 'none' });
    expect(options({ 'compression.type': 'gzip', 'transaction.timeout.ms': '30000' })).toEqual({
      compression: 'gzip',
      transactionTimeoutMs: 30_000,
    });
  });

  it('refuses settings that would break the delivery guarantee', () => {
    expect(() => options({ acks: '1' })).toThrow(ConfigError);
    expect(() => options({ acks: '1' })).toThrow(/producer\.override\.acks/);
    expect(() => options({ 'enable.idempotence': 'false' })).toThrow(/enable\.idempotence/);
    expect(options({ acks: 'all', 'enable.idempotence': 'true' })).toEqual({ compression: 'none' });
  });

  it('says which codecs are not bundled, and rejects unknown ones and bad timeouts', () => {
    expect(() => options({ 'compression.type': 'zstd' })).toThrow(/not bundled yet/);
    expect(() => options({ 'compression.type': 'brotli' })).toThrow(/must be one of none, gzip/);
    expect(() => options({ 'transaction.timeout.ms': '-5' })).toThrow(/positive integer/);
  });
});
