/**
 * Exactly-once writing of one input partition: a transactional producer of its own (stable
 * transactional id per connector and input partition), and per batch one transaction holding the
 * records and the connector group's offset for the partition.
 *
 * - Opening initialises the producer, which fences every older producer of the id (an earlier
 *   or overlapping invocation of the same partition) and completes or aborts its open
 *   transaction; only then is the group's committed offset read, so it includes everything any
 *   earlier invocation committed. It is kept (and moved by each commit) until the next failure:
 *   another writer of the partition must fence this producer before it can commit, and then this
 *   producer fails before committing anything.
 * - Records below the committed offset were written by an earlier invocation (whose sink offset
 *   write was lost) and are skipped.
 * - Any failure discards the producer. After a commit whose outcome is unknown, the fate of the
 *   transaction's first record settles it on the next open (a group offset read just after a
 *   transaction completes can still be the older one on brokers that apply transactional offset
 *   commits asynchronously).
 */
import { FencedError, isRetriable, RetriableError } from 'serverless-connect/connect';
import type {
  KafkaSinkClients,
  KafkaSinkLogger,
  KafkaSinkProducer,
  KafkaSinkProducers,
  OutputRecord,
  TopicPartitionOffset,
} from './kafka-sink-deps.js';

/** A serialised record and its input offset. */
export interface BufferedRecord {
  readonly offset: number;
  readonly record: OutputRecord;
}

/** What one {@link PartitionWriter.write} did. */
export interface WriteOutcome {
  /** Records sent in the committed transaction. */
  readonly written: number;
  /** Records below the group's committed offset: already written, not sent again. */
  readonly skipped: number;
  /** Whether a transaction was committed (false when everything was already committed). */
  readonly committed: boolean;
}

export interface PartitionWriterDeps {
  readonly kafka: Pick<KafkaSinkClients, 'admin' | 'isTransactionOutcomeUnknown'>;
  readonly logger: KafkaSinkLogger;
}

export interface PartitionWriterOptions {
  /** The input topic and partition. */
  readonly topic: string;
  readonly partition: number;
  readonly transactionalId: string;
  /** The connector's consumer group, whose offset for the partition moves with each commit. */
  readonly groupId: string;
  /** Builds the producer (with the connector's producer settings). */
  readonly producers: KafkaSinkProducers;
}

interface Ready {
  readonly producer: KafkaSinkProducer;
  /** The group's committed offset for the partition (the next input offset to write). */
  committed: number;
}

/** One input partition's producer and committed offset. Calls must not overlap. */
export class PartitionWriter {
  #ready: Promise<Ready> | undefined;
  #unsettled: { readonly position: TopicPartitionOffset; readonly next: number } | undefined;

  constructor(
    private readonly deps: PartitionWriterDeps,
    readonly options: PartitionWriterOptions,
  ) {}

  /**
   * Writes the records at or above the committed offset and moves the group's offset to `next`
   * (the input offset after the batch), in one transaction; does nothing when the group is
   * already at or past `next`. `records` are in input offset order.
   *
   * @throws RetriableError when the producer was fenced, the commit outcome is unknown, or a
   * retriable Kafka error occurred (the producer is discarded; a redelivery settles it);
   * other errors as thrown (non-retriable).
   */
  async write(records: readonly BufferedRecord[], next: number): Promise<WriteOutcome> {
    const warm = this.#ready !== undefined;
    try {
      return await this.#writeOnce(records, next);
    } catch (error) {
      // A producer kept from an earlier batch was fenced by another container that wrote this
      // partition since (Lambda need not send a partition's batches to one container): open a
      // fresh one, which fences that one in turn, re-read the group offset and try once more.
      // A producer opened for this very batch and fenced means a live overlapping invocation:
      // leave it to the redelivery.
      if (!warm || !(error instanceof RetriableError) || !(error.cause instanceof FencedError)) {
        throw error;
      }
      this.deps.logger.info('kafka sink producer fenced by another container; reopening', {
        transactionalId: this.options.transactionalId,
      });
      return this.#writeOnce(records, next);
    }
  }

