import {
  type Admin,
  type IHeaders,
  Kafka,
  type KafkaConfig,
  logLevel,
  type Message,
  Partitioners,
  type PartitionMetadata,
  type Producer,
  type RecordMetadata,
  type Transaction,
} from 'kafkajs';
import { NotFoundError } from '../../connect/errors.js';
import type {
  IdempotentProducer,
  KafkaAdminPort,
  KafkaClientFactory,
  OutgoingRecord,
  ProducerTransaction,
  TopicPartitionOffset,
  TopicSpec,
  TransactionalProducer,
} from '../../ports/kafka.js';
import { mapKafkaError } from './errors.js';

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

/**
 * kafkajs retries CONCURRENT_TRANSACTIONS (the previous commit's markers are still being
 * written) with its client retry backoff. At kafkajs' default 300 ms initial retry time,
 * back-to-back transactions crawl (6.4k vs 41k records/s measured, docs/adr/0001).
 */
const retry = { initialRetryTime: 10, maxRetryTime: 2_000, retries: 10 };

function toMessage(record: OutgoingRecord, partition: number): Message {
  const headers: IHeaders = {};
  for (const header of record.headers ?? []) {
    // kafkajs takes repeated keys as arrays, keeping their order.
    const value = header.value === null ? null : Buffer.from(header.value);
    const existing = headers[header.key];
    if (existing === undefined) headers[header.key] = value as Buffer;
    else
      headers[header.key] = [
        ...(Array.isArray(existing) ? existing : [existing]),
        value,
      ] as Buffer[];
  }
  return {
    partition,
    key: record.key === null ? null : Buffer.from(record.key),
    value: record.value === null ? null : Buffer.from(record.value),
    headers,
    ...(record.timestamp === undefined ? {} : { timestamp: String(record.timestamp) }),
  };
}

/**
 * Chooses partitions the way the Java client's default partitioner does for keyed records
 * (murmur2), so the caller learns each record's position from the produce response.
 */
class PartitionChooser {
  readonly #partitioner = Partitioners.DefaultPartitioner();
  readonly #metadata = new Map<string, { at: number; partitions: PartitionMetadata[] }>();

  constructor(
    private readonly admin: () => Promise<Admin>,
    private readonly maxAgeMs: number,
  ) {}

  async assign(records: readonly OutgoingRecord[]): Promise<number[]> {
    const topics = [
      ...new Set(records.filter((r) => r.partition === undefined).map((r) => r.topic)),
    ];
    await this.#refresh(topics);
    return records.map((record) => {
      if (record.partition !== undefined) return record.partition;
      const partitionMetadata = this.#metadata.get(record.topic)?.partitions ?? [];
      return this.#partitioner({
        topic: record.topic,
        partitionMetadata,
        message: { key: record.key === null ? null : Buffer.from(record.key), value: null },
      });
    });
  }

  async #refresh(topics: readonly string[]): Promise<void> {
    const now = Date.now();
    const stale = topics.filter((t) => {
      const cached = this.#metadata.get(t);
      return cached === undefined || now - cached.at > this.maxAgeMs;
    });
    if (stale.length === 0) return;
    const admin = await this.admin();
    try {
      const { topics: found } = await admin.fetchTopicMetadata({ topics: stale });
      for (const topic of found)
        this.#metadata.set(topic.name, { at: now, partitions: topic.partitions });
    } catch (error) {
      const type = (error as { type?: string }).type;
      if (type === 'UNKNOWN_TOPIC_OR_PARTITION') {
        throw new NotFoundError(`topic(s) ${stale.join(', ')}: not found on the Kafka cluster`, {
          cause: error,
        });
      }
      throw mapKafkaError(error, 'fetching topic metadata');
    }
  }
}

/** Per-record positions from kafkajs' per-partition results, in input order. */
function positions(
  records: readonly OutgoingRecord[],
  partitions: readonly number[],
  results: readonly RecordMetadata[],
): TopicPartitionOffset[] {
  const next = new Map<string, number>();
  for (const result of results) {
    next.set(`${result.topicName}\u0000${result.partition}`, Number(result.baseOffset));
  }
  return records.map((record, i) => {
    const partition = partitions[i] as number;
    const key = `${record.topic}\u0000${partition}`;
    const offset = next.get(key);
    if (offset === undefined) throw new Error(`no produce result for ${record.topic}-${partition}`);
    next.set(key, offset + 1);
    return { topic: record.topic, partition, offset };
  });
}

