/**
 * How a connector that reads Kafka topics subscribes, in the terms of Flink's KafkaSource:
 * the topics (`topics`, `topics.regex`, or an explicit partition set), where reading starts
 * (`OffsetsInitializer`: earliest, latest, committed with a reset strategy, timestamp,
 * specific), where it stops in bounded mode, and how often new partitions are discovered.
 * Sink connectors take these keys beside Kafka Connect's own.
 */
import { ConfigDef } from '../connect/config-def.js';
import { LambdaValidator, ValidString } from '../connect/config-validators.js';
import { ConfigError } from '../connect/errors.js';

export const SUBSCRIPTION_KEYS = {
  PARTITIONS: 'topic.partitions',
  STARTING: 'starting.offsets',
  STARTING_RESET: 'starting.offsets.reset',
  STARTING_TIMESTAMP: 'starting.offsets.timestamp.ms',
  STARTING_SPECIFIC: 'starting.offsets.specific',
  STOPPING: 'stopping.offsets',
  STOPPING_TIMESTAMP: 'stopping.offsets.timestamp.ms',
  STOPPING_SPECIFIC: 'stopping.offsets.specific',
  DISCOVERY_INTERVAL: 'partition.discovery.interval.ms',
} as const;

const K = SUBSCRIPTION_KEYS;

/** Flink's default discovery interval for KafkaSource: five minutes. */
export const DEFAULT_DISCOVERY_INTERVAL_MS = 300_000;

/** A `topic-partition` pair (the split of a Kafka-reading connector). */
export interface TopicPartitionRef {
  readonly topic: string;
  readonly partition: number;
}

/** Where reading starts on a partition that has no committed offset of the connector yet. */
export type StartingOffsets =
  | { readonly kind: 'earliest' }
  | { readonly kind: 'latest' }
  /** The connector's committed offsets; partitions without one start per `reset`. */
  | { readonly kind: 'committed'; readonly reset: 'earliest' | 'latest' }
  | { readonly kind: 'timestamp'; readonly timestampMs: number }
  /** Listed partitions start at their offset; others start per `reset`. */
  | {
      readonly kind: 'specific';
      readonly offsets: ReadonlyMap<string, number>;
      readonly reset: 'earliest' | 'latest';
    };

/** Where a bounded subscription stops (exclusive). `none` = unbounded (the default). */
export type StoppingOffsets =
  | { readonly kind: 'none' }
  | { readonly kind: 'latest' }
  | { readonly kind: 'timestamp'; readonly timestampMs: number }
  | { readonly kind: 'specific'; readonly offsets: ReadonlyMap<string, number> };

export interface KafkaSubscription {
  /** Explicit topics (empty when a pattern or a partition set is used). */
  readonly topics: readonly string[];
  /** Whole-name pattern (`topics.regex`), or undefined. */
  readonly pattern: string | undefined;
  /** An explicit partition set (`topic.partitions`), or undefined. */
  readonly partitions: readonly TopicPartitionRef[] | undefined;
  readonly starting: StartingOffsets;
  readonly stopping: StoppingOffsets;
  /** Zero or negative disables discovery after the first resolution. */
  readonly discoveryIntervalMs: number;
}

/** `orders-3` (Kafka's `TopicPartition.toString`). */
export function topicPartitionId(tp: TopicPartitionRef): string {
  return `${tp.topic}-${tp.partition}`;
}

/** Parses `topic-3` (the partition is after the LAST dash; topics may contain dashes). */
export function parseTopicPartitionId(id: string): TopicPartitionRef {
  const dash = id.lastIndexOf('-');
  const partition = Number(id.slice(dash + 1));
  if (dash <= 0 || !Number.isInteger(partition) || partition < 0) {
    throw new ConfigError(`Invalid topic partition '${id}': expected <topic>-<partition>`);
  }
  return { topic: id.slice(0, dash), partition };
}

