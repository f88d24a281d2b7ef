/**
 * The DynamoDB sink task: writes each batch of records as conditional single-item writes, so
 * that redelivery (at least once, with any batch boundaries), crashes between the writes and
 * the offset commit, and briefly overlapping invocations of a partition all converge to the
 * table one clean pass would leave.
 */
import {
  DataError,
  type ErrantRecordReporter,
  IllegalStateError,
  type SinkRecord,
  SinkTask,
  type SinkTaskContext,
} from 'serverless-connect/connect';
import {
  DYNAMODB_SINK_VERSION,
  type DynamoDbSinkConfig,
  parseDynamoDbSinkConfig,
  tableNameFor,
} from './dynamodb-sink-config.js';
import { checkKeyMapping, type RecordWrite, recordWrite } from './record-writes.js';
import { createDynamoDbSinkClient } from './sdk-sink-client.js';
import type { DynamoDbSinkClient, TableKeySchema } from './sink-client.js';
import { fatalError, type RetryPolicy, withRetries } from './write-errors.js';
import {
  type DynamoDbSinkStats,
  emptyStats,
  executeWrites,
  reportOrThrow,
} from './write-executor.js';

/** The time source (structurally the runtime's `Clock`): epoch milliseconds. */
export interface DynamoDbSinkClock {
  now(): number;
}

/** What the DynamoDB sink connector and task are built from. */
export interface DynamoDbSinkDeps {
  /** Dates tombstone markers (their TTL attribute). */
  readonly clock: DynamoDbSinkClock;
  /** Waits between retries. */
  readonly sleep: (ms: number) => Promise<void>;
  /** Uniform in [0, 1), for backoff jitter. */
  readonly random: () => number;
  /**
   * Builds the client of a config (destroyed by the task on `stop`).
   * @default createDynamoDbSinkClient (the AWS SDK)
   */
  readonly createClient?: (config: DynamoDbSinkConfig) => DynamoDbSinkClient;
}

interface Running {
  readonly config: DynamoDbSinkConfig;
  readonly client: DynamoDbSinkClient;
  readonly reporter: ErrantRecordReporter | null;
  readonly retry: RetryPolicy;
}

/**
 * Writes records to DynamoDB items, one item per key.
 *
 * - Items: the record value (a struct or map; see `attribute-value.ts` for the types) plus the
 *   key attributes (from the record key or value, `pk.mode` / `pk.fields`) plus the reserved
 *   attributes `<prefix>topic`, `<prefix>partition`, `<prefix>offset`: the coordinates the
 *   record was consumed at (before transformations). The table is `table.name.format` of the
 *   record's (possibly transformed) topic; its key attributes come from DescribeTable, once per
 *   table per task.
 * - Idempotence: every write is conditional (see `WriteGuard`): it applies unless the stored
 *   item holds the same topic and partition with an offset at or above the record's. A failed
 *   condition counts as `stale` (already applied or superseded), not as an error.
 * - Keys written from several topic-partitions: only writes of the same topic-partition are
 *   ordered against each other; a write from another partition always applies (last writer
 *   wins). Kafka orders nothing across partitions, so keep each key in one partition (the
 *   default partitioner does) for replays to converge.
 * - Tombstones (null value): with `delete.enabled` (default), `delete.mode=tombstone` (default)
 *   replaces the item with a marker (key, coordinates, `<prefix>deleted` = true, optional TTL
 *   attribute) that guards the key like any item, so no replayed or overlapping older record
 *   can resurrect it; readers must skip markers. `delete.mode=delete` deletes the item under
 *   the same condition: a replay starts at the committed offset and replays the delete after
 *   any older record it replays, so replays converge, but an overlapping invocation still
 *   writing an older record after the delete brings the item back until its key is written
 *   again. Without `delete.enabled`, tombstones are skipped.
 * - Batches: the records of one item within a `put` collapse to the latest (see
 *   `write-executor.ts`); items are written with up to `batch.size` conditional writes in
 *   flight. Throttling, 5xx and network errors are retried (`max.retries`, `retry.backoff.ms`),
 *   then `put` rejects with RetriableError; records DynamoDB rejects (ValidationException) and
 *   records that cannot become items go to the errant record reporter, or fail the batch with
 *   DataError when there is none; a missing table fails with ConnectError.
 * - Everything is written when `put` resolves: `preCommit` returns the offsets as given.
 *
 * @example
 * const task = new DynamoDbSinkTask(deps);
 * await task.start({ 'table.name.format': 'orders', 'aws.dynamodb.region': 'eu-west-1' }, ctx);
 * await task.put(records);
 */
