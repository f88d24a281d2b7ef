/**
 * The verifiable source task: numbered records for soak and delivery tests, the same records
 * as Apache Kafka's `org.apache.kafka.connect.tools.VerifiableSourceTask` produces.
 *
 * Task `id` writes, to `topic`, records with key `id` (int32), value `seqno` (int64; or, with
 * `complete.record.data=true`, the struct {name, task, topic, time_ms, seqno}), no partition
 * (the producer's partitioner picks it from the key), no timestamp and no headers; source
 * partition `{"id": id}`, source offset `{"seqno": seqno}`. Seqnos run 0, 1, 2… and resume after
 * the committed offset, so a reader can check that every seqno of every task arrived once.
 */
import {
  DataError,
  type Schema,
  SchemaBuilder,
  Schemas,
  type SourceOffset,
  type SourcePartition,
  SourceRecord,
  SourceTask,
  type SourceTaskContext,
  Struct,
} from 'serverless-connect/connect';
import {
  parseVerifiableSourceTaskConfig,
  VERIFIABLE_SOURCE_VERSION,
  type VerifiableSourceTaskConfig,
} from './verifiable-source-config.js';

/** The key of a source partition: `{"id": 3}`, the task number. */
export const ID_PARTITION_KEY = 'id';
/** The key of a source offset: `{"seqno": 41}`, the last seqno written. */
export const SEQNO_OFFSET_KEY = 'seqno';
/** The longest a throttled poll waits before returning. */
export const MAX_THROTTLE_WAIT_MS = 250;

/** The value schema with `complete.record.data=true`, fields in Apache Kafka's order. */
export const COMPLETE_VALUE_SCHEMA: Schema = SchemaBuilder.struct()
  .field('name', Schemas.STRING)
  .field('task', Schemas.INT32)
  .field('topic', Schemas.STRING)
  .field('time_ms', Schemas.INT64)
  .field('seqno', Schemas.INT64)
  .build();

/** What the task is built from (the descriptor passes the wall clock and a timer). */
export interface VerifiableSourceDeps {
  /** Epoch milliseconds: the `time_ms` field and the throughput pacing. */
  readonly clock: { now(): number };
  /** Resolves after `ms`; a throttled poll waits with it (at most {@link MAX_THROTTLE_WAIT_MS}). */
  readonly sleep: (ms: number) => Promise<void>;
}

/** The source partition of task `id`. */
export function verifiableSourcePartition(id: number): SourcePartition {
  return { [ID_PARTITION_KEY]: id };
}

/** The task number of a source partition. Throws DataError when it is not one of ours. */
export function parseVerifiableSourcePartition(partition: SourcePartition): number {
  const id = partition[ID_PARTITION_KEY];
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 0) {
    throw new DataError(
      `Invalid verifiable source partition: expected {"${ID_PARTITION_KEY}": <integer ≥ 0>}, got ${JSON.stringify(partition)}`,
    );
  }
  return id;
}

/**
 * The next seqno after a stored offset: 0 without one, else the stored seqno + 1.
 * Throws DataError when the offset is not `{"seqno": <integer ≥ 0>}`.
 */
export function nextSeqnoAfter(offset: SourceOffset | null): number {
  if (offset === null) return 0;
  const raw = offset[SEQNO_OFFSET_KEY];
  const seqno = typeof raw === 'bigint' ? Number(raw) : raw;
  if (typeof seqno !== 'number' || !Number.isSafeInteger(seqno) || seqno < 0) {
    throw new DataError(
      `Invalid verifiable source offset: expected {"${SEQNO_OFFSET_KEY}": <integer ≥ 0>}, got ${JSON.stringify(offset, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`,
    );
  }
  return seqno + 1;
}

interface Running {
  readonly config: VerifiableSourceTaskConfig;
  readonly sourcePartition: SourcePartition;
  readonly startedAt: number;
  readonly startingSeqno: number;
  nextSeqno: number;
}

