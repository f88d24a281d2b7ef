import type { ConnectionOptions } from 'node:tls';
import { Kafka, type KafkaConfig, type logCreator, logLevel, type SASLOptions } from 'kafkajs';
import { ConfigError } from '../../connect/errors.js';
import type {
  AdminOptions,
  CompressionType,
  IdempotentProducer,
  KafkaAdminPort,
  KafkaClientFactory,
  ProducerOptions,
  SaslCredentials,
  TlsOverrides,
  TransactionalProducer,
} from '../../ports/kafka.js';
import { KafkaJsAdmin } from './admin.js';
import { registerKafkaJsCodecs } from './codecs/kafkajs-codecs.js';
import { KafkaJsIdempotentProducer, KafkaJsTransactionalProducer } from './producers.js';
import { retry } from './records.js';

export interface KafkaJsOptions {
  readonly brokers: readonly string[];
  readonly clientId?: string;
  readonly ssl?: KafkaConfig['ssl'];
  readonly sasl?: KafkaConfig['sasl'];
  /** kafkajs log level (default: errors only). */
  readonly logLevel?: logLevel;
  /** Where kafkajs' log entries go (default: kafkajs' console logger). */
  readonly logCreator?: logCreator;
  /** Producer transaction timeout in ms (default 60000). */
  readonly transactionTimeoutMs?: number;
  /**
   * The worker-wide producer compression (Connect's worker `producer.compression.type`), used
   * when a connector sets no `producer.override.compression.type`. @default 'none'
   */
  readonly compression?: CompressionType;
}

/**
 * The kafkajs implementation of the Kafka port. One instance per process (per warm Lambda
 * container). Building one registers the snappy, lz4 and zstd codecs in kafkajs (once per process).
 */
export class KafkaJsClientFactory implements KafkaClientFactory {
  readonly #config: KafkaConfig;
  readonly #kafka: Kafka;
  readonly #transactionTimeoutMs: number;
  readonly #compression: CompressionType;

  constructor(options: KafkaJsOptions) {
    registerKafkaJsCodecs();
    this.#config = {
      brokers: [...options.brokers],
      clientId: options.clientId ?? 'serverless-connect',
      logLevel: options.logLevel ?? logLevel.ERROR,
      ...(options.logCreator === undefined ? {} : { logCreator: options.logCreator }),
      retry,
      ...(options.ssl === undefined ? {} : { ssl: options.ssl }),
      ...(options.sasl === undefined ? {} : { sasl: options.sasl }),
    };
    this.#kafka = new Kafka(this.#config);
    this.#transactionTimeoutMs = options.transactionTimeoutMs ?? 60_000;
    this.#compression = options.compression ?? 'none';
  }

  transactionalProducer(
    transactionalId: string,
    options: ProducerOptions = {},
  ): TransactionalProducer {
    return new KafkaJsTransactionalProducer(transactionalId, this.#kafka, {
      transactionTimeoutMs: this.#transactionTimeoutMs,
      compression: this.#compression,
      ...options,
    });
  }

  idempotentProducer(options: ProducerOptions = {}): IdempotentProducer {
    return new KafkaJsIdempotentProducer(this.#kafka, {
      compression: this.#compression,
      ...options,
    });
  }

  /**
   * The worker's admin client when `options` is absent or empty; otherwise an admin client on a
   * kafkajs instance of its own, built from the worker's settings with `options` on top (kafkajs
   * keeps client id, timeouts and security per instance).
   */
  admin(options?: AdminOptions): KafkaAdminPort {
    if (options === undefined || Object.keys(options).length === 0) {
      return new KafkaJsAdmin(this.#kafka);
    }
    const adminRetry = {
      ...retry,
      ...(options.retry?.retries === undefined ? {} : { retries: options.retry.retries }),
      ...(options.retry?.initialRetryTimeMs === undefined
        ? {}
        : { initialRetryTime: options.retry.initialRetryTimeMs }),
      ...(options.retry?.maxRetryTimeMs === undefined
        ? {}
        : { maxRetryTime: options.retry.maxRetryTimeMs }),
    };
    return new KafkaJsAdmin(
      new Kafka({ ...adminKafkaConfig(this.#config, options), retry: adminRetry }),
      adminRetry,
    );
  }

  /** Nothing is shared between the clients it built; each closes on its own. */
  async close(): Promise<void> {}
}

function saslOptionsOf(credentials: SaslCredentials): SASLOptions {
  const { username, password } = credentials;
  switch (credentials.mechanism) {
    case 'plain':
      return { mechanism: 'plain', username, password };
    case 'scram-sha-256':
      return { mechanism: 'scram-sha-256', username, password };
    case 'scram-sha-512':
      return { mechanism: 'scram-sha-512', username, password };
  }
}

function tlsOptionsOf(
  base: KafkaConfig['ssl'],
  tls: TlsOverrides | undefined,
): true | ConnectionOptions {
  if (tls === undefined) return base === undefined || base === false ? true : base;
  const options: ConnectionOptions = {
    ...(typeof base === 'object' ? base : {}),
    ...(tls.ca === undefined ? {} : { ca: [tls.ca] }),
    ...(tls.cert === undefined ? {} : { cert: tls.cert }),
    ...(tls.key === undefined ? {} : { key: tls.key }),
    ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase }),
    // ssl.endpoint.identification.algorithm="" turns host name verification off.
    ...(tls.verifyHostname === false ? { checkServerIdentity: () => undefined } : {}),
  };
  return options;
}

/**
 * The kafkajs config of an admin client with `options` over the worker's `base` config, the way
 * Kafka merges `admin.override.*` over the worker's admin settings. `security.protocol` decides
 * whether TLS and SASL are used; absent, the worker's choice stands. SASL credentials from the
 * overrides replace the worker's.
 *
 * @throws ConfigError when the protocol asks for SASL and neither side has credentials.
 */
export function adminKafkaConfig(base: KafkaConfig, options: AdminOptions): KafkaConfig {
  const security = options.security ?? {};
  const { protocol } = security;
  const baseTls = base.ssl !== undefined && base.ssl !== false;
  const useTls = protocol === undefined ? baseTls : protocol === 'SSL' || protocol === 'SASL_SSL';
  const useSasl = protocol === undefined ? base.sasl !== undefined : protocol.startsWith('SASL_');
  const sasl = security.sasl === undefined ? base.sasl : saslOptionsOf(security.sasl);
  if (useSasl && sasl === undefined) {
    throw new ConfigError(
      `Invalid value ${protocol} for configuration admin.override.security.protocol: SASL needs credentials; set admin.override.sasl.jaas.config`,
      'admin.override.sasl.jaas.config',
    );
  }
  const { ssl: _ssl, sasl: _sasl, ...rest } = base;
  return {
    ...rest,
    ...(options.clientId === undefined ? {} : { clientId: options.clientId }),
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeout: options.requestTimeoutMs }),
    ...(options.connectionTimeoutMs === undefined
      ? {}
      : { connectionTimeout: options.connectionTimeoutMs }),
    ...(useTls ? { ssl: tlsOptionsOf(base.ssl, security.tls) } : {}),
    ...(useSasl && sasl !== undefined ? { sasl } : {}),
  };
}
