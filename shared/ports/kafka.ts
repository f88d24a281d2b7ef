/**
 * The Kafka port: what the runtime needs from a Kafka client, nothing more. The kafkajs adapter
 * (shared/adapters/kafkajs) implements it for real brokers; offsets are JS numbers (Kafka's are
 * int64, but a partition would need 2^53 records to overflow one).
 */
import type { TimestampType } from '../connect/records.js';

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

/**
 * A record as a sink task consumed it, before any conversion: raw bytes and coordinates (what
 * Connect keeps as `ConsumerRecord<byte[], byte[]>`).
 */
export interface ConsumedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** Epoch milliseconds; absent, `null` or negative when the record carries none. */
  readonly timestamp?: number | null;
  /** @default 'NoTimestampType' */
  readonly timestampType?: TimestampType;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  /** In record order; a key may repeat. */
  readonly headers: readonly RecordHeader[];
}

/** One partition's records of a consumed batch. */
export interface ConsumedPartition {
  readonly topic: string;
  readonly partition: number;
  /** Sorted by offset. */
  readonly records: readonly ConsumedRecord[];
}

/**
 * A batch of consumed records for a sink, by partition: what Lambda's Kafka event source
 * mapping delivers, decoded (`shared/adapters/lambda/esm-event.ts`).
 */
export interface ConsumedBatch {
  readonly partitions: readonly ConsumedPartition[];
  readonly recordCount: number;
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
 * fences every older producer of the same id and completes or aborts its open transaction: the
 * producer fence, Kafka's half of a source task's fencing (the lease fence, ports/lease-store.ts,
 * is the state store's). Source task ids come from `transactionalIdOf`
 * (runtime/task/source-transaction-fate.ts).
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
  /**
   * Moves a consumer group's committed offsets (each the next offset to read). Only an empty
   * group can be moved: a group with live members fails with a RetriableError (try again once
   * its consumers left).
   */
  setGroupOffsets(groupId: string, offsets: readonly TopicPartitionOffset[]): Promise<void>;
  /**
   * Reads a topic as a read_committed consumer would, without a consumer group: every partition
   * from `from` (its offset there; partitions absent from `from` from their first record) up to
   * its last stable offset as first seen, so the read is bounded. Aborted records and
   * transaction markers are left out. Resolves the records in log order per partition and where
   * each partition's read stopped (the next offset to read).
   */
  readCommitted(topic: string, from?: readonly TopicPartitionOffset[]): Promise<CommittedRead>;
  close(): Promise<void>;
}

/** A record as a read_committed reader sees it (no headers: the callers need none). */
export interface CommittedRecord {
  readonly partition: number;
  readonly offset: number;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  /** Epoch milliseconds (the record's CreateTime, or LogAppendTime when the topic says so). */
  readonly timestamp: number;
}

/** What {@link KafkaAdminPort.readCommitted} read. */
export interface CommittedRead {
  readonly records: readonly CommittedRecord[];
  /** Per partition of the topic, the next offset to read (where this read stopped). */
  readonly next: readonly TopicPartitionOffset[];
}

/**
 * Record batch compression, as Kafka's `compression.type`. `gzip` is built into the client;
 * `snappy`, `lz4` and `zstd` are codecs the adapter registers (wire-compatible with the Java client).
 */
export type CompressionType = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

/** Per-connector producer settings (`producer.override.*` that the runtime honours). */
export interface ProducerOptions {
  /** Batch compression (the factory's worker-wide default when absent; that defaults to none). */
  readonly compression?: CompressionType;
  /** Transaction timeout in ms (the factory's default when absent). */
  readonly transactionTimeoutMs?: number;
}

/** SASL credentials: `sasl.mechanism` and the login module's username and password. */
export interface SaslCredentials {
  readonly mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  readonly username: string;
  readonly password: string;
}

/** TLS material in PEM (`ssl.truststore.certificates`, `ssl.keystore.*`) and hostname checking. */
export interface TlsOverrides {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly passphrase?: string;
  /** `ssl.endpoint.identification.algorithm`: false when set to the empty string. @default true */
  readonly verifyHostname?: boolean;
}

/** Security settings that replace the worker's; each absent part keeps the worker's. */
export interface SecurityOverrides {
  /** `security.protocol`: whether TLS and SASL are used at all. */
  readonly protocol?: 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
  readonly sasl?: SaslCredentials;
  readonly tls?: TlsOverrides;
}

/**
 * Per-connector admin client settings (`admin.override.*` that the runtime honours). Absent
 * fields keep the worker's settings; an empty object means the worker's admin client.
 */
export interface AdminOptions {
  /** `client.id`. */
  readonly clientId?: string;
  /** `request.timeout.ms`. */
  readonly requestTimeoutMs?: number;
  /** `socket.connection.setup.timeout.ms`. */
  readonly connectionTimeoutMs?: number;
  /** `retries`, `retry.backoff.ms`, `retry.backoff.max.ms`. */
  readonly retry?: {
    readonly retries?: number;
    readonly initialRetryTimeMs?: number;
    readonly maxRetryTimeMs?: number;
  };
  readonly security?: SecurityOverrides;
}

/** Builds clients; each call returns a new, unconnected client. */
export interface KafkaClientFactory {
  transactionalProducer(transactionalId: string, options?: ProducerOptions): TransactionalProducer;
  idempotentProducer(options?: ProducerOptions): IdempotentProducer;
  /** The worker's admin client, or one built with `options` on top of the worker's settings. */
  admin(options?: AdminOptions): KafkaAdminPort;
}