/**
 * Polls up to `records.per.poll` records, paced by `throughput` (per task, averaged since the
 * task started, as Apache's throttler does: negative is unlimited, 0 produces nothing), until
 * `max.records` seqnos exist (never, by default).
 *
 * @example
 * const task = new VerifiableSourceTask({ clock: { now: () => Date.now() }, sleep });
 * await task.start({ name: 'soak', topic: 'soak', throughput: '-1', id: '0' }, context);
 * await task.poll(); // 500 records, seqno 0 … 499
 */
export class VerifiableSourceTask extends SourceTask {
  readonly #deps: VerifiableSourceDeps;
  #running: Running | null = null;
  #stopped = false;

  constructor(deps: VerifiableSourceDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return VERIFIABLE_SOURCE_VERSION;
  }

  /** Parses the task config (ConfigError when invalid) and resumes after the committed seqno. */
  async start(props: Readonly<Record<string, string>>, context: SourceTaskContext): Promise<void> {
    const config = parseVerifiableSourceTaskConfig(props);
    const sourcePartition = verifiableSourcePartition(config.id);
    const seqno = nextSeqnoAfter(await context.offsetStorageReader.offset(sourcePartition));
    this.#running = {
      config,
      sourcePartition,
      startedAt: this.#deps.clock.now(),
      startingSeqno: seqno,
      nextSeqno: seqno,
    };
  }

  async poll(): Promise<SourceRecord[] | null> {
    const running = this.#running;
    if (running === null || this.#stopped) return null;
    let count = this.#allowed(running);
    if (count === 0) {
      await this.#deps.sleep(this.#waitMs(running));
      if (this.#stopped) return null;
      count = this.#allowed(running);
      if (count === 0) return null;
    }
    const records: SourceRecord[] = [];
    const now = this.#deps.clock.now();
    for (let i = 0; i < count; i++) records.push(this.#record(running, running.nextSeqno++, now));
    return records;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
  }

  /** How many records may be returned now. */
  #allowed(running: Running): number {
    const { throughput, recordsPerPoll, maxRecords } = running.config;
    const left =
      maxRecords < 0 ? recordsPerPoll : Math.min(recordsPerPoll, maxRecords - running.nextSeqno);
    if (left <= 0 || throughput === 0) return 0;
    if (throughput < 0) return left;
    // As Apache's ThroughputThrottler: the average since the start stays at `throughput`
    // (the first record is due at once).
    const elapsedMs = Math.max(0, this.#deps.clock.now() - running.startedAt);
    const sent = running.nextSeqno - running.startingSeqno;
    const due = Math.floor((elapsedMs * throughput) / 1000) + 1 - sent;
    return Math.max(0, Math.min(left, due));
  }

  /** How long to wait before records may be due again. */
  #waitMs(running: Running): number {
    const { throughput, maxRecords } = running.config;
    if (throughput <= 0 || (maxRecords >= 0 && running.nextSeqno >= maxRecords)) {
      return MAX_THROTTLE_WAIT_MS;
    }
    const sent = running.nextSeqno - running.startingSeqno;
    const dueAt = running.startedAt + (sent * 1000) / throughput;
    return Math.min(MAX_THROTTLE_WAIT_MS, Math.max(1, Math.ceil(dueAt - this.#deps.clock.now())));
  }

  #record(running: Running, seqno: number, now: number): SourceRecord {
    const { config, sourcePartition } = running;
    return new SourceRecord({
      sourcePartition,
      sourceOffset: { [SEQNO_OFFSET_KEY]: seqno },
      topic: config.topic,
      keySchema: Schemas.INT32,
      key: config.id,
      ...(config.completeRecordData
        ? {
            valueSchema: COMPLETE_VALUE_SCHEMA,
            value: new Struct(COMPLETE_VALUE_SCHEMA)
              .put('name', config.name)
              .put('task', config.id)
              .put('topic', config.topic)
              .put('time_ms', now)
              .put('seqno', seqno),
          }
        : { valueSchema: Schemas.INT64, value: seqno }),
    });
  }
}
