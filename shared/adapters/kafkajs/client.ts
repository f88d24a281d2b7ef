import { Kafka, type KafkaConfig, logLevel } from 'kafkajs';
import type {
  IdempotentProducer,
  KafkaAdminPort,
  KafkaClientFactory,
  ProducerOptions,
  TransactionalProducer,
} from '../../ports/kafka.js';
import { KafkaJsAdmin } from './admin.js';
import { KafkaJsIdempotentProducer, KafkaJsTransactionalProducer } from './producers.js';
import { retry } from './records.js';

export interface KafkaJsOptions {
  readonly brokers: readonly string[];
  readonly clientId?: string;
  readonly ssl?: KafkaConfig['ssl'];
  readonly sasl?: KafkaConfig['sasl'];
  /** kafkajs log level (default: errors only). */
  readonly logLevel?: logLevel;
  /** Producer transaction timeout in ms (default 60000). */
  readonly transactionTimeoutMs?: number;
}

/** The kafkajs implementation of the Kafka port. One instance per process (per warm Lambda container). */
export class KafkaJsClientFactory implements KafkaClientFactory {
  readonly #kafka: Kafka;
  readonly #transactionTimeoutMs: number;

  constructor(options: KafkaJsOptions) {
    this.#kafka = new Kafka({
      brokers: [...options.brokers],
      clientId: options.clientId ?? 'serverless-connect',
      logLevel: options.logLevel ?? logLevel.ERROR,
      retry,
      ...(options.ssl === undefined ? {} : { ssl: options.ssl }),
      ...(options.sasl === undefined ? {} : { sasl: options.sasl }),
    });
    this.#transactionTimeoutMs = options.transactionTimeoutMs ?? 60_000;
  }

  transactionalProducer(
    transactionalId: string,
    options: ProducerOptions = {},
  ): TransactionalProducer {
    return new KafkaJsTransactionalProducer(transactionalId, this.#kafka, {
      transactionTimeoutMs: this.#transactionTimeoutMs,
      ...options,
    });
  }

  idempotentProducer(options: ProducerOptions = {}): IdempotentProducer {
    return new KafkaJsIdempotentProducer(this.#kafka, options);
  }

  admin(): KafkaAdminPort {
    return new KafkaJsAdmin(this.#kafka);
  }

  /** Nothing is shared between the clients it built; each closes on its own. */
  async close(): Promise<void> {}
}
