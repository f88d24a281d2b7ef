/**
 * A simulated source worker (Kafka Connect's `WorkerSourceTask` and
 * `ExactlyOnceWorkerSourceTask`, reduced to what the checks observe): it runs a task over an
 * in-memory offset store, polls, commits offsets at random points (or where the task asks),
 * stops at random points and starts a new task instance from the committed offsets, until the
 * source runs dry. It records which records a consumer of the output topic would see.
 *
 * - Exactly once: records are visible only once their transaction commits; a stop loses the
 *   open transaction (aborted), and the next instance polls those records again.
 * - At least once: records are visible as soon as they are polled (sent); a stop loses only
 *   the offsets not yet committed, so the next instance repeats some records.
 */
import type {
  RecordMetadata,
  SourceConnector,
  SourceRecord,
  SourceTask,
} from '../connect/index.js';
import { CheckFailure, canonical, describeError, ensure, SeededRandom } from './check.js';
import {
  MemoryOffsetStore,
  RecordingConnectorContext,
  RecordingTransactionContext,
  sourceTaskContext,
} from './contexts.js';
import type { ConnectorConfig, SourceConnectorSubject } from './subjects.js';

export interface SourceRunOptions {
  readonly config: ConnectorConfig;
  readonly exactlyOnce: boolean;
  /** Commit where the task asks through its TransactionContext (`transaction.boundary=connector`). */
  readonly connectorBoundaries: boolean;
  /** Random stops and commit points when a seed is given; none (commit every poll) when null. */
  readonly seed: number | null;
  readonly tasks: number;
}

/** What one run saw: per source partition, the identities a consumer sees, in order. */
export interface SourceRunResult {
  readonly visible: Map<string, string[]>;
  /** Per source partition, records in aborted transactions (dropped, offsets committed). */
  readonly aborted: Map<string, string[]>;
  readonly stops: number;
  readonly boundaryRequests: number;
}

const DEFAULT_MAX_POLLS = 2000;
const DEFAULT_IDLE_POLLS = 3;
/** The most polls an invocation makes before a random stop. */
const MAX_POLLS_PER_INVOCATION = 6;

function metadataOf(record: SourceRecord, offset: number): RecordMetadata {
  return { topic: record.topic, partition: record.kafkaPartition ?? 0, offset, timestamp: null };
}

function push(map: Map<string, string[]>, key: string, id: string): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [id]);
  else list.push(id);
}

/** One task config's run, invocation after invocation, until the source runs dry. */
class TaskRun {
  readonly #subject: SourceConnectorSubject;
  readonly #connector: SourceConnector;
  readonly #taskConfig: ConnectorConfig;
  readonly #options: SourceRunOptions;
  readonly #random: SeededRandom | null;
  readonly #store = new MemoryOffsetStore();
  readonly visible = new Map<string, string[]>();
  readonly aborted = new Map<string, string[]>();
  stops = 0;
  boundaryRequests = 0;
  #polls = 0;
  #sent = 0;

  constructor(
    subject: SourceConnectorSubject,
    connector: SourceConnector,
    taskConfig: ConnectorConfig,
    options: SourceRunOptions,
    random: SeededRandom | null,
  ) {
    this.#subject = subject;
    this.#connector = connector;
    this.#taskConfig = taskConfig;
    this.#options = options;
    this.#random = random;
  }

  async run(): Promise<void> {
    for (;;) {
      const dry = await this.#invocation();
      if (dry) return;
      this.stops++;
    }
  }

