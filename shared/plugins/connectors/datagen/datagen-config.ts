/**
 * The datagen connector's configuration: the keys (a {@link ConfigDef} with docs, serving
 * both the runtime and `…/config/validate`), their parsed form, and the task config key that
 * lists a task's source partitions.
 */
import {
  CaseInsensitiveValidString,
  ConfigDef,
  ConfigError,
  invalidValue,
  NonEmptyString,
  Range,
  type Validator,
} from 'serverless-connect/connect';
import { QUICKSTARTS, type Quickstart } from './quickstarts.js';

/** The version of the datagen connector and task. */
export const DATAGEN_VERSION = '0.1.0';

export const KAFKA_TOPIC_CONFIG = 'kafka.topic';
export const QUICKSTART_CONFIG = 'quickstart';
export const SOURCE_PARTITIONS_CONFIG = 'source.partitions';
export const RECORDS_PER_POLL_CONFIG = 'records.per.poll';
export const MAX_INTERVAL_CONFIG = 'max.interval';
export const RATE_PER_SECOND_CONFIG = 'rate.per.second';
export const PAYLOAD_BYTES_CONFIG = 'payload.bytes';
export const ITERATIONS_CONFIG = 'iterations';
export const SEED_CONFIG = 'seed';
export const TRANSACTION_RECORDS_CONFIG = 'transaction.records';
/** Task config only: the comma-separated source partitions of one task, e.g. `0,3,6`. */
export const TASK_PARTITIONS_CONFIG = 'task.partitions';

/** The most source partitions a connector may have (keeps order ids safe integers). */
export const MAX_SOURCE_PARTITIONS = 100_000;

/** `null`, or an integer of at least `min` (for optional numeric keys). */
function nullOrAtLeast(min: number): Validator {
  const range = Range.atLeast(min);
  return {
    ensureValid: (name, value) => {
      if (value !== null && value !== undefined) range.ensureValid(name, value);
    },
    toString: () => `null or ${range.toString()}`,
  };
}

const quickstartOptions = CaseInsensitiveValidString.in(...QUICKSTARTS);

/**
 * One of {@link QUICKSTARTS}, ignoring case; Confluent's other quickstarts (clickstream,
 * ratings, stock_trades...) are refused as not supported.
 */
const quickstartValidator: Validator = {
  ensureValid: (name, value) => {
    try {
      quickstartOptions.ensureValid(name, value);
    } catch {
      throw invalidValue(
        name,
        value,
        `not supported by this datagen, which has only the quickstarts ${QUICKSTARTS.join(', ')} (Confluent's other quickstarts, schema.filename and schema.string are not supported)`,
      );
    }
  },
  toString: () => quickstartOptions.toString(),
};

/** The connector's own keys, in documentation order. */
export const DATAGEN_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: KAFKA_TOPIC_CONFIG,
    type: 'STRING',
    validator: new NonEmptyString(),
    importance: 'HIGH',
    documentation: 'The topic every generated record is written to.',
  })
  .define({
    name: QUICKSTART_CONFIG,
    type: 'STRING',
    defaultValue: 'sequence',
    validator: quickstartValidator,
    importance: 'HIGH',
    documentation:
      'The kind of records to generate: orders, users and pageviews (like Confluent datagen, plus datagen_partition and datagen_seq fields) or sequence ({partition, seq, payload}, keyed by partition).',
  })
  .define({
    name: SOURCE_PARTITIONS_CONFIG,
    type: 'INT',
    defaultValue: 1,
    validator: Range.between(1, MAX_SOURCE_PARTITIONS),
    importance: 'MEDIUM',
    documentation:
      'How many independent source partitions to generate, each {"datagen.partition": i} with its own sequence 1, 2, 3... and its own offset {"seq": last}. Spread round-robin over min(tasks.max, source.partitions) tasks.',
  })
  .define({
    name: RECORDS_PER_POLL_CONFIG,
    type: 'INT',
    defaultValue: 500,
    validator: Range.atLeast(1),
    importance: 'MEDIUM',
    documentation: 'The most records one poll returns, taken round-robin over the task partitions.',
  })
  .define({
    name: MAX_INTERVAL_CONFIG,
    type: 'LONG',
    defaultValue: 0,
    validator: Range.atLeast(0),
    importance: 'LOW',
    documentation:
      'Milliseconds between two non-empty polls of a task; a poll sooner returns no records instead of sleeping. 0 means no pause.',
  })
  .define({
    name: RATE_PER_SECOND_CONFIG,
    type: 'DOUBLE',
    defaultValue: 0,
    validator: Range.atLeast(0),
    importance: 'MEDIUM',
    documentation:
      'The most records per second for the whole connector, shared by the tasks in proportion to their source partitions and counted from each task start. 0 means unlimited.',
  })
  .define({
    name: PAYLOAD_BYTES_CONFIG,
    type: 'INT',
    defaultValue: 0,
    validator: Range.atLeast(0),
    importance: 'LOW',
    documentation:
      'Pads each value with random characters (payload or datagen_payload) so that its schemaless JSON is about this many bytes. 0 pads nothing.',
  })
  .define({
    name: ITERATIONS_CONFIG,
    type: 'LONG',
    defaultValue: -1,
    importance: 'MEDIUM',
    documentation:
      "The number of records generated per source partition; once every partition of a task has reached it, poll returns nothing. Less than 1 (-1, 0) means unlimited, as in Confluent's datagen.",
  })
  .define({
    name: SEED_CONFIG,
    type: 'LONG',
    defaultValue: 1,
    importance: 'LOW',
    documentation:
      'The seed of the generator: the same seed, source partition and seq always give the same record.',
  })
  .define({
    name: TRANSACTION_RECORDS_CONFIG,
    type: 'INT',
    defaultValue: null,
    validator: nullOrAtLeast(1),
    importance: 'LOW',
    documentation:
      'With exactly-once support and transaction.boundary=connector, the task commits a transaction after every this many records (and after its last record when iterations is reached). Unset: the task defines no boundaries.',
  });

