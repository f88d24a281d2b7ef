/**
 * The Kafka port: what the runtime needs from a Kafka client, nothing more. The kafkajs adapter
 * (shared/adapters/kafkajs) implements it for real brokers; offsets are JS numbers (Kafka's are
 * int64, but a partition would need 2^53 records to overflow one).
 */

/** One record to produce. `partition` is chosen by the producer when absent (murmur2 of the key, as the Java client does). */
export interface OutgoingRecord {
  readonly topic: string;
  readonly partition?: number;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers?: readonly RecordHeader[];
  /** Milliseconds since the epoch; the broker's time when absent. */
  readonly timestamp?: number;
}

export interface RecordHeader {
  readonly key: string;
  readonly value: Uint8Array | null;
}

/** Where a record landed, or a position to commit (the offset of the next record to read). */
export interface TopicPartitionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

/**
 * One open Kafka transaction. Calls are sequential: the caller awaits each before the next.
 * After `commit` or `abort` resolves or rejects, the transaction is over and must not be used.
 */
export interface ProducerTransaction {
  /** Sends records inside the transaction; resolves with each record's position, in input order. */
  send(records: readonly OutgoingRecord[]): Promise<TopicPartitionOffset[]>;
  /** Adds the group's offsets to the transaction: they become visible only if it commits. */
  sendOffsets(groupId: string, offsets: readonly TopicPartitionOffset[]): Promise<void>;
  /**
   * Commits. Rejects with `FencedError` when a newer producer took the transactional id, and with
   * `TransactionOutcomeUnknownError` when the broker's answer was lost (the transaction may or may
   * not have committed: rebuild the producer and settle it through recovery; never retry).
   */
  commit(): Promise<void>;
  /** Aborts; rejects like `commit`. */
  abort(): Promise<void>;
}

/**
 * A producer with a stable transactional id. `connect` initialises it (InitProducerId), which
 * fences every older producer of the same id and completes or aborts its open transaction.
 */
export interface TransactionalProducer {
  readonly transactionalId: string;
  connect(): Promise<void>;
  /** Begins a transaction. One at a time. */
  begin(): Promise<ProducerTransaction>;
  /** Releases connections. Safe to call twice, and after any error. */
  close(): Promise<void>;
}

/** An idempotent (not transactional) producer, for at-least-once mode and dead letter queues. */
export interface IdempotentProducer {
  connect(): Promise<void>;
  send(records: readonly OutgoingRecord[]): Promise<TopicPartitionOffset[]>;
  close(): Promise<void>;
}

export interface TopicSpec {
  readonly topic: string;
  readonly partitions?: number;
  readonly replicationFactor?: number;
  /** Topic-level configs, e.g. `{ 'cleanup.policy': 'compact' }`. */
  readonly configs?: Readonly<Record<string, string>>;
}

export type TransactionalRecordFate = 'committed' | 'aborted' | 'open';

/** Metadata, group offsets and transaction outcomes. */
export interface KafkaAdminPort {
  listTopics(): Promise<string[]>;
  /** Number of partitions per topic; topics that do not exist are absent from the result. */
  partitionCounts(topics: readonly string[]): Promise<Map<string, number>>;
  /** Creates the topics that do not exist yet; resolves with the names it created. */
  createTopics(specs: readonly TopicSpec[]): Promise<string[]>;
  /** Committed offsets of a group for a topic (partitions with no commit are absent). */
  committedOffsets(groupId: string, topic: string): Promise<TopicPartitionOffset[]>;
  /**
   * The end of each partition as a read_committed reader sees it: the last stable offset (below
   * the first record of any open transaction; the high watermark when none is open).
   */
  endOffsets(topic: string): Promise<TopicPartitionOffset[]>;
  /**
   * Per partition, the offset of the first record whose timestamp is at or after
   * `timestampMs`, or the partition's end when there is none (Kafka's ListOffsets by time).
   */
  offsetsForTimestamp(topic: string, timestampMs: number): Promise<TopicPartitionOffset[]>;
  /**
   * The fate of the transactional record written at `position`, as read_committed readers see it:
   * `committed` (visible), `aborted` (the partition's stable end is past it and it is not
   * visible), or `open` (its transaction is not decided yet, or the answer could not be read in
   * time: ask again later).
   */
  transactionalRecordFate(position: TopicPartitionOffset): Promise<TransactionalRecordFate>;
  close(): Promise<void>;
}

/** Per-connector producer settings (`producer.override.*` that the runtime honours). */
export interface ProducerOptions {
  /** Batch compression (default none). */
  readonly compression?: 'none' | 'gzip';
  /** Transaction timeout in ms (the factory's default when absent). */
  readonly transactionTimeoutMs?: number;
}

/** Builds clients; each call returns a new, unconnected client. */
export interface KafkaClientFactory {
  transactionalProducer(transactionalId: string, options?: ProducerOptions): TransactionalProducer;
  idempotentProducer(options?: ProducerOptions): IdempotentProducer;
  admin(): KafkaAdminPort;
}