function partitionList(name: string, value: string): TopicPartitionRef[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((entry) => {
      const colon = entry.lastIndexOf(':');
      const partition = Number(entry.slice(colon + 1));
      if (colon <= 0 || !Number.isInteger(partition) || partition < 0) {
        throw new ConfigError(
          `Invalid value ${value} for configuration ${name}: expected topic:partition entries separated by commas`,
          name,
        );
      }
      return { topic: entry.slice(0, colon), partition };
    });
}

function offsetList(name: string, value: string): Map<string, number> {
  const offsets = new Map<string, number>();
  for (const entry of value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)) {
    const parts = entry.split(':');
    const offset = Number(parts.pop());
    const partition = Number(parts.pop());
    const topic = parts.join(':');
    if (topic.length === 0 || !Number.isInteger(partition) || partition < 0) {
      throw new ConfigError(
        `Invalid value ${value} for configuration ${name}: expected topic:partition:offset entries separated by commas`,
        name,
      );
    }
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw new ConfigError(
        `Invalid value ${value} for configuration ${name}: offsets must be non-negative integers`,
        name,
      );
    }
    offsets.set(topicPartitionId({ topic, partition }), offset);
  }
  return offsets;
}

const checked = (parse: (name: string, value: string) => unknown) =>
  LambdaValidator.with(
    (name, value) => {
      if (typeof value === 'string' && value.length > 0) parse(name, value);
    },
    () => 'topic:partition[:offset] entries separated by commas',
  );

/** The subscription keys, defined on `def` (a sink connector's ConfigDef). */
export function defineKafkaSubscription(def: ConfigDef, group = 'Subscription'): ConfigDef {
  let order = 0;
  const base = { importance: 'MEDIUM' as const, group, width: 'LONG' as const };
  return def
    .define({
      ...base,
      name: K.PARTITIONS,
      type: 'STRING',
      defaultValue: '',
      validator: checked(partitionList),
      documentation:
        'An explicit set of partitions to read, as topic:partition entries separated by commas ' +
        "(Flink's KafkaSource setPartitions). Used instead of topics or topics.regex.",
      orderInGroup: ++order,
      displayName: 'Topic partitions',
    })
    .define({
      ...base,
      name: K.STARTING,
      type: 'STRING',
      defaultValue: 'committed',
      validator: ValidString.in('earliest', 'latest', 'committed', 'timestamp', 'specific'),
      documentation:
        'Where reading starts: earliest, latest, committed (the offsets this connector ' +
        'committed; partitions without one start per starting.offsets.reset), timestamp ' +
        '(the first record at or after starting.offsets.timestamp.ms) or specific ' +
        '(starting.offsets.specific; other partitions per starting.offsets.reset).',
      orderInGroup: ++order,
      displayName: 'Starting offsets',
    })
    .define({
      ...base,
      name: K.STARTING_RESET,
      type: 'STRING',
      defaultValue: 'earliest',
      validator: ValidString.in('earliest', 'latest'),
      documentation: 'Where a partition without a committed or specific offset starts.',
      orderInGroup: ++order,
      displayName: 'Reset strategy',
    })
    .define({
      ...base,
      name: K.STARTING_TIMESTAMP,
      type: 'LONG',
      defaultValue: null,
      documentation: 'Epoch milliseconds for starting.offsets=timestamp.',
      orderInGroup: ++order,
      displayName: 'Starting timestamp',
    })
    .define({
      ...base,
      name: K.STARTING_SPECIFIC,
      type: 'STRING',
      defaultValue: '',
      validator: checked(offsetList),
      documentation: 'topic:partition:offset entries for starting.offsets=specific.',
      orderInGroup: ++order,
      displayName: 'Specific starting offsets',
    })
    .define({
      ...base,
      name: K.STOPPING,
      type: 'STRING',
      defaultValue: 'none',
      validator: ValidString.in('none', 'latest', 'timestamp', 'specific'),
      documentation:
        'Bounded mode: none (unbounded), latest (the end of each partition when the connector ' +
        'first resolved it), timestamp (stopping.offsets.timestamp.ms) or specific ' +
        '(stopping.offsets.specific). A task whose partitions all reached their stopping ' +
        'offsets is finished.',
      orderInGroup: ++order,
      displayName: 'Stopping offsets',
    })
    .define({
      ...base,
      name: K.STOPPING_TIMESTAMP,
      type: 'LONG',
      defaultValue: null,
      documentation: 'Epoch milliseconds for stopping.offsets=timestamp.',
      orderInGroup: ++order,
      displayName: 'Stopping timestamp',
    })
    .define({
      ...base,
      name: K.STOPPING_SPECIFIC,
      type: 'STRING',
      defaultValue: '',
      validator: checked(offsetList),
      documentation: 'topic:partition:offset entries (exclusive) for stopping.offsets=specific.',
      orderInGroup: ++order,
      displayName: 'Specific stopping offsets',
    })
    .define({
      ...base,
      name: K.DISCOVERY_INTERVAL,
      type: 'LONG',
      defaultValue: DEFAULT_DISCOVERY_INTERVAL_MS,
      documentation:
        'How often new partitions (and, with topics.regex, new topics) are discovered, in ' +
        'milliseconds. Zero or negative disables discovery after the first resolution.',
      orderInGroup: ++order,
      displayName: 'Partition discovery interval',
    });
}

