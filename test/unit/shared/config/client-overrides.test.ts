import { describe, expect, it } from 'vitest';
import {
  COMPRESSION_TYPES,
  clientOverrideErrors,
  parseAdminOverrides,
  parseProducerOverrides,
} from '../../../../shared/config/client-overrides.js';
import {
  type PluginConfigLookup,
  validateConnectorConfig,
} from '../../../../shared/config/connector-config.js';
import { ConfigDef } from '../../../../shared/connect/config-def.js';
import { ConfigError } from '../../../../shared/connect/errors.js';

const PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule';

const source = (extra: Record<string, string>) => ({
  name: 'src',
  'connector.class': 'org.example.Source',
  ...extra,
});

const errorsOf = (props: Record<string, string>, kind: 'source' | 'sink' = 'source') =>
  Object.fromEntries(clientOverrideErrors(props, kind).map((v) => [v.name, v.errors]));

/** The ConfigError `fn` throws. */
function thrown(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseProducerOverrides', () => {
  it.each(COMPRESSION_TYPES)('honours compression.type=%s', (codec) => {
    expect(parseProducerOverrides({ 'compression.type': codec })).toEqual({
      compressionType: codec,
    });
  });

  it.each(['brotli', 'ZSTD', 'lz4hc', ''])(
    "rejects compression.type=%s with the Java producer's message",
    (codec) => {
      // Act
      const error = thrown(() => parseProducerOverrides({ 'compression.type': codec }));

      // Assess
      expect(error.key).toBe('producer.override.compression.type');
      expect(error.message).toBe(
        `Invalid value ${codec} for configuration compression.type: String must be one of: none, gzip, snappy, lz4, zstd`,
      );
    },
  );

  it('honours transaction.timeout.ms and rejects values that are not positive ints', () => {
    expect(parseProducerOverrides({ 'transaction.timeout.ms': ' 30000 ' })).toEqual({
      transactionTimeoutMs: 30_000,
    });
    expect(thrown(() => parseProducerOverrides({ 'transaction.timeout.ms': '0' })).message).toBe(
      'Invalid value 0 for configuration transaction.timeout.ms: Value must be at least 1',
    );
    expect(thrown(() => parseProducerOverrides({ 'transaction.timeout.ms': 'soon' })).key).toBe(
      'producer.override.transaction.timeout.ms',
    );
  });

  it('refuses acks other than all with the idempotent producer message', () => {
    // Act
    const error = thrown(() => parseProducerOverrides({ acks: '1' }));

    // Assess
    expect(error.key).toBe('producer.override.acks');
    expect(error.message).toBe(
      'Invalid value 1 for configuration producer.override.acks: Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.',
    );
    expect(() => parseProducerOverrides({ acks: '0' })).toThrow(/Must set acks to all/);
    expect(() => parseProducerOverrides({ acks: 'some' })).toThrow(
      'Invalid value some for configuration acks: String must be one of: all, -1, 0, 1',
    );
    expect(parseProducerOverrides({ acks: 'all' })).toEqual({});
    expect(parseProducerOverrides({ acks: '-1' })).toEqual({});
  });

  it('refuses disabling idempotence, a transactional id and another cluster', () => {
    expect(thrown(() => parseProducerOverrides({ 'enable.idempotence': 'false' })).key).toBe(
      'producer.override.enable.idempotence',
    );
    expect(() => parseProducerOverrides({ 'enable.idempotence': 'false' })).toThrow(
      /always idempotent/,
    );
    expect(parseProducerOverrides({ 'enable.idempotence': 'TRUE' })).toEqual({});
    expect(() => parseProducerOverrides({ 'transactional.id': 'mine' })).toThrow(
      /cannot be overridden/,
    );
    expect(() => parseProducerOverrides({ 'bootstrap.servers': 'other:9092' })).toThrow(
      /worker’s Kafka cluster/,
    );
  });

  it('accepts keys it does not honour', () => {
    expect(parseProducerOverrides({ 'linger.ms': '5', 'batch.size': 'x' })).toEqual({});
  });
});

