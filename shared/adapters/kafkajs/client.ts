import { Kafka, type KafkaConfig, logLevel } from 'kafkajs';
import type {
  IdempotentProducer,
  KafkaAdminPort,
  KafkaClientFactory,
  TransactionalProducer,
} from '../../ports/kafka.js';
import { KafkaJsAdmin } from './admin.js';
import { PartitionChooser } from './partition-chooser.js';
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
  /** How long cached partition counts are trusted, in ms (default 300000, Kafka's metadata.max.age.ms). */
  readonly metadataMaxAgeMs?: number;
}

/** The kafkajs implementation of the Kafka port. One instance per process (per warm Lambda container). */
export class KafkaJsClientFactory implements KafkaClientFactory {
  readonly #kafka: Kafka;
  readonly #chooser: PartitionChooser;
  readonly #metadataAdmin: KafkaJsAdmin;
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
    this.#metadataAdmin = new KafkaJsAdmin(this.#kafka);
    this.#chooser = new PartitionChooser(
      () => this.#metadataAdmin.connected(),
      options.metadataMaxAgeMs ?? 300_000,
    );
    this.#transactionTimeoutMs = options.transactionTimeoutMs ?? 60_000;
  }

  transactionalProducer(transactionalId: string): TransactionalProducer {
    return new KafkaJsTransactionalProducer(
      transactionalId,
      this.#kafka,
      this.#chooser,
      this.#transactionTimeoutMs,
    );
  }

  idempotentProducer(): IdempotentProducer {
    return new KafkaJsIdempotentProducer(this.#kafka, this.#chooser);
  }

  admin(): KafkaAdminPort {
    return new KafkaJsAdmin(this.#kafka);
  }

  /** Closes the shared metadata connection. */
  async close(): Promise<void> {
    await this.#metadataAdmin.close();
  }
}
