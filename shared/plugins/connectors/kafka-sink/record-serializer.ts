/**
 * Turns a converted (and transformed) SinkRecord back into a Kafka record for the output topic,
 * with the connector's own key, value and header converters: bytes pass through unchanged with
 * the ByteArrayConverter, other converters serialise the Connect data again.
 */
import { ConfigError, isPromiseLike, type SinkRecord } from 'serverless-connect/connect';
import {
  type InputTopics,
  type KafkaSinkConfig,
  OUTPUT_PARTITION_CONFIG,
  outputTopicFor,
  outputTopicProblem,
  TOPIC_RENAME_FORMAT_CONFIG,
} from './kafka-sink-config.js';
import type { KafkaSinkConverters, OutputHeader, OutputRecord } from './kafka-sink-deps.js';

/** Serialises records for one task; remembers the output topics it has checked. */
export class RecordSerializer {
  /** The checked output topic of each topic seen (`topic.rename.format` applied once). */
  readonly #outputs = new Map<string, string>();

  constructor(
    private readonly converters: KafkaSinkConverters,
    private readonly config: KafkaSinkConfig,
    private readonly input: InputTopics,
  ) {}

  /**
   * The record's output topic (`topic.rename.format` applied to its topic after
   * transformations). @throws ConfigError when the connector consumes that topic (a loop) or it
   * is not a legal topic name.
   */
  outputTopicOf(record: SinkRecord): string {
    const known = this.#outputs.get(record.topic);
    if (known !== undefined) return known;
    const output = outputTopicFor(this.config.topicRenameFormat, record.topic);
    const problem = outputTopicProblem(output, this.input);
    if (problem !== undefined) {
      throw new ConfigError(
        `Invalid value ${this.config.topicRenameFormat} for configuration ${TOPIC_RENAME_FORMAT_CONFIG}: ` +
          `records of topic '${record.topic}' would go to ${problem}`,
        TOPIC_RENAME_FORMAT_CONFIG,
      );
    }
    this.#outputs.set(record.topic, output);
    return output;
  }

  /**
   * The Kafka record for `record` in `output`: key, value and headers serialised by the
   * converters (with the output topic, as a producer's serialisers see it), the timestamp kept,
   * and for `output.partition=source` the record's partition. A promise only when a converter
   * returned one (it needs I/O, e.g. a schema registry). Throws or rejects with what a converter
   * throws (a DataError for data it cannot serialise).
   */
  serialize(record: SinkRecord, output: string): OutputRecord | Promise<OutputRecord> {
    const headers: OutputHeader[] = [];
    for (const h of record.headers) {
      headers.push({
        key: h.key,
        value: this.converters.header.fromConnectHeader(output, h.key, h.schema, h.value),
      });
    }
    const key = this.converters.key.fromConnectData(
      output,
      record.headers,
      record.keySchema,
      record.key,
    );
    if (isPromiseLike(key)) {
      return Promise.resolve(key).then((bytes) => this.#withValue(record, output, headers, bytes));
    }
    return this.#withValue(record, output, headers, key);
  }

  /** The record once its key is serialised: its value next (the converters take turns). */
  #withValue(
    record: SinkRecord,
    output: string,
    headers: readonly OutputHeader[],
    key: Uint8Array | null,
  ): OutputRecord | Promise<OutputRecord> {
    const { valueSchema, value } = record;
    const bytes = this.converters.value.fromConnectData(output, record.headers, valueSchema, value);
    if (isPromiseLike(bytes)) {
      return Promise.resolve(bytes).then((v) => this.#outputOf(record, output, headers, key, v));
    }
    return this.#outputOf(record, output, headers, key, bytes);
  }

  #outputOf(
    record: SinkRecord,
    output: string,
    headers: readonly OutputHeader[],
    key: Uint8Array | null,
    value: Uint8Array | null,
  ): OutputRecord {
    const out: { -readonly [K in keyof OutputRecord]: OutputRecord[K] } = {
      topic: output,
      key,
      value,
      headers,
    };
    if (this.config.outputPartition === 'source') out.partition = outputPartitionOf(record);
    if (record.timestamp !== null) out.timestamp = record.timestamp;
    return out;
  }
}

/** The partition of `record` (its original one if a transformation cleared it). */
export function outputPartitionOf(record: SinkRecord): number {
  return record.kafkaPartition ?? record.originalKafkaPartition;
}

/** The output partition check of `output.partition=source`: the topic needs `partition + 1`. */
export function outputPartitionProblem(
  output: string,
  partitions: number,
  needed: number,
): ConfigError | undefined {
  if (needed < partitions) return undefined;
  return new ConfigError(
    `The output topic '${output}' has ${partitions} partition(s), but ${OUTPUT_PARTITION_CONFIG}=source ` +
      `writes input partition ${needed} to its partition ${needed}: add partitions to '${output}' ` +
      `or set ${OUTPUT_PARTITION_CONFIG}=key`,
    OUTPUT_PARTITION_CONFIG,
  );
}
