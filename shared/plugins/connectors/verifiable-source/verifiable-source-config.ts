/**
 * The verifiable source's configuration: Apache Kafka's `VerifiableSourceConnector` keys
 * (`topic`, `throughput`, `complete.record.data`, and the task key `id`) plus two of ours
 * (`records.per.poll`, `max.records`), as a {@link ConfigDef} serving both the runtime and
 * `…/config/validate`.
 */
import { ConfigDef, NonEmptyString, Range } from 'serverless-connect/connect';

/** The version of the verifiable source connector and task. */
export const VERIFIABLE_SOURCE_VERSION = '0.1.0';

/** The connector's name, which Connect puts in every connector and task config. */
export const NAME_CONFIG = 'name';
export const TOPIC_CONFIG = 'topic';
export const THROUGHPUT_CONFIG = 'throughput';
export const COMPLETE_RECORD_DATA_CONFIG = 'complete.record.data';
export const RECORDS_PER_POLL_CONFIG = 'records.per.poll';
export const MAX_RECORDS_CONFIG = 'max.records';
/** Task config only, set by the connector: the task's number, 0 … tasks.max − 1. */
export const ID_CONFIG = 'id';

/** The connector's keys, in documentation order. */
export const VERIFIABLE_SOURCE_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: TOPIC_CONFIG,
    type: 'STRING',
    validator: new NonEmptyString(),
    importance: 'HIGH',
    documentation: 'The topic every record is written to.',
  })
  .define({
    name: THROUGHPUT_CONFIG,
    type: 'LONG',
    importance: 'HIGH',
    documentation:
      "Records per second of each task, averaged from the task's start, as Apache Kafka's VerifiableSourceTask: a negative value (-1) means no limit, 0 produces nothing.",
  })
  .define({
    name: COMPLETE_RECORD_DATA_CONFIG,
    type: 'BOOLEAN',
    defaultValue: false,
    importance: 'LOW',
    documentation:
      'false: the value is the seqno (int64); true: a struct {name, task, topic, time_ms, seqno}.',
  })
  .define({
    name: RECORDS_PER_POLL_CONFIG,
    type: 'INT',
    defaultValue: 500,
    validator: Range.atLeast(1),
    importance: 'LOW',
    documentation:
      "The most records one poll returns (not a key of Apache Kafka's connector, whose polls return one record each).",
  })
  .define({
    name: MAX_RECORDS_CONFIG,
    type: 'LONG',
    defaultValue: -1,
    importance: 'LOW',
    documentation:
      "Each task stops producing after this many seqnos (0 … max.records − 1); negative means never, as Apache Kafka's connector (which has no such key) runs until stopped.",
  });

/** The task's keys: the connector's plus {@link ID_CONFIG}. */
export const VERIFIABLE_SOURCE_TASK_CONFIG_DEF: ConfigDef = new ConfigDef(
  VERIFIABLE_SOURCE_CONFIG_DEF,
).define({
  name: ID_CONFIG,
  type: 'INT',
  validator: Range.atLeast(0),
  importance: 'HIGH',
  documentation: 'The task number, set by the connector (0 … tasks.max − 1).',
});

/** The parsed task config. */
export interface VerifiableSourceTaskConfig {
  /** The connector's name (`''` when the config has none). */
  readonly name: string;
  readonly id: number;
  readonly topic: string;
  /** Records per second; negative: unlimited; 0: nothing. */
  readonly throughput: number;
  readonly completeRecordData: boolean;
  readonly recordsPerPoll: number;
  /** Negative: unlimited. */
  readonly maxRecords: number;
}

/** Parses a task config. Throws ConfigError with Kafka's messages. */
export function parseVerifiableSourceTaskConfig(
  props: Readonly<Record<string, string>>,
): VerifiableSourceTaskConfig {
  const values = VERIFIABLE_SOURCE_TASK_CONFIG_DEF.parse(props);
  return {
    name: props[NAME_CONFIG] ?? '',
    id: Number(values[ID_CONFIG]),
    topic: String(values[TOPIC_CONFIG]),
    throughput: Number(values[THROUGHPUT_CONFIG]),
    completeRecordData: values[COMPLETE_RECORD_DATA_CONFIG] === true,
    recordsPerPoll: Number(values[RECORDS_PER_POLL_CONFIG]),
    maxRecords: Number(values[MAX_RECORDS_CONFIG]),
  };
}