export class DynamoDbSinkTask extends SinkTask {
  readonly #deps: DynamoDbSinkDeps;
  #running: Running | null = null;
  readonly #tables = new Map<string, Promise<TableKeySchema>>();
  readonly #stats = emptyStats();

  constructor(deps: DynamoDbSinkDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return DYNAMODB_SINK_VERSION;
  }

  /** Parses the config (ConfigError when invalid) and builds the client. No I/O. */
  async start(props: Readonly<Record<string, string>>, context: SinkTaskContext): Promise<void> {
    const config = parseDynamoDbSinkConfig(props);
    const client = (this.#deps.createClient ?? createDynamoDbSinkClient)(config);
    this.#running = {
      config,
      client,
      reporter: context.errantRecordReporter,
      retry: {
        maxRetries: config.maxRetries,
        backoffMs: config.retryBackoffMs,
        sleep: this.#deps.sleep,
        random: this.#deps.random,
      },
    };
  }

  /** Writes `records`; see the class documentation for what each failure does. */
  async put(records: readonly SinkRecord[]): Promise<void> {
    const running = this.#running;
    if (running === null) throw new IllegalStateError('The DynamoDB sink task is not started');
    const { config } = running;
    const live = records.filter((r) => {
      const skipped = (r.value === null || r.value === undefined) && !config.deleteEnabled;
      if (skipped) this.#stats.tombstonesSkipped += 1;
      return !skipped;
    });
    const tables = await this.#describeAll(
      running,
      live.map((r) => tableNameFor(config, r.topic)),
    );
    const report = (record: SinkRecord, error: DataError) =>
      reportOrThrow(running.reporter, record, error);
    const writes: RecordWrite[] = [];
    const now = this.#deps.clock.now();
    for (const record of live) {
      const schema = tables.get(tableNameFor(config, record.topic)) as TableKeySchema;
      try {
        writes.push(recordWrite(record, config, schema, now));
      } catch (error) {
        if (!(error instanceof DataError)) throw error;
        await report(record, error);
        this.#stats.reported += 1;
      }
    }
    await executeWrites(writes, {
      client: running.client,
      retry: running.retry,
      concurrency: config.batchSize,
      report,
      stats: this.#stats,
    });
  }

  /** What `put` did since `start` (for logs and tests). */
  stats(): Readonly<DynamoDbSinkStats> {
    return { ...this.#stats };
  }

  async stop(): Promise<void> {
    this.#running?.client.destroy();
    this.#running = null;
    this.#tables.clear();
  }

  /** The key schemas of `names`, described in parallel, each once per task. */
  async #describeAll(
    running: Running,
    names: readonly string[],
  ): Promise<Map<string, TableKeySchema>> {
    const distinct = [...new Set(names)];
    const schemas = await Promise.all(distinct.map((name) => this.#describe(running, name)));
    return new Map(distinct.map((name, i) => [name, schemas[i] as TableKeySchema]));
  }

  #describe(running: Running, table: string): Promise<TableKeySchema> {
    const cached = this.#tables.get(table);
    if (cached !== undefined) return cached;
    const what = `Describing DynamoDB table ${table}`;
    const described = withRetries(what, running.retry, () => running.client.describeTable(table))
      .catch((error: unknown) => {
        throw fatalError(table, what, error);
      })
      .then((schema) => {
        checkKeyMapping(running.config, schema);
        return schema;
      });
    described.catch(() => this.#tables.delete(table));
    this.#tables.set(table, described);
    return described;
  }
}