  async #writeOnce(records: readonly BufferedRecord[], next: number): Promise<WriteOutcome> {
    const ready = await this.#open();
    if (next <= ready.committed) {
      return { written: 0, skipped: records.length, committed: false };
    }
    const fresh = records.filter((r) => r.offset >= ready.committed);
    let sent: readonly TopicPartitionOffset[] = [];
    let committing = false;
    try {
      const tx = await ready.producer.begin();
      try {
        sent = await tx.send(fresh.map((r) => r.record));
        await tx.sendOffsets(this.options.groupId, [
          { topic: this.options.topic, partition: this.options.partition, offset: next },
        ]);
      } catch (error) {
        await tx.abort().catch(() => undefined);
        throw error;
      }
      committing = true;
      await tx.commit();
    } catch (error) {
      const [first] = sent;
      const unknown = committing && this.deps.kafka.isTransactionOutcomeUnknown(error);
      if (unknown && first !== undefined) {
        this.#unsettled = { position: first, next };
      }
      await this.#discard();
      throw this.#failure(error);
    }
    ready.committed = next;
    return { written: fresh.length, skipped: records.length - fresh.length, committed: true };
  }

  /** Closes the producer (the next write opens a new one). Never throws. */
  async close(): Promise<void> {
    await this.#discard();
  }

  #open(): Promise<Ready> {
    if (this.#ready !== undefined) return this.#ready;
    const opening = (async (): Promise<Ready> => {
      const producer = this.options.producers(this.options.transactionalId);
      try {
        await producer.connect();
        return { producer, committed: await this.#readCommitted() };
      } catch (error) {
        await producer.close().catch(() => undefined);
        throw this.#failure(error);
      }
    })();
    this.#ready = opening;
    opening.catch(() => {
      if (this.#ready === opening) this.#ready = undefined;
    });
    return opening;
  }

  /** The group's committed offset, after settling a transaction of unknown outcome. */
  async #readCommitted(): Promise<number> {
    const { topic, partition, groupId } = this.options;
    const offsets = await this.deps.kafka.admin.committedOffsets(groupId, topic);
    let committed = offsets.find((o) => o.partition === partition)?.offset ?? 0;
    const unsettled = this.#unsettled;
    if (unsettled !== undefined) {
      const fate = await this.deps.kafka.admin.transactionalRecordFate(unsettled.position);
      if (fate === 'open') {
        throw new RetriableError(
          `The transaction of ${this.options.transactionalId} whose commit outcome was unknown is ` +
            'still undecided: the batch will be redelivered',
        );
      }
      if (fate === 'committed') committed = Math.max(committed, unsettled.next);
      this.deps.logger.info('settled a Kafka sink transaction of unknown outcome', {
        transactionalId: this.options.transactionalId,
        fate,
      });
      this.#unsettled = undefined;
    }
    return committed;
  }

  async #discard(): Promise<void> {
    const ready = this.#ready;
    this.#ready = undefined;
    if (ready !== undefined) {
      await ready.then((r) => r.producer.close()).catch(() => undefined);
    }
  }

  #failure(error: unknown): unknown {
    const { transactionalId } = this.options;
    if (error instanceof FencedError) {
      return new RetriableError(
        `Producer ${transactionalId} was fenced by a newer invocation of the same partition: ` +
          'the batch will be redelivered, skipping what that invocation committed',
        { cause: error },
      );
    }
    if (this.deps.kafka.isTransactionOutcomeUnknown(error)) {
      return new RetriableError(
        `The commit outcome of ${transactionalId} is unknown: the producer is rebuilt and the ` +
          'batch redelivered, skipping what committed',
        { cause: error },
      );
    }
    if (isRetriable(error) && !(error instanceof RetriableError)) {
      const message = error instanceof Error ? error.message : String(error);
      return new RetriableError(message, { cause: error });
    }
    return error;
  }
}