function requiredTimestamp(
  values: Readonly<Record<string, unknown>>,
  key: string,
  mode: string,
): number {
  const value = values[key];
  if (value === null || value === undefined) {
    throw new ConfigError(`${key} is required when the mode is ${mode}`, key);
  }
  return Number(value);
}

/**
 * The subscription of a connector config (which also carries `topics` / `topics.regex`).
 * @throws ConfigError when no topics are given or a mode lacks its value.
 */
export function parseKafkaSubscription(props: Readonly<Record<string, string>>): KafkaSubscription {
  const values = defineKafkaSubscription(new ConfigDef()).parse(props);
  const topics = (props.topics ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
  const patternValue = (props['topics.regex'] ?? '').trim();
  const partitionsValue = String(values[K.PARTITIONS] ?? '');
  const partitions =
    partitionsValue.length > 0 ? partitionList(K.PARTITIONS, partitionsValue) : undefined;
  if (topics.length === 0 && patternValue.length === 0 && partitions === undefined) {
    throw new ConfigError(
      `Must configure one of topics, topics.regex or ${K.PARTITIONS}`,
      'topics',
    );
  }
  const reset = values[K.STARTING_RESET] as 'earliest' | 'latest';
  const startingMode = values[K.STARTING] as string;
  const starting: StartingOffsets =
    startingMode === 'earliest' || startingMode === 'latest'
      ? { kind: startingMode }
      : startingMode === 'timestamp'
        ? {
            kind: 'timestamp',
            timestampMs: requiredTimestamp(values, K.STARTING_TIMESTAMP, 'timestamp'),
          }
        : startingMode === 'specific'
          ? {
              kind: 'specific',
              offsets: offsetList(K.STARTING_SPECIFIC, String(values[K.STARTING_SPECIFIC])),
              reset,
            }
          : { kind: 'committed', reset };
  const stoppingMode = values[K.STOPPING] as string;
  const stopping: StoppingOffsets =
    stoppingMode === 'latest'
      ? { kind: 'latest' }
      : stoppingMode === 'timestamp'
        ? {
            kind: 'timestamp',
            timestampMs: requiredTimestamp(values, K.STOPPING_TIMESTAMP, 'timestamp'),
          }
        : stoppingMode === 'specific'
          ? {
              kind: 'specific',
              offsets: offsetList(K.STOPPING_SPECIFIC, String(values[K.STOPPING_SPECIFIC])),
            }
          : { kind: 'none' };
  return {
    topics: [...new Set(topics)],
    pattern: patternValue.length > 0 ? patternValue : undefined,
    partitions,
    starting,
    stopping,
    discoveryIntervalMs: Number(values[K.DISCOVERY_INTERVAL]),
  };
}