  #key(record: SourceRecord): string {
    return record.sourcePartition === null ? 'null' : canonical(record.sourcePartition);
  }

  /** One task instance: start, poll until a random stop or until dry; true when dry. */
  async #invocation(): Promise<boolean> {
    const transactions = this.#options.connectorBoundaries
      ? new RecordingTransactionContext()
      : null;
    const task = this.#connector.createTask();
    await task.start(
      this.#taskConfig,
      sourceTaskContext(this.#taskConfig, this.#store, transactions),
    );
    const budget =
      this.#random === null
        ? Number.POSITIVE_INFINITY
        : this.#random.int(1, MAX_POLLS_PER_INVOCATION);
    const open: SourceRecord[] = [];
    const idleLimit = this.#subject.idlePolls ?? DEFAULT_IDLE_POLLS;
    let idle = 0;
    for (let i = 0; i < budget; i++) {
      const maxPolls = this.#subject.maxPolls ?? DEFAULT_MAX_POLLS;
      ensure(
        ++this.#polls <= maxPolls,
        () => `the source did not run dry within ${maxPolls} polls`,
      );
      const batch = (await task.poll()) ?? [];
      if (batch.length === 0) {
        if (++idle >= idleLimit) {
          // The invocation ends with the source idle: the runtime commits what is open.
          await this.#commit(task, open);
          await task.stop();
          return true;
        }
        continue;
      }
      idle = 0;
      if (!this.#options.exactlyOnce) for (const r of batch) this.#see(r);
      if (transactions !== null)
        await this.#dispatchWithBoundaries(task, batch, open, transactions);
      else {
        open.push(...batch);
        if (this.#random === null || this.#random.chance(0.5)) await this.#commit(task, open);
      }
    }
    // A random stop: half the time the invocation ends normally (what is open commits), half
    // the time it crashes (exactly once: the open transaction aborts; at least once: the
    // records were sent, their offsets are lost).
    if (this.#random?.chance(0.5)) await this.#commit(task, open);
    await task.stop();
    return false;
  }

  #see(record: SourceRecord): void {
    push(this.visible, this.#key(record), this.#subject.identity(record));
  }

  /** Splits the batch where the task asked for a boundary (Connect's connector-defined boundaries). */
  async #dispatchWithBoundaries(
    task: SourceTask,
    batch: readonly SourceRecord[],
    open: SourceRecord[],
    transactions: RecordingTransactionContext,
  ): Promise<void> {
    const requests = transactions.take();
    this.boundaryRequests += requests.length;
    const byRecord = new Map<SourceRecord, 'commit' | 'abort'>();
    let batchEnd: 'commit' | 'abort' | null = null;
    for (const { kind, record } of requests) {
      if (record === undefined) {
        ensure(
          batchEnd === null || batchEnd === kind,
          () => 'the task asked to commit and abort the same batch',
        );
        batchEnd = kind;
      } else if (batch.includes(record)) {
        ensure(
          (byRecord.get(record) ?? kind) === kind,
          () =>
            `the task asked to commit and abort the transaction at the same record (${this.#subject.identity(record)})`,
        );
        byRecord.set(record, kind);
      }
      // A request naming a record that is not of this batch is ignored, as Connect does.
    }
    for (const record of batch) {
      open.push(record);
      const kind = byRecord.get(record);
      if (kind === 'commit') await this.#commit(task, open);
      else if (kind === 'abort') this.#abort(open);
    }
    if (batchEnd === 'commit') await this.#commit(task, open);
    else if (batchEnd === 'abort') this.#abort(open);
  }

  /** Commits the open records' offsets; under exactly once they become visible now. */
  async #commit(task: SourceTask, open: SourceRecord[]): Promise<void> {
    if (open.length === 0) return;
    const records = open.splice(0);
    for (const record of records) {
      if (this.#options.exactlyOnce) this.#see(record);
      if (record.sourcePartition !== null)
        this.#store.put(record.sourcePartition, record.sourceOffset);
    }
    try {
      for (const record of records)
        await task.commitRecord(record, metadataOf(record, this.#sent++));
      await task.commit();
    } catch (error) {
      throw new CheckFailure(`commitRecord/commit threw: ${describeError(error)}`, {
        cause: error,
      });
    }
  }

  /** Aborts the open transaction: its records are dropped, their offsets still committed. */
  #abort(open: SourceRecord[]): void {
    for (const record of open.splice(0)) {
      push(this.aborted, this.#key(record), this.#subject.identity(record));
      if (record.sourcePartition !== null)
        this.#store.put(record.sourcePartition, record.sourceOffset);
    }
  }
}

/**
 * Runs every task of the connector (started with `options.config`, asked for
 * `options.tasks` task configs) until its source runs dry. Fails when two tasks read the same
 * source partition.
 */
export async function runSource(
  subject: SourceConnectorSubject,
  connector: SourceConnector,
  options: SourceRunOptions,
): Promise<SourceRunResult> {
  await connector.start(options.config, new RecordingConnectorContext());
  const taskConfigs = await connector.taskConfigs(options.tasks);
  const random = options.seed === null ? null : new SeededRandom(options.seed);
  const result: SourceRunResult = {
    visible: new Map(),
    aborted: new Map(),
    stops: 0,
    boundaryRequests: 0,
  };
  const owner = new Map<string, number>();
  let stops = 0;
  let requests = 0;
  for (const [i, taskConfig] of taskConfigs.entries()) {
    const run = new TaskRun(subject, connector, taskConfig, options, random);
    await run.run();
    stops += run.stops;
    requests += run.boundaryRequests;
    for (const key of [...run.visible.keys(), ...run.aborted.keys()]) {
      const first = owner.get(key);
      ensure(
        first === undefined || first === i,
        () => `tasks ${first} and ${i} both read source partition ${key}`,
      );
      owner.set(key, i);
    }
    for (const [key, ids] of run.visible) result.visible.set(key, ids);
    for (const [key, ids] of run.aborted) result.aborted.set(key, ids);
  }
  await connector.stop();
  return { ...result, stops, boundaryRequests: requests };
}

/**
 * Compares a run's visible records with the reference run's, per source partition. With
 * `repeats` (at least once), a record may appear again; without, every record appears once.
 * Either way none may be missing, and first appearances keep the reference order.
 */
export function compareRuns(
  reference: SourceRunResult,
  actual: SourceRunResult,
  repeats: boolean,
): void {
  const keys = new Set([...reference.visible.keys(), ...actual.visible.keys()]);
  let total = 0;
  for (const key of keys) {
    const expected = reference.visible.get(key) ?? [];
    const seen = actual.visible.get(key) ?? [];
    total += expected.length;
    const firsts: string[] = [];
    const counted = new Set<string>();
    for (const [i, id] of seen.entries()) {
      if (counted.has(id)) {
        ensure(repeats, () => `source partition ${key}: record ${id} repeated (at position ${i})`);
        continue;
      }
      counted.add(id);
      firsts.push(id);
    }
    for (const [i, id] of expected.entries()) {
      ensure(firsts[i] === id, () =>
        counted.has(id)
          ? `source partition ${key}: record ${id} delivered out of order (expected at position ${i}, found ${firsts[i]} there)`
          : `source partition ${key}: gap, record ${id} (position ${i}) was never delivered; ${firsts[i] ?? 'nothing'} came instead`,
      );
    }
    ensure(
      firsts.length === expected.length,
      () =>
        `source partition ${key}: ${firsts.length - expected.length} records not in an uninterrupted run (first: ${firsts[expected.length]})`,
    );
    const abortedRef = canonical(reference.aborted.get(key) ?? []);
    const abortedNow = canonical(actual.aborted.get(key) ?? []);
    ensure(
      repeats || abortedRef === abortedNow,
      () =>
        `source partition ${key}: aborted ${abortedNow}, an uninterrupted run aborted ${abortedRef}`,
    );
  }
  ensure(
    total > 0,
    () => 'the uninterrupted run delivered no record: the subject’s world has no data',
  );
}
