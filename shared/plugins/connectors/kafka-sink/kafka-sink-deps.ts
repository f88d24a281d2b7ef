/**
 * What the Kafka sink gets from its container, as a Kafka Connect plugin gets it from the worker:
 * Kafka clients built with the connector's `producer.override.*` settings, the admin calls it
 * makes, the worker's reading of the framework keys of a connector config (topics,
 * transformations, converters) and a logger. The engine builds them from its ports
 * (`shared/engine/kafka-sink-deps.ts`); the types are the plugin's own, as narrow as the sink
 * uses them, and the ports satisfy them structurally.
 */
import type {
  ConfigValue,
  Converter,
  HeaderConverter,
  TopicPartition,
} from 'serverless-connect/connect';

/** A record header as produced: the header converter's bytes. */
export interface OutputHeader {
  readonly key: string;
  readonly value: Uint8Array | null;
}

/** One record to produce; the producer's partitioner chooses `partition` when absent. */
export interface OutputRecord {
  readonly topic: string;
  readonly partition?: number;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers?: readonly OutputHeader[];
  /** Milliseconds since the epoch; the broker's time when absent. */
  readonly timestamp?: number;
}

/** Where a record landed, or a group offset (the next offset to read). */
export interface TopicPartitionOffset extends TopicPartition {
  readonly offset: number;
}

/** One open transaction; calls are sequential, and it is over once `commit` or `abort` settles. */
export interface KafkaSinkTransaction {
  /** Resolves with each record's position, in input order. */
  send(records: readonly OutputRecord[]): Promise<readonly TopicPartitionOffset[]>;
  /** Adds the group's offsets to the transaction. */
  sendOffsets(groupId: string, offsets: readonly TopicPartitionOffset[]): Promise<void>;
  /**
   * Rejects with a FencedError when a newer producer took the transactional id, and with an
   * error {@link KafkaSinkClients.isTransactionOutcomeUnknown} recognises when the answer was lost.
   */
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** A transactional producer of one transactional id. */
export interface KafkaSinkProducer {
  /**
   * Initialises the producer: fences every older producer of its transactional id and
   * completes or aborts their open transaction.
   */
  connect(): Promise<void>;
  /** Begins a transaction; one at a time. */
  begin(): Promise<KafkaSinkTransaction>;
  /** Releases connections; safe after any error. */
  close(): Promise<void>;
}

/** Builds a new, unconnected producer of `transactionalId`. */
export type KafkaSinkProducers = (transactionalId: string) => KafkaSinkProducer;

/** The fate of a transactional record as read_committed readers see it (`open`: ask later). */
export type TransactionalRecordFate = 'committed' | 'aborted' | 'open';

/** The admin calls of the sink: group offsets, record fates, output topics. */
export interface KafkaSinkAdmin {
  /** A group's committed offsets for `topic` (partitions without a commit are absent). */
  committedOffsets(groupId: string, topic: string): Promise<readonly TopicPartitionOffset[]>;
  /** The fate of the transactional record written at `position`. */
  transactionalRecordFate(position: TopicPartitionOffset): Promise<TransactionalRecordFate>;
  /** Partition counts; topics that do not exist are absent. */
  partitionCounts(topics: readonly string[]): Promise<ReadonlyMap<string, number>>;
  /**
   * Creates the missing topics with the broker's default replication factor and configs;
   * resolves with the names it created.
   */
  createTopics(
    specs: readonly { readonly topic: string; readonly partitions: number }[],
  ): Promise<readonly string[]>;
}

/** What the sink needs from Kafka. */
export interface KafkaSinkClients {
  /**
   * The transactional producers of the connector configured by `props`, with its
   * `producer.override.*` settings as the worker honours them.
   * @throws ConfigError naming the first invalid or refused `producer.override.*` key.
   */
  producers(props: Readonly<Record<string, string>>): KafkaSinkProducers;
  /** The problems of the `producer.override.*` keys of `props`, as the validate endpoint reports them. */
  producerOverrideErrors(props: Readonly<Record<string, string>>): ConfigValue[];
  readonly admin: KafkaSinkAdmin;
  /**
   * Whether `error` is a commit whose answer was lost: the transaction may or may not have
   * completed, so the producer must be rebuilt and the outcome settled, never the commit retried.
   */
  isTransactionOutcomeUnknown(error: unknown): boolean;
}

/** The framework keys of a connector config the sink relies on, as the worker parses them. */
export interface SinkFrameworkConfig {
  readonly name: string;
  readonly topics: readonly string[];
  readonly topicsRegex: string | undefined;
  /** Whether `transforms` names any transformation (records may change topic before `put`). */
  readonly hasTransforms: boolean;
}

/** The connector's configured key, value and header converters. */
export interface KafkaSinkConverters {
  readonly key: Converter;
  readonly value: Converter;
  readonly header: HeaderConverter;
}

/** What the sink needs from the worker. */
export interface KafkaSinkWorker {
  /** The worker's transactional id prefix (`TRANSACTIONAL_ID_PREFIX`). */
  readonly transactionalIdPrefix: string;
  /** @throws ConfigError when the connector config is invalid. */
  frameworkConfig(props: Readonly<Record<string, string>>): SinkFrameworkConfig;
  /**
   * `key.converter`, `value.converter` and `header.converter` of `props`, created and
   * configured. @throws ConfigError naming a converter that cannot be found.
   */
  converters(props: Readonly<Record<string, string>>): KafkaSinkConverters;
  /**
   * Runs `fn` over `items` with at most `limit` calls in flight; results keep the input order.
   * Every item runs even when some fail; the first failure (in input order) is thrown at the end.
   */
  mapLimit<T, R>(
    items: readonly T[],
    limit: number,
    fn: (item: T, index: number) => Promise<R>,
  ): Promise<R[]>;
}

/** The logging the sink does (the engine's Logger fits). */
export interface KafkaSinkLogger {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** Everything the sink is given, once per container. */
export interface KafkaSinkDeps {
  readonly kafka: KafkaSinkClients;
  readonly worker: KafkaSinkWorker;
  /** @default a logger that drops everything */
  readonly logger?: KafkaSinkLogger;
}
