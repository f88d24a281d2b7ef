/**
 * The datagen source task: generates the records of its source partitions, resuming after
 * the committed offsets, round-robin over its partitions, within `records.per.poll`,
 * `iterations`, `max.interval` and `rate.per.second`.
 *
 * Source partitions are `{"datagen.partition": i}`; the offset after a record is
 * `{"seq": n}`, the last sequence number emitted for that partition. Sequences start at 1 and
 * have no gaps, so after a crash the task resumes exactly after the committed offsets.
 */
import {
  DataError,
  Headers,
  Schemas,
  type SourceOffset,
  type SourcePartition,
  SourceRecord,
  SourceTask,
  type SourceTaskContext,
} from 'serverless-connect/connect';
import {
  DATAGEN_VERSION,
  type DatagenTaskConfig,
  parseDatagenTaskConfig,
} from './datagen-config.js';
import { DatagenGenerator, toNonNegativeInteger } from './quickstarts.js';

/** The key of a datagen source partition: `{"datagen.partition": 3}`. */
export const DATAGEN_PARTITION_KEY = 'datagen.partition';
/** The key of a datagen source offset: `{"seq": 42}`, the last seq emitted. */
export const DATAGEN_SEQ_OFFSET_KEY = 'seq';
/** Headers on every record (string schema): its source partition and its seq. */
export const DATAGEN_PARTITION_HEADER = 'datagen.partition';
export const DATAGEN_SEQ_HEADER = 'datagen.seq';
/** The longest a throttled poll waits (with an injected `sleep`) before returning. */
export const MAX_THROTTLE_WAIT_MS = 250;

/** The time source (structurally the runtime's `Clock`): epoch milliseconds, never backwards. */
export interface DatagenClock {
  now(): number;
}

/** What the datagen connector and task are built from. */
export interface DatagenDeps {
  /** Stamps records and paces `max.interval` and `rate.per.second`. */
  readonly clock: DatagenClock;
  /**
   * Resolves after `ms`. When given, a throttled poll waits (at most
   * {@link MAX_THROTTLE_WAIT_MS}) for records to become due instead of returning at once.
   * @default none: a throttled poll returns `null` at once
   */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The source partition of datagen partition `partition`. */
export function datagenSourcePartition(partition: number): SourcePartition {
  return { [DATAGEN_PARTITION_KEY]: partition };
}

/** The source offset after record `seq`. */
export function datagenSourceOffset(seq: number): SourceOffset {
  return { [DATAGEN_SEQ_OFFSET_KEY]: seq };
}

/** The datagen partition of a source partition. Throws DataError when it is not one. */
export function parseDatagenSourcePartition(partition: SourcePartition): number {
  const value = toNonNegativeInteger(partition[DATAGEN_PARTITION_KEY]);
  if (value === null) {
    throw new DataError(
      `Invalid datagen source partition: expected {"${DATAGEN_PARTITION_KEY}": <integer ≥ 0>}, got ${String(partition[DATAGEN_PARTITION_KEY])}`,
    );
  }
  return value;
}

/** The last seq of a stored offset (`0` when none). Throws DataError when malformed. */
export function parseDatagenSourceOffset(offset: SourceOffset | null): number {
  if (offset === null) return 0;
  const value = toNonNegativeInteger(offset[DATAGEN_SEQ_OFFSET_KEY]);
  if (value === null) {
    throw new DataError(
      `Invalid datagen source offset: expected {"${DATAGEN_SEQ_OFFSET_KEY}": <integer ≥ 0>}, got ${String(offset[DATAGEN_SEQ_OFFSET_KEY])}`,
    );
  }
  return value;
}

interface PartitionState {
  readonly partition: number;
  readonly sourcePartition: SourcePartition;
  nextSeq: number;
}

interface Running {
  readonly config: DatagenTaskConfig;
  readonly context: SourceTaskContext;
  readonly generator: DatagenGenerator;
  readonly states: readonly PartitionState[];
  readonly startedAt: number;
  /** This task's share of `rate.per.second` (0 = unlimited). */
  readonly rate: number;
}

/** How many records a poll may return now, or how long until one is due. */
interface Budget {
  readonly count: number;
  readonly waitMs: number;
}

/**
 * Generates records for the source partitions listed in its task config.
 *
 * - Records: `topic` = kafka.topic, a string key, a Struct value of the quickstart's schema,
 *   headers `datagen.partition` and `datagen.seq`, and the clock's time at poll as timestamp
 *   (the value's own time fields are deterministic; the record timestamp is not, so Kafka's
 *   time-based retention sees fresh records).
 * - `poll` never blocks longer than {@link MAX_THROTTLE_WAIT_MS}; it returns `null` when
 *   throttled, when every partition has reached `iterations`, or after `stop`.
 * - With `transaction.records` = N and a transaction context, it asks to commit after every
 *   Nth record it returns, and after its last record once `iterations` is reached.
 *
 * @example
 * const task = new DatagenSourceTask({ clock: { now: () => Date.now() } });
 * await task.start({ 'kafka.topic': 'orders', quickstart: 'orders' }, context);
 * const records = await task.poll();
 */
export class DatagenSourceTask extends SourceTask {
  readonly #deps: DatagenDeps;
  #running: Running | null = null;
  #cursor = 0;
  #emitted = 0;
  #lastBatchAt: number | null = null;
  #sinceBoundary = 0;
  #stopped = false;

