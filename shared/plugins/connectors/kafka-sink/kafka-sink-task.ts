/**
 * The Kafka sink task: `put` serialises records with the connector's converters and buffers them
 * per input partition; `preCommit` writes each partition's buffer in one transaction with the
 * connector group's offset (partition-writer.ts), so the output holds every input record exactly
 * once although batches are redelivered.
 */
import {
  IllegalStateError,
  isPromiseLike,
  parseTopicPartitionKey,
  type SinkRecord,
  SinkTask,
  type SinkTaskContext,
  type TopicPartition,
  type TopicPartitionOffsets,
  topicPartitionKey,
} from 'serverless-connect/connect';
import { PartitionBuffers } from '../partition-buffers.js';
import {
  checkRenameFormat,
  connectorGroupId,
  KAFKA_SINK_VERSION,
  type KafkaSinkConfig,
  parseKafkaSinkConfig,
  partitionTransactionalId,
} from './kafka-sink-config.js';
import type {
  KafkaSinkClients,
  KafkaSinkLogger,
  KafkaSinkProducers,
  KafkaSinkWorker,
} from './kafka-sink-deps.js';
import type { OutputTopics } from './output-topics.js';
import { type BufferedRecord, PartitionWriter } from './partition-writer.js';
import {
  outputPartitionOf,
  outputPartitionProblem,
  RecordSerializer,
} from './record-serializer.js';

/** How many input partitions a task commits at once. */
const PARTITION_CONCURRENCY = 16;

/** What Kafka sink tasks share in a container (built by the descriptor). */
export interface KafkaSinkTaskDeps {
  readonly kafka: KafkaSinkClients;
  readonly worker: KafkaSinkWorker;
  readonly logger: KafkaSinkLogger;
  readonly outputTopics: OutputTopics;
}

/** A task's counts for one input partition since it started. */
export interface KafkaSinkPartitionCounts {
  /** Records written in committed transactions. */
  written: number;
  /** Records given to `put` but already committed by an earlier invocation (not written again). */
  skipped: number;
  /** Transactions committed. */
  transactions: number;
}

interface Started {
  readonly connector: string;
  readonly groupId: string;
  readonly config: KafkaSinkConfig;
  readonly serializer: RecordSerializer;
  readonly producers: KafkaSinkProducers;
  readonly context: SinkTaskContext;
}

/** An output topic of buffered records: an input topic writing to it, the highest partition used. */
type OutputUse = { input: string; maxPartition: number };

/**
 * Writes records to Kafka topics of the same cluster, exactly once per input partition.
 *
 * @example
 * // connector config: topics=orders, topic.rename.format=${topic}.replica,
 * // key.converter=…ByteArrayConverter, value.converter=…ByteArrayConverter,
 * // header.converter=…ByteArrayConverter → orders.replica mirrors orders byte for byte
 */
export class KafkaSinkTask extends SinkTask {
  #started: Started | undefined;
  readonly #buffers = new PartitionBuffers<BufferedRecord>();
  #outputs = new Map<string, OutputUse>();
  readonly #writers = new Map<string, PartitionWriter>();
  readonly #counts = new Map<string, KafkaSinkPartitionCounts>();

  constructor(private readonly deps: KafkaSinkTaskDeps) {
    super();
  }

  version(): string {
    return KAFKA_SINK_VERSION;
  }