describe('parseAdminOverrides', () => {
  it('honours client id, timeouts and retries', () => {
    expect(
      parseAdminOverrides({
        'client.id': 'orders-admin',
        'request.timeout.ms': '5000',
        'socket.connection.setup.timeout.ms': '2000',
        retries: '3',
        'retry.backoff.ms': '50',
        'retry.backoff.max.ms': '800',
        'default.api.timeout.ms': '1', // accepted, no effect
      }),
    ).toEqual({
      clientId: 'orders-admin',
      requestTimeoutMs: 5000,
      connectionSetupTimeoutMs: 2000,
      retries: 3,
      retryBackoffMs: 50,
      retryBackoffMaxMs: 800,
    });
    expect(() => parseAdminOverrides({ 'request.timeout.ms': '-1' })).toThrow(
      'Invalid value -1 for configuration request.timeout.ms: Value must be at least 0',
    );
  });

  it('maps SASL PLAIN and SCRAM logins, inferring PLAIN from its login module', () => {
    expect(
      parseAdminOverrides({
        'security.protocol': 'sasl_ssl',
        'sasl.jaas.config': `${PLAIN} required username="alice" password="s3cr\\"et";`,
      }),
    ).toEqual({
      securityProtocol: 'SASL_SSL',
      sasl: { module: PLAIN, mechanism: 'PLAIN', username: 'alice', password: 's3cr"et' },
    });
    expect(
      parseAdminOverrides({
        'sasl.mechanism': 'SCRAM-SHA-512',
        'sasl.jaas.config': `${SCRAM} required username=bob password=pw;`,
      }).sasl,
    ).toEqual({ module: SCRAM, mechanism: 'SCRAM-SHA-512', username: 'bob', password: 'pw' });
  });

  it('refuses SASL settings kafkajs cannot honour, without printing the secret', () => {
    // Act
    const scramWithoutMechanism = thrown(() =>
      parseAdminOverrides({ 'sasl.jaas.config': `${SCRAM} required username=a password=p;` }),
    );

    // Assess
    expect(scramWithoutMechanism.key).toBe('admin.override.sasl.jaas.config');
    expect(scramWithoutMechanism.message).toBe(
      'Invalid value [hidden] for configuration admin.override.sasl.jaas.config: ScramLoginModule needs sasl.mechanism=SCRAM-SHA-256 or SCRAM-SHA-512',
    );
    expect(() => parseAdminOverrides({ 'sasl.mechanism': 'GSSAPI' })).toThrow(
      /PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512/,
    );
    expect(() =>
      parseAdminOverrides({ 'sasl.jaas.config': 'com.example.Login required user=x;' }),
    ).toThrow(/\[hidden\].*username and password/);
    expect(() => parseAdminOverrides({ 'security.protocol': 'TLS' })).toThrow(
      'Invalid value TLS for configuration security.protocol: String must be one of (case insensitive): PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL',
    );
  });

  it('maps PEM key and trust material and host name verification', () => {
    expect(
      parseAdminOverrides({
        'ssl.truststore.type': 'PEM',
        'ssl.truststore.certificates': 'CA-PEM',
        'ssl.keystore.type': 'PEM',
        'ssl.keystore.certificate.chain': 'CERT-PEM',
        'ssl.keystore.key': 'KEY-PEM',
        'ssl.key.password': 'kp',
        'ssl.endpoint.identification.algorithm': '',
      }).tls,
    ).toEqual({
      ca: 'CA-PEM',
      cert: 'CERT-PEM',
      key: 'KEY-PEM',
      keyPassword: 'kp',
      verifyHostname: false,
    });
  });

  it('refuses file-based stores, a chain without its key and another cluster', () => {
    expect(() => parseAdminOverrides({ 'ssl.truststore.location': '/etc/ts.jks' })).toThrow(
      /stores in files are not supported/,
    );
    expect(() => parseAdminOverrides({ 'ssl.keystore.type': 'PKCS12' })).toThrow(
      /ssl.keystore.type=PEM/,
    );
    expect(() => parseAdminOverrides({ 'ssl.keystore.certificate.chain': 'CERT' })).toThrow(
      /ssl.keystore.key is required/,
    );
    expect(thrown(() => parseAdminOverrides({ 'bootstrap.servers': 'b:9092' })).key).toBe(
      'admin.override.bootstrap.servers',
    );
  });
});

describe('clientOverrideErrors', () => {
  it('names each failing key with its prefix', () => {
    expect(
      errorsOf(
        source({
          'producer.override.compression.type': 'brotli',
          'producer.override.acks': '1',
          'producer.override.linger.ms': '5',
          'admin.override.request.timeout.ms': 'soon',
          'admin.override.client.id': 'fine',
        }),
      ),
    ).toEqual({
      'producer.override.compression.type': [
        'Invalid value brotli for configuration compression.type: String must be one of: none, gzip, snappy, lz4, zstd',
      ],
      'producer.override.acks': [
        'Invalid value 1 for configuration producer.override.acks: Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.',
      ],
      'admin.override.request.timeout.ms': [
        'Invalid value soon for configuration request.timeout.ms: Not a number of type INT',
      ],
    });
  });

  it('leaves values with config provider placeholders to task start', () => {
    expect(
      errorsOf(
        source({
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a config provider placeholder
          'admin.override.sasl.jaas.config': '${secretsmanager:kafka:jaas}',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a config provider placeholder
          'producer.override.compression.type': '${env:CODEC}',
        }),
      ),
    ).toEqual({});
  });

  it('checks sinks only when they write a dead letter queue, as Connect does', () => {
    const sink = { 'producer.override.acks': '0', topics: 't' };
    expect(errorsOf(sink, 'sink')).toEqual({});
    expect(
      Object.keys(errorsOf({ ...sink, 'errors.deadletterqueue.topic.name': 'dlq' }, 'sink')),
    ).toEqual(['producer.override.acks']);
  });

  it('reports through validateConnectorConfig', () => {
    // Prepare
    const lookup: PluginConfigLookup = (className, kind) =>
      kind.includes('converter') && className.includes('Converter') ? new ConfigDef() : undefined;

    // Act
    const values = validateConnectorConfig(
      source({ 'producer.override.compression.type': 'brotli' }),
      'source',
      new ConfigDef(),
      lookup,
    );

    // Assess
    const value = values.find((v) => v.name === 'producer.override.compression.type');
    expect(value?.value).toBe('brotli');
    expect(value?.errors).toEqual([
      'Invalid value brotli for configuration compression.type: String must be one of: none, gzip, snappy, lz4, zstd',
    ]);
  });
});
