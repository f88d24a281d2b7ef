import { CompressionTypes, type Kafka, type Producer, type Transaction } from 'kafkajs';
import type {
  CompressionType,
  IdempotentProducer,
  OutgoingRecord,
  ProducerOptions,
  ProducerTransaction,
  TopicPartitionOffset,
  TransactionalProducer,
} from '../../ports/kafka.js';
import { mapKafkaError } from './errors.js';
import { positions, RecordingPartitioner, retry, sendInRequests, toBatch } from './records.js';

const compressionTypes: Readonly<Record<CompressionType, CompressionTypes>> = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
};

/** The kafkajs codec id of `options.compression` (snappy, lz4 and zstd need registerKafkaJsCodecs). */
export function compressionOf(options: ProducerOptions): CompressionTypes {
  return compressionTypes[options.compression ?? 'none'];
}

class KafkaJsTransaction implements ProducerTransaction {
  constructor(
    private readonly tx: Transaction,
    private readonly partitioner: RecordingPartitioner,
    private readonly transactionalId: string,
    private readonly compression: CompressionTypes,
  ) {}

  async send(records: readonly OutgoingRecord[]): Promise<TopicPartitionOffset[]> {
    if (records.length === 0) return [];
    return sendInRequests(records, async (slice) => {
      const { messages, topicMessages } = toBatch(slice);
      try {
        const results = await this.tx.sendBatch({
          topicMessages,
          acks: -1,
          compression: this.compression,
        });
        return positions(slice, messages, this.partitioner, results);
      } catch (error) {
        throw mapKafkaError(error, `transactional send (${this.transactionalId})`);
      }
    });
  }

  async sendOffsets(groupId: string, offsets: readonly TopicPartitionOffset[]): Promise<void> {
    const byTopic = new Map<string, { partition: number; offset: string }[]>();
    for (const o of offsets) {
      const list = byTopic.get(o.topic) ?? [];
      list.push({ partition: o.partition, offset: String(o.offset) });
      byTopic.set(o.topic, list);
    }
    try {
      await this.tx.sendOffsets({
        consumerGroupId: groupId,
        topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
      });
    } catch (error) {
      throw mapKafkaError(error, `sendOffsets for group ${groupId} (${this.transactionalId})`);
    }
  }

  async commit(): Promise<void> {
    try {
      await this.tx.commit();
    } catch (error) {
      throw mapKafkaError(error, `commit (${this.transactionalId})`, true);
    }
  }

  async abort(): Promise<void> {
    try {
      await this.tx.abort();
    } catch (error) {
      throw mapKafkaError(error, `abort (${this.transactionalId})`, true);
    }
  }
}

export class KafkaJsTransactionalProducer implements TransactionalProducer {
  readonly #producer: Producer;
  readonly #partitioner = new RecordingPartitioner();

  readonly #compression: CompressionTypes;

  constructor(
    readonly transactionalId: string,
    kafka: Kafka,
    options: ProducerOptions,
  ) {
    this.#compression = compressionOf(options);
    this.#producer = kafka.producer({
      createPartitioner: this.#partitioner.create,
      transactionalId,
      idempotent: true,
      maxInFlightRequests: 1,
      ...(options.transactionTimeoutMs === undefined
        ? {}
        : { transactionTimeout: options.transactionTimeoutMs }),
      retry,
    });
  }

  async connect(): Promise<void> {
    try {
      await this.#producer.connect();
      // kafkajs initialises the transactional producer id (InitProducerId, which fences older
      // producers and completes or aborts their open transaction) on the first transaction;
      // an empty transaction ends without a request, so this does exactly the initialisation.
      const tx = await this.#producer.transaction();
      await tx.abort();
    } catch (error) {
      throw mapKafkaError(error, `initialising transactional producer ${this.transactionalId}`);
    }
  }

  async begin(): Promise<ProducerTransaction> {
    try {
      const tx = await this.#producer.transaction();
      return new KafkaJsTransaction(tx, this.#partitioner, this.transactionalId, this.#compression);
    } catch (error) {
      throw mapKafkaError(error, `beginning a transaction (${this.transactionalId})`);
    }
  }

  async close(): Promise<void> {
    await this.#producer.disconnect().catch(() => undefined);
  }
}

export class KafkaJsIdempotentProducer implements IdempotentProducer {
  readonly #producer: Producer;
  readonly #partitioner = new RecordingPartitioner();

  readonly #compression: CompressionTypes;

  constructor(kafka: Kafka, options: ProducerOptions) {
    this.#compression = compressionOf(options);
    this.#producer = kafka.producer({
      createPartitioner: this.#partitioner.create,
      idempotent: true,
      maxInFlightRequests: 1,
      retry,
    });
  }

  async connect(): Promise<void> {
    try {
      await this.#producer.connect();
    } catch (error) {
      throw mapKafkaError(error, 'connecting idempotent producer');
    }
  }

  async send(records: readonly OutgoingRecord[]): Promise<TopicPartitionOffset[]> {
    if (records.length === 0) return [];
    return sendInRequests(records, async (slice) => {
      const { messages, topicMessages } = toBatch(slice);
      try {
        const results = await this.#producer.sendBatch({
          topicMessages,
          acks: -1,
          compression: this.#compression,
        });
        return positions(slice, messages, this.#partitioner, results);
      } catch (error) {
        throw mapKafkaError(error, 'idempotent send');
      }
    });
  }

  async close(): Promise<void> {
    await this.#producer.disconnect().catch(() => undefined);
  }
}