  /**
   * Parses the task config (the connector's config) and builds the connector's converters.
   * @throws ConfigError for an invalid config, an unknown converter, a refused
   * `producer.override.*` or a `topic.rename.format` that loops.
   */
  async start(props: Readonly<Record<string, string>>, context: SinkTaskContext): Promise<void> {
    const config = parseKafkaSinkConfig(props);
    const { worker } = this.deps;
    const framework = worker.frameworkConfig(props);
    const input = { topics: framework.topics, topicsRegex: framework.topicsRegex };
    checkRenameFormat(config.topicRenameFormat, input, framework.hasTransforms);
    const converters = worker.converters(props);
    this.#started = {
      connector: framework.name,
      groupId: connectorGroupId(framework.name),
      config,
      serializer: new RecordSerializer(converters, config, input),
      producers: this.deps.kafka.producers(props),
      context,
    };
  }

  /**
   * Serialises and buffers `records` per input partition. A record the converters cannot
   * serialise goes to the errant record reporter when there is one (else the error is thrown).
   * Records at or below a partition's last buffered offset replace the buffer's tail (a retried
   * `put`). @throws ConfigError when an output topic loops back to an input topic.
   */
  async put(records: readonly SinkRecord[]): Promise<void> {
    const { serializer, context } = this.#require();
    for (const record of records) {
      const output = serializer.outputTopicOf(record);
      let serialised: BufferedRecord['record'];
      try {
        const result = serializer.serialize(record, output);
        serialised = isPromiseLike(result) ? await result : result;
      } catch (error) {
        const reporter = context.errantRecordReporter;
        if (reporter === null || !(error instanceof Error)) throw error;
        await reporter.report(record, error);
        continue;
      }
      this.#buffers.add(record, { offset: record.originalKafkaOffset, record: serialised });
      const use = this.#outputs.get(output);
      const partition = outputPartitionOf(record);
      if (use === undefined) {
        this.#outputs.set(output, { input: record.originalTopic, maxPartition: partition });
      } else if (partition > use.maxPartition) {
        this.#outputs.set(output, { input: use.input, maxPartition: partition });
      }
    }
  }

  /**
   * Writes every partition's buffer (and moves the connector group's offset to the given
   * offset, also for partitions whose records were all filtered), one transaction per partition,
   * creating missing output topics first. Returns `currentOffsets` once all committed.
   * @throws RetriableError when a partition's producer was fenced or its commit outcome is
   * unknown (the batch is redelivered; committed partitions skip it then).
   */
  override async preCommit(currentOffsets: TopicPartitionOffsets): Promise<TopicPartitionOffsets> {
    const started = this.#require();
    const buffers = this.#buffers.take();
    const outputs = this.#outputs;
    this.#outputs = new Map();
    await this.#ensureOutputs(started, outputs);
    const ids = [...new Set([...currentOffsets.keys(), ...buffers.keys()])];
    await this.deps.worker.mapLimit(ids, PARTITION_CONCURRENCY, async (id) => {
      const records = buffers.get(id) ?? [];
      const last = records[records.length - 1];
      const next = currentOffsets.get(id) ?? (last === undefined ? undefined : last.offset + 1);
      if (next === undefined) return;
      const outcome = await this.#writerOf(started, id).write(records, next);
      const counts = this.#countsOf(id);
      counts.written += outcome.written;
      counts.skipped += outcome.skipped;
      if (outcome.committed) counts.transactions += 1;
      if (outcome.skipped > 0) {
        this.deps.logger.info('skipped records the connector group had already committed', {
          connector: started.connector,
          partition: id,
          skipped: outcome.skipped,
          written: outcome.written,
        });
      }
    });
    return currentOffsets;
  }

  /** Closes the producers of `partitions` and drops what they had buffered. */
  override async close(partitions: readonly TopicPartition[]): Promise<void> {
    await Promise.all(
      partitions.map(async (tp) => {
        const id = topicPartitionKey(tp);
        this.#buffers.drop(id);
        const writer = this.#writers.get(id);
        this.#writers.delete(id);
        await writer?.close();
      }),
    );
  }

  /** Closes every producer. */
  async stop(): Promise<void> {
    const writers = [...this.#writers.values()];
    this.#writers.clear();
    this.#buffers.clear();
    await Promise.all(writers.map((w) => w.close()));
    this.#started = undefined;
  }

  /** Counts per input partition (`topic-partition`) since the task started. */
  counts(): ReadonlyMap<string, Readonly<KafkaSinkPartitionCounts>> {
    return this.#counts;
  }

  #require(): Started {
    if (this.#started === undefined) {
      throw new IllegalStateError('The Kafka sink task must be started before use');
    }
    return this.#started;
  }

  async #ensureOutputs(started: Started, outputs: ReadonlyMap<string, OutputUse>): Promise<void> {
    const source = started.config.outputPartition === 'source';
    await Promise.all(
      [...outputs].map(async ([output, use]) => {
        const needed = source ? use.maxPartition + 1 : 0;
        const count = await this.deps.outputTopics.partitions(output, use.input, needed);
        const problem = source
          ? outputPartitionProblem(output, count, use.maxPartition)
          : undefined;
        if (problem !== undefined) throw problem;
      }),
    );
  }

  #writerOf(started: Started, id: string): PartitionWriter {
    let writer = this.#writers.get(id);
    if (writer === undefined) {
      const { topic, partition } = parseTopicPartitionKey(id);
      writer = new PartitionWriter(this.deps, {
        topic,
        partition,
        transactionalId: partitionTransactionalId(
          this.deps.worker.transactionalIdPrefix,
          started.connector,
          topic,
          partition,
        ),
        groupId: started.groupId,
        producers: started.producers,
      });
      this.#writers.set(id, writer);
    }
    return writer;
  }

  #countsOf(id: string): KafkaSinkPartitionCounts {
    let counts = this.#counts.get(id);
    if (counts === undefined) {
      counts = { written: 0, skipped: 0, transactions: 0 };
      this.#counts.set(id, counts);
    }
    return counts;
  }
}
