/**
 * The output topics of the Kafka sink, checked once per container: a missing one is created with
 * as many partitions as its input topic (the broker's default replication factor and configs).
 */
import { RetriableError } from 'serverless-connect/connect';
import type { KafkaSinkAdmin, KafkaSinkLogger } from './kafka-sink-deps.js';

/** Partition counts of output topics, shared by every Kafka sink task of a container. */
export class OutputTopics {
  readonly #counts = new Map<string, number>();
  readonly #loading = new Map<string, Promise<number>>();

  constructor(
    private readonly admin: Pick<KafkaSinkAdmin, 'partitionCounts' | 'createTopics'>,
    private readonly logger: KafkaSinkLogger,
  ) {}

  /**
   * The partition count of `output`, which exists when this resolves: read once per container,
   * again when the known count is below `minPartitions` (the topic may have grown). Creates it
   * with the partition count of `input` when missing. Rejects with a RetriableError when the
   * input topic is unknown too, or what the admin client threw.
   */
  async partitions(output: string, input: string, minPartitions = 0): Promise<number> {
    const known = this.#counts.get(output);
    if (known !== undefined && known >= minPartitions) return known;
    let loading = this.#loading.get(output);
    if (loading === undefined) {
      loading = this.#load(output, input).finally(() => this.#loading.delete(output));
      this.#loading.set(output, loading);
    }
    return loading;
  }

  async #load(output: string, input: string): Promise<number> {
    const counts = await this.admin.partitionCounts([output, input]);
    let count = counts.get(output);
    if (count === undefined) {
      const inputCount = counts.get(input);
      if (inputCount === undefined) {
        throw new RetriableError(
          `Cannot create output topic ${output}: the partition count of input topic ${input} is unknown`,
        );
      }
      try {
        const created = await this.admin.createTopics([{ topic: output, partitions: inputCount }]);
        if (created.includes(output)) {
          this.logger.info('created the output topic of a Kafka sink', {
            topic: output,
            partitions: inputCount,
            input,
          });
        }
      } catch (error) {
        // Another container may have created it at the same moment: only its absence is fatal.
        if (!(await this.admin.partitionCounts([output])).has(output)) throw error;
      }
      count = (await this.admin.partitionCounts([output])).get(output) ?? inputCount;
    }
    this.#counts.set(output, count);
    return count;
  }
}