function groupByTopic(records: readonly OutgoingRecord[], partitions: readonly number[]) {
  const byTopic = new Map<string, Message[]>();
  records.forEach((record, i) => {
    const messages = byTopic.get(record.topic) ?? [];
    messages.push(toMessage(record, partitions[i] as number));
    byTopic.set(record.topic, messages);
  });
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

class KafkaJsTransaction implements ProducerTransaction {
  constructor(
    private readonly tx: Transaction,
    private readonly chooser: PartitionChooser,
    private readonly transactionalId: string,
  ) {}

  async send(records: readonly OutgoingRecord[]): Promise<TopicPartitionOffset[]> {
    if (records.length === 0) return [];
    const partitions = await this.chooser.assign(records);
    try {
      const results = await this.tx.sendBatch({
        topicMessages: groupByTopic(records, partitions),
        acks: -1,
      });
      return positions(records, partitions, results);
    } catch (error) {
      throw mapKafkaError(error, `transactional send (${this.transactionalId})`);
    }
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

class KafkaJsTransactionalProducer implements TransactionalProducer {
  readonly #producer: Producer;

  constructor(
    readonly transactionalId: string,
    kafka: Kafka,
    private readonly chooser: PartitionChooser,
    transactionTimeoutMs: number,
  ) {
    this.#producer = kafka.producer({
      transactionalId,
      idempotent: true,
      maxInFlightRequests: 1,
      transactionTimeout: transactionTimeoutMs,
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
      return new KafkaJsTransaction(tx, this.chooser, this.transactionalId);
    } catch (error) {
      throw mapKafkaError(error, `beginning a transaction (${this.transactionalId})`);
    }
  }

  async close(): Promise<void> {
    await this.#producer.disconnect().catch(() => undefined);
  }
}

class KafkaJsIdempotentProducer implements IdempotentProducer {
  readonly #producer: Producer;

  constructor(
    kafka: Kafka,
    private readonly chooser: PartitionChooser,
  ) {
    this.#producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, retry });
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
    const partitions = await this.chooser.assign(records);
    try {
      const results = await this.#producer.sendBatch({
        topicMessages: groupByTopic(records, partitions),
        acks: -1,
      });
      return positions(records, partitions, results);
    } catch (error) {
      throw mapKafkaError(error, 'idempotent send');
    }
  }

  async close(): Promise<void> {
    await this.#producer.disconnect().catch(() => undefined);
  }
}

class KafkaJsAdmin implements KafkaAdminPort {
  readonly #admin: Admin;
  #connected: Promise<void> | undefined;

  constructor(kafka: Kafka) {
    this.#admin = kafka.admin({ retry });
  }

  async #ready(): Promise<Admin> {
    this.#connected ??= this.#admin.connect().catch((error: unknown) => {
      this.#connected = undefined;
      throw mapKafkaError(error, 'connecting the admin client');
    });
    await this.#connected;
    return this.#admin;
  }

  async #call<T>(action: string, fn: (admin: Admin) => Promise<T>): Promise<T> {
    const admin = await this.#ready();
    try {
      return await fn(admin);
    } catch (error) {
      throw mapKafkaError(error, action);
    }
  }

  readonly connected = (): Promise<Admin> => this.#ready();

  listTopics(): Promise<string[]> {
    return this.#call('listing topics', (admin) => admin.listTopics());
  }

  async partitionCounts(topics: readonly string[]): Promise<Map<string, number>> {
    const existing = new Set(await this.listTopics());
    const wanted = topics.filter((t) => existing.has(t));
    const counts = new Map<string, number>();
    if (wanted.length === 0) return counts;
    const { topics: found } = await this.#call('fetching topic metadata', (admin) =>
      admin.fetchTopicMetadata({ topics: wanted }),
    );
    for (const topic of found) counts.set(topic.name, topic.partitions.length);
    return counts;
  }

  async createTopics(specs: readonly TopicSpec[]): Promise<string[]> {
    const existing = new Set(await this.listTopics());
    const missing = specs.filter((s) => !existing.has(s.topic));
    if (missing.length === 0) return [];
    await this.#call('creating topics', (admin) =>
      admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((s) => ({
          topic: s.topic,
          numPartitions: s.partitions ?? -1,
          replicationFactor: s.replicationFactor ?? -1,
          configEntries: Object.entries(s.configs ?? {}).map(([name, value]) => ({ name, value })),
        })),
      }),
    );
    return missing.map((s) => s.topic);
  }

  async committedOffsets(groupId: string, topic: string): Promise<TopicPartitionOffset[]> {
    const result = await this.#call(`fetching offsets of group ${groupId}`, (admin) =>
      admin.fetchOffsets({ groupId, topics: [topic] }),
    );
    return result.flatMap((t) =>
      t.partitions
        .filter((p) => Number(p.offset) >= 0)
        .map((p) => ({ topic: t.topic, partition: p.partition, offset: Number(p.offset) })),
    );
  }

  async endOffsets(topic: string): Promise<TopicPartitionOffset[]> {
    const result = await this.#call(`fetching end offsets of ${topic}`, (admin) =>
      admin.fetchTopicOffsets(topic),
    );
    return result.map((p) => ({ topic, partition: p.partition, offset: Number(p.high) }));
  }

  async close(): Promise<void> {
    if (this.#connected) await this.#admin.disconnect().catch(() => undefined);
    this.#connected = undefined;
  }
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