  constructor(deps: DatagenDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return DATAGEN_VERSION;
  }

  /** Parses the task config (ConfigError when invalid) and reads the committed offsets. */
  async start(props: Readonly<Record<string, string>>, context: SourceTaskContext): Promise<void> {
    const config = parseDatagenTaskConfig(props);
    const sourcePartitions = config.partitions.map(datagenSourcePartition);
    const stored = await context.offsetStorageReader.offsets(sourcePartitions);
    const lastSeq = new Map<number, number>();
    for (const entry of stored) {
      lastSeq.set(
        parseDatagenSourcePartition(entry.partition),
        parseDatagenSourceOffset(entry.offset),
      );
    }
    this.#running = {
      config,
      context,
      generator: new DatagenGenerator(config),
      states: config.partitions.map((partition, i) => ({
        partition,
        sourcePartition: sourcePartitions[i] ?? datagenSourcePartition(partition),
        nextSeq: (lastSeq.get(partition) ?? 0) + 1,
      })),
      startedAt: this.#deps.clock.now(),
      rate: (config.ratePerSecond * config.partitions.length) / config.sourcePartitions,
    };
  }

  async poll(): Promise<SourceRecord[] | null> {
    const running = this.#running;
    if (running === null || this.#stopped) return null;
    let now = this.#deps.clock.now();
    let budget = this.#budget(running, now);
    if (budget.count === 0 && budget.waitMs > 0 && this.#deps.sleep !== undefined) {
      await this.#deps.sleep(Math.min(budget.waitMs, MAX_THROTTLE_WAIT_MS));
      if (this.#stopped) return null;
      now = this.#deps.clock.now();
      budget = this.#budget(running, now);
    }
    if (budget.count === 0) return null;
    const records = this.#generate(running, budget.count, now);
    if (records.length === 0) return null;
    this.#emitted += records.length;
    this.#lastBatchAt = now;
    this.#defineBoundaries(running, records);
    return records;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
  }

  #exhausted(running: Running, state: PartitionState): boolean {
    return running.config.iterations >= 0 && state.nextSeq > running.config.iterations;
  }

  #budget(running: Running, now: number): Budget {
    if (running.states.every((s) => this.#exhausted(running, s))) return { count: 0, waitMs: 0 };
    const { maxIntervalMs, recordsPerPoll } = running.config;
    if (
      maxIntervalMs > 0 &&
      this.#lastBatchAt !== null &&
      now - this.#lastBatchAt < maxIntervalMs
    ) {
      return { count: 0, waitMs: maxIntervalMs - (now - this.#lastBatchAt) };
    }
    if (running.rate <= 0) return { count: recordsPerPoll, waitMs: 0 };
    const elapsed = Math.max(0, now - running.startedAt);
    const allowed = Math.floor((elapsed * running.rate) / 1000) - this.#emitted;
    if (allowed > 0) return { count: Math.min(recordsPerPoll, allowed), waitMs: 0 };
    const dueAt = ((this.#emitted + 1) * 1000) / running.rate;
    return { count: 0, waitMs: Math.max(1, Math.ceil(dueAt - elapsed)) };
  }

  /** Up to `count` records, round-robin over the partitions not yet exhausted. */
  #generate(running: Running, count: number, timestamp: number): SourceRecord[] {
    const { states } = running;
    const records: SourceRecord[] = [];
    let skipped = 0;
    while (records.length < count && skipped < states.length) {
      const state = states[this.#cursor];
      this.#cursor = (this.#cursor + 1) % states.length;
      if (state === undefined || this.#exhausted(running, state)) {
        skipped++;
        continue;
      }
      skipped = 0;
      records.push(
        this.#record(running, state.partition, state.sourcePartition, state.nextSeq, timestamp),
      );
      state.nextSeq++;
    }
    return records;
  }

  #record(
    running: Running,
    partition: number,
    sourcePartition: SourcePartition,
    seq: number,
    timestamp: number,
  ): SourceRecord {
    const { key, value } = running.generator.generate(partition, seq);
    const headers = new Headers()
      .add(DATAGEN_PARTITION_HEADER, String(partition), Schemas.STRING)
      .add(DATAGEN_SEQ_HEADER, String(seq), Schemas.STRING);
    return new SourceRecord({
      sourcePartition,
      sourceOffset: datagenSourceOffset(seq),
      topic: running.config.topic,
      keySchema: Schemas.STRING,
      key,
      valueSchema: running.generator.valueSchema,
      value,
      timestamp,
      headers,
    });
  }

  /** Asks to commit after every Nth record, and after the last one once all are exhausted. */
  #defineBoundaries(running: Running, records: readonly SourceRecord[]): void {
    const every = running.config.transactionRecords;
    const transactions = running.context.transactionContext;
    if (every === null || transactions === null) return;
    for (const record of records) {
      this.#sinceBoundary++;
      if (this.#sinceBoundary >= every) {
        transactions.commitTransaction(record);
        this.#sinceBoundary = 0;
      }
    }
    const last = records[records.length - 1];
    const done = running.states.every((s) => this.#exhausted(running, s));
    if (done && last !== undefined && this.#sinceBoundary > 0) {
      transactions.commitTransaction(last);
      this.#sinceBoundary = 0;
    }
  }
}
