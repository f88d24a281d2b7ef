import type { Batch, Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import {
  type EsmSourceRecord,
  type KafkaEsmEvent,
  toEsmEvent,
} from '../../shared/adapters/lambda/esm-event.js';
import type { SinkMapping } from '../../shared/ports/dispatch.js';
import type { Logger } from '../../shared/ports/logger.js';
import { errorSummary } from '../../shared/runtime/pipeline/error-reporter.js';
import { type BackoffSettings, retryDelayMs } from './backoff.js';
import { chunksOf, toEsmSourceRecord } from './kafkajs-records.js';
import { type LambdaLikeContext, localLambdaContext } from './lambda-context.js';
import type { MappingStats } from './mapping-stats.js';

/** The sink-task function as a mapping invokes it; a rejection makes the batch redeliver. */
export type EsmHandler = (event: KafkaEsmEvent, context: LambdaLikeContext) => Promise<unknown>;

/** Settings shared by every mapping consumer. */
export interface MappingConsumerSettings {
  readonly backoff: BackoffSettings;
  /** The function timeout each invocation's `getRemainingTimeInMillis` counts down from. */
  readonly invocationTimeoutMs: number;
  /** Fetch wait when the mapping's batching window is 0 s. */
  readonly idleFetchWaitMs: number;
  /**
   * Cap on the fetch wait: stopping a consumer waits for its fetch in flight, so a 300 s window
   * would make disabling a mapping take 300 s. (With kafkajs' `minBytes` of 1 the broker answers
   * as soon as any record is there, so the wait only matters on an idle topic.)
   */
  readonly maxFetchWaitMs: number;
  /** How often to heartbeat while an invocation runs or a retry waits. */
  readonly heartbeatEveryMs: number;
  /**
   * The consumers' group session timeout: after a kill (SIGKILL, a crash) the broker keeps the
   * dead consumer in its group that long, and the next consumer of the group waits for it.
   */
  readonly sessionTimeoutMs: number;
}

/** What the broker lists of a group before a consumer joins it. */
export interface GroupMembers {
  readonly state: string;
  readonly members: number;
}

export interface MappingConsumerDeps {
  readonly kafka: Kafka;
  /** `bootstrapServers` of the events (brokers joined by commas). */
  readonly bootstrapServers: string;
  readonly handler: EsmHandler;
  /** The alias the connector's invocations go through. */
  readonly alias: string;
  readonly logger: Logger;
  readonly settings: MappingConsumerSettings;
  readonly stats: MappingStats;
  readonly random: () => number;
  /** Called once when kafkajs gives up on the consumer (it will not restart it). */
  readonly onFailed: (error: unknown) => void;
  /** The group's state and member count as the broker describes it (before joining). */
  readonly describeGroup: (groupId: string) => Promise<GroupMembers>;
}

type Heartbeat = () => Promise<void>;
type StillWanted = () => boolean;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * The kafkajs consumer of one enabled mapping: group `mapping.groupId`, read_committed, no
 * auto-commit. As Lambda's Kafka event source mapping, it invokes the partitions concurrently,
 * one invocation at a time per partition, in offset order within it: each fetched partition
 * batch goes to the partition's lane, and the partition is paused (not fetched) until its lane
 * is done, so a partition whose invocations keep failing (or run long) holds up no other. A
 * lane cuts its batch into invocations of at most `batchSize` records; an invocation's offsets
 * are committed (last offset + 1) only after the handler resolves. A rejected invocation is
 * redelivered with the same records after an exponential backoff, until it succeeds, the group
 * rebalances or the consumer is stopped (then nothing more is committed and the partition is
 * fetched again from the last committed record).
 *
 * Lifecycle: `start` once, then `stop` once (idempotent); a stopped instance is not restarted.
 */
export class MappingConsumer {
  readonly #mapping: SinkMapping;
  readonly #deps: MappingConsumerDeps;
  readonly #stopping = new AbortController();
  /** Offsets committed by this consumer, per partition (commits never go backwards). */
  readonly #committed = new Map<number, bigint>();
  /** The partitions' lanes in flight (one per partition at most). */
  readonly #lanes = new Map<number, Promise<void>>();
  /** Bumped by every join of the group: a lane of an older generation stops retrying. */
  #generation = 0;
  #commits: Promise<void> = Promise.resolve();
  #consumer: Consumer | undefined;
  #failed = false;
  #stopped: Promise<void> | undefined;

  constructor(mapping: SinkMapping, deps: MappingConsumerDeps) {
    this.#mapping = mapping;
    this.#deps = deps;
  }

  get mapping(): SinkMapping {
    return this.#mapping;
  }

  /** False once kafkajs crashed the consumer for good. */
  get healthy(): boolean {
    return !this.#failed;
  }

  /** Connects, subscribes and joins the group; rejects (leaving nothing running) on failure. */
  async start(): Promise<void> {
    const { kafka, settings } = this.#deps;
    const mapping = this.#mapping;
    const windowMs = mapping.maxBatchingWindowSeconds * 1000;
    const consumer = kafka.consumer({
      groupId: mapping.groupId,
      readUncommitted: false,
      allowAutoTopicCreation: false,
      sessionTimeout: settings.sessionTimeoutMs,
      heartbeatInterval: settings.heartbeatEveryMs,
      maxWaitTimeInMs: Math.min(
        settings.maxFetchWaitMs,
        windowMs > 0 ? windowMs : settings.idleFetchWaitMs,
      ),
    });
    this.#consumer = consumer;
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (this.#stopping.signal.aborted) return;
      this.#deps.stats.lastError = errorSummary(payload.error);
      if (payload.restart) return; // kafkajs restarts the consumer itself
      this.#failed = true;
      this.#deps.onFailed(payload.error);
    });
    consumer.on(consumer.events.GROUP_JOIN, () => {
      this.#generation += 1;
    });
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      // kafkajs resolves batches that held only aborted records or transaction markers without
      // calling eachBatch; commit past them so the group's lag reaches 0, as a Java consumer does.
      if (payload.batchSize !== 0) return;
      const next = BigInt(payload.lastOffset) + 1n;
      void this.#commit(payload.topic, payload.partition, next, (offsets) =>
        consumer.commitOffsets(offsets),
      ).catch((error: unknown) => this.#debug('commit after filtered batch failed', error));
    });
    try {
      await consumer.connect();
      await consumer.subscribe({
        topics: [mapping.topic],
        fromBeginning: mapping.startingPosition === 'TRIM_HORIZON',
      });
      await this.#sayWhatTheJoinWaitsFor();
      // Resolves once the consumer has joined the group and has its partitions.
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: (payload) => this.#eachBatch(payload),
      });
    } catch (error) {
      this.#stopping.abort();
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Stops retrying at once, waits for the invocations in flight to end (committing those that
   * succeeded), invokes nothing more and leaves the group. Idempotent.
   */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      this.#stopping.abort();
      await Promise.all(this.#lanes.values());
      await this.#consumer?.disconnect().catch((error: unknown) => {
        this.#deps.logger.warn('mapping consumer did not disconnect cleanly', {
          ...this.#fields(),
          error: errorSummary(error),
        });
      });
      await this.#commits.catch(() => undefined);
    })();
    return this.#stopped;
  }

  /**
   * Logs what the group join is about to wait for: members an earlier process left behind
   * (killed, crashed) stay until their session times out, and the broker assigns no partition
   * before that.
   */
  async #sayWhatTheJoinWaitsFor(): Promise<void> {
    const group = await this.#deps.describeGroup(this.#mapping.groupId).catch((error: unknown) => {
      this.#debug('could not describe the group before joining it', error);
      return undefined;
    });
    if (group === undefined || group.members === 0) return;
    this.#deps.logger.warn(
      'waiting for the group to rebalance after an unclean stop: the broker keeps the ' +
        "consumers of an earlier run until their session times out, and assigns this mapping's " +
        'partitions after that',
      {
        ...this.#fields(),
        groupState: group.state,
        leftoverMembers: group.members,
        sessionTimeoutMs: this.#deps.settings.sessionTimeoutMs,
      },
    );
  }

  /** Hands the batch to its partition's lane, pausing the partition until the lane is done. */
  async #eachBatch(payload: EachBatchPayload): Promise<void> {
    const { partition } = payload.batch;
    const resume = payload.pause();
    // Stopping: left unresolved and paused, for the next consumer of the group.
    if (this.#stopping.signal.aborted) return;
    const busy = this.#lanes.get(partition);
    if (busy !== undefined) {
      // Left unresolved: fetched again once the lane in flight is done.
      void busy.finally(resume);
      return;
    }
    const generation = this.#generation;
    const stillWanted: StillWanted = () =>
      !this.#stopping.signal.aborted && payload.isRunning() && this.#generation === generation;
    const lane = this.#runLane(payload, stillWanted)
      .catch((error: unknown) => {
        this.#deps.logger.warn('mapping consumer lane stopped; the partition is fetched again', {
          ...this.#fields(),
          partition,
          error: errorSummary(error),
        });
      })
      .finally(() => {
        this.#lanes.delete(partition);
        resume();
      });
    this.#lanes.set(partition, lane);
  }

  /** Delivers one fetched partition batch, invocation by invocation, committing each. */
  async #runLane(payload: EachBatchPayload, stillWanted: StillWanted): Promise<void> {
    const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary } = payload;
    const chunks = chunksOf(batch.messages, this.#mapping.batchSize);
    for (const [index, messages] of chunks.entries()) {
      const records = messages.map((m) => toEsmSourceRecord(batch.topic, batch.partition, m));
      const delivered = await this.#deliver(records, heartbeat, stillWanted);
      if (!delivered) return; // left unresolved: fetched again, or redelivered by the next consumer
      const last = messages.at(-1)?.offset ?? batch.lastOffset();
      resolveOffset(last);
      const next = (index === chunks.length - 1 ? lastOffsetOf(batch, last) : BigInt(last)) + 1n;
      await this.#commit(batch.topic, batch.partition, next, (offsets) =>
        commitOffsetsIfNecessary({
          topics: offsets.map(({ topic, partition, offset }) => ({
            topic,
            partitions: [{ partition, offset }],
          })),
        }),
      );
    }
  }

  /** Invokes the handler with `records` until it succeeds (true) or the consumer stops (false). */
  async #deliver(
    records: readonly EsmSourceRecord[],
    heartbeat: Heartbeat,
    stillWanted: StillWanted,
  ): Promise<boolean> {
    const { stats, settings, random } = this.#deps;
    for (let attempt = 0; ; attempt += 1) {
      if (!stillWanted()) return false;
      try {
        await this.#invoke(records, heartbeat);
        stats.delivered(records.length, Date.now());
        return true;
      } catch (error) {
        stats.failed(error);
        const delayMs = retryDelayMs(attempt, settings.backoff, random);
        this.#deps.logger.warn('sink-task invocation failed; redelivering the batch', {
          ...this.#fields(),
          partition: records[0]?.partition,
          firstOffset: records[0]?.offset,
          records: records.length,
          attempt: attempt + 1,
          retryInMs: delayMs,
          error: errorSummary(error),
        });
        if (!(await this.#wait(delayMs, heartbeat, stillWanted))) return false;
      }
    }
  }

  async #invoke(records: readonly EsmSourceRecord[], heartbeat: Heartbeat): Promise<void> {
    const { handler, alias, settings, bootstrapServers } = this.#deps;
    const context = localLambdaContext({ alias, timeoutMs: settings.invocationTimeoutMs });
    const beat = setInterval(() => {
      heartbeat().catch((error: unknown) => this.#debug('heartbeat failed', error));
    }, settings.heartbeatEveryMs);
    try {
      await handler(toEsmEvent(records, { bootstrapServers }), context);
    } finally {
      clearInterval(beat);
      if (context.getRemainingTimeInMillis() === 0) {
        this.#deps.logger.warn('sink-task invocation ran past its timeout (not enforced locally)', {
          ...this.#fields(),
          timeoutMs: settings.invocationTimeoutMs,
        });
      }
    }
  }

  /** Waits `ms` while heartbeating; false when the wait was cut short (stop, rebalance). */
  async #wait(ms: number, heartbeat: Heartbeat, stillWanted: StillWanted): Promise<boolean> {
    const until = Date.now() + ms;
    for (;;) {
      if (!stillWanted()) return false;
      const left = until - Date.now();
      if (left <= 0) return true;
      await sleep(Math.min(left, this.#deps.settings.heartbeatEveryMs), this.#stopping.signal);
      if (!stillWanted()) return false;
      try {
        await heartbeat();
      } catch (error) {
        this.#debug('heartbeat failed during backoff; leaving the batch to the group', error);
        return false;
      }
    }
  }

  /** Commits `next` for one partition, in order with every other commit, never backwards. */
  #commit(
    topic: string,
    partition: number,
    next: bigint,
    send: (
      offsets: { topic: string; partition: number; offset: string }[],
    ) => Promise<void> | undefined,
  ): Promise<void> {
    const run = this.#commits.then(async () => {
      const done = this.#committed.get(partition);
      if (done !== undefined && done >= next) return;
      await send([{ topic, partition, offset: next.toString() }]);
      this.#committed.set(partition, next);
    });
    this.#commits = run.catch(() => undefined);
    return run;
  }

  #fields() {
    return {
      connector: this.#mapping.connector,
      mapping: this.#mapping.id,
      topic: this.#mapping.topic,
      groupId: this.#mapping.groupId,
    };
  }

  #debug(message: string, error: unknown): void {
    this.#deps.logger.debug(message, { ...this.#fields(), error: errorSummary(error) });
  }
}

/** The batch's last offset (past trailing aborted records and markers) when `last` ends it. */
function lastOffsetOf(batch: Batch, last: string): bigint {
  const end = BigInt(batch.lastOffset());
  const own = BigInt(last);
  return end > own ? end : own;
}