/** The task config keys: the connector's plus {@link TASK_PARTITIONS_CONFIG}. */
export const DATAGEN_TASK_CONFIG_DEF: ConfigDef = new ConfigDef(DATAGEN_CONFIG_DEF).define({
  name: TASK_PARTITIONS_CONFIG,
  type: 'LIST',
  defaultValue: null,
  importance: 'HIGH',
  documentation:
    'The source partitions of this task, comma-separated (set by the connector). Unset: all of them.',
});

/** The parsed connector config. */
export interface DatagenConfig {
  readonly topic: string;
  readonly quickstart: Quickstart;
  readonly sourcePartitions: number;
  readonly recordsPerPoll: number;
  readonly maxIntervalMs: number;
  /** `0` when unlimited. */
  readonly ratePerSecond: number;
  readonly payloadBytes: number;
  /** `-1` when unlimited. */
  readonly iterations: number;
  readonly seed: bigint;
  /** `null` when the task defines no transaction boundaries. */
  readonly transactionRecords: number | null;
}

/** The parsed task config: the connector config plus the task's source partitions. */
export interface DatagenTaskConfig extends DatagenConfig {
  /** Distinct, ascending, each in [0, sourcePartitions). */
  readonly partitions: readonly number[];
}

function toQuickstart(value: unknown): Quickstart {
  const name = String(value).toLowerCase();
  const found = QUICKSTARTS.find((q) => q === name);
  if (found === undefined) throw invalidValue(QUICKSTART_CONFIG, value);
  return found;
}

/** `n`, or `-1` (unlimited) when it is below 1. */
function atLeastOneOrUnlimited(n: number): number {
  return n < 1 ? -1 : n;
}

function fromParsed(values: Record<string, unknown>): DatagenConfig {
  return {
    topic: String(values[KAFKA_TOPIC_CONFIG]),
    quickstart: toQuickstart(values[QUICKSTART_CONFIG]),
    sourcePartitions: Number(values[SOURCE_PARTITIONS_CONFIG]),
    recordsPerPoll: Number(values[RECORDS_PER_POLL_CONFIG]),
    maxIntervalMs: Number(values[MAX_INTERVAL_CONFIG]),
    ratePerSecond: Number(values[RATE_PER_SECOND_CONFIG]),
    payloadBytes: Number(values[PAYLOAD_BYTES_CONFIG]),
    iterations: atLeastOneOrUnlimited(Number(values[ITERATIONS_CONFIG])),
    seed: BigInt(values[SEED_CONFIG] as number | bigint),
    transactionRecords:
      values[TRANSACTION_RECORDS_CONFIG] === null
        ? null
        : Number(values[TRANSACTION_RECORDS_CONFIG]),
  };
}

/** Parses a connector config. Throws ConfigError with Kafka's messages. */
export function parseDatagenConfig(props: Readonly<Record<string, string>>): DatagenConfig {
  return fromParsed(DATAGEN_CONFIG_DEF.parse(props));
}

/**
 * Parses a task config. Throws ConfigError with Kafka's messages, or when a listed partition
 * is not an integer in [0, source.partitions).
 */
export function parseDatagenTaskConfig(props: Readonly<Record<string, string>>): DatagenTaskConfig {
  const values = DATAGEN_TASK_CONFIG_DEF.parse(props);
  const config = fromParsed(values);
  const listed = values[TASK_PARTITIONS_CONFIG] as string[] | null;
  const all = Array.from({ length: config.sourcePartitions }, (_, i) => i);
  const partitions = listed === null ? all : listed.map((p) => toPartition(p, config));
  return { ...config, partitions: [...new Set(partitions)].sort((a, b) => a - b) };
}

function toPartition(text: string, config: DatagenConfig): number {
  const partition = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(partition >= 0 && partition < config.sourcePartitions)) {
    throw new ConfigError(
      `Invalid value ${text} for configuration ${TASK_PARTITIONS_CONFIG}: each partition must be an integer in [0, ${config.sourcePartitions})`,
      TASK_PARTITIONS_CONFIG,
    );
  }
  return partition;
}

/**
 * The task configs for `maxTasks`: the source partitions dealt round-robin over
 * min(maxTasks, source.partitions) tasks (task t gets t, t + n, t + 2n…), each config being
 * the connector's props plus {@link TASK_PARTITIONS_CONFIG}.
 */
export function datagenTaskConfigs(
  props: Readonly<Record<string, string>>,
  config: DatagenConfig,
  maxTasks: number,
): Record<string, string>[] {
  const tasks = Math.max(1, Math.min(maxTasks, config.sourcePartitions));
  const assigned: number[][] = Array.from({ length: tasks }, () => []);
  for (let p = 0; p < config.sourcePartitions; p++) assigned[p % tasks]?.push(p);
  return assigned.map((partitions) => ({
    ...props,
    [TASK_PARTITIONS_CONFIG]: partitions.join(','),
  }));
}
