/**
 * The PostgreSQL sink task: `put` turns records into rows and buffers them per input partition;
 * `preCommit` writes each partition's buffer in one transaction with the partition's offsets row
 * (partition-transaction.ts), so the table holds every record exactly once although batches are
 * redelivered and invocations of one partition may overlap.
 */
import {
  ConfigError,
  IllegalStateError,
  parseTopicPartitionKey,
  type SinkRecord,
  SinkTask,
  type SinkTaskContext,
  type TopicPartition,
  type TopicPartitionOffsets,
  topicPartitionKey,
} from 'serverless-connect/connect';
import { PartitionBuffers } from '../partition-buffers.js';
import type { TableName } from '../postgres/identifiers.js';
import {
  inTransaction,
  type PgPool,
  POOL_MAX,
  type PoolLease,
  type PostgresPools,
  run,
} from '../postgres/pg-client.js';
import { createOffsetsTableStatement } from './offsets-table.js';
import {
  type BufferedRow,
  type PartitionOutcome,
  writePartition,
} from './partition-transaction.js';
import {
  POSTGRES_SINK_VERSION,
  type PostgresSinkConfig,
  parsePostgresSinkConfig,
} from './postgres-sink-config.js';
import { rowOf } from './record-rows.js';
import { tableLockStatement } from './sql.js';
import { TableDdl } from './table-ddl.js';

/** What PostgreSQL sink tasks share in a container (built by the descriptor). */
export interface PostgresSinkDeps {
  readonly pools: PostgresPools;
}

/** A task's counts for one input partition since it started. */
export interface PostgresSinkPartitionCounts {
  written: number;
  skipped: number;
  transactions: number;
}

interface Started {
  readonly connector: string;
  readonly config: PostgresSinkConfig;
  readonly lease: PoolLease;
  readonly ddl: TableDdl;
  readonly context: SinkTaskContext;
}

/** The connector name of a config (Connect puts `name` in every connector and task config). */
export function connectorNameOf(props: Readonly<Record<string, string>>): string {
  const name = props.name;
  if (name === undefined || name.trim() === '') {
    throw new ConfigError(
      'Missing required configuration "name" which has no default value.',
      'name',
    );
  }
  return name;
}

/**
 * Writes records to PostgreSQL tables, exactly once per input partition.
 *
 * @example
 * // connector config: topics=orders, connection.url=jdbc:postgresql://db:5432/shop,
 * // connection.user=sink, connection.password=${secretsmanager:shop:password},
 * // pk.mode=record_key, insert.mode=upsert, auto.create=true → table "orders", one row per key
 */
export class PostgresSinkTask extends SinkTask {
  #started: Started | undefined;
  readonly #buffers = new PartitionBuffers<BufferedRow>();
  #offsetsTableReady = false;
  readonly #counts = new Map<string, PostgresSinkPartitionCounts>();

  constructor(private readonly deps: PostgresSinkDeps) {
    super();
  }

  version(): string {
    return POSTGRES_SINK_VERSION;
  }

  /** Parses the config and takes the container's pool for its connection. No I/O. */
  async start(props: Readonly<Record<string, string>>, context: SinkTaskContext): Promise<void> {
    const config = parsePostgresSinkConfig(props);
    this.#started = {
      connector: connectorNameOf(props),
      config,
      lease: this.deps.pools.acquire(config.connection),
      ddl: new TableDdl(config),
      context,
    };
  }

  /**
   * Buffers each record's row per input partition. A record that cannot be a row goes to the
   * errant record reporter when there is one (else the DataError is thrown). Records at or below
   * a partition's last buffered offset replace the buffer's tail (a retried `put`).
   */
  async put(records: readonly SinkRecord[]): Promise<void> {
    const { config, context } = this.#require();
    for (const record of records) {
      let row: BufferedRow['row'];
      try {
        row = rowOf(config, record);
      } catch (error) {
        const reporter = context.errantRecordReporter;
        if (reporter === null || !(error instanceof Error)) throw error;
        await reporter.report(record, error);
        row = null;
      }
      this.#buffers.add(record, { offset: record.originalKafkaOffset, row });
    }
  }

  /**
   * Writes every partition's buffer, one transaction per partition (as many at once as the pool
   * has connections), each with the partition's offset (also for partitions whose records were
   * all filtered or skipped); every partition has its turn even when one fails. Returns
   * `currentOffsets` once all committed. @throws RetriableError when the batch should be
   * redelivered (nothing of a failed partition is committed).
   */
  override async preCommit(currentOffsets: TopicPartitionOffsets): Promise<TopicPartitionOffsets> {
    const started = this.#require();
    const buffers = this.#buffers.take();
    await this.#ensureOffsetsTable(started);
    const ids = [...new Set([...currentOffsets.keys(), ...buffers.keys()])];
    const env = {
      pool: started.lease.pool,
      offsetsTable: started.config.offsetsTable,
      ddl: started.ddl,
      insertMode: started.config.insertMode,
      batchSize: started.config.batchSize,
    };
    // As many partitions at once as the pool has connections; each is its own transaction.
    const failures: unknown[] = [];
    const pending = [...ids];
    const worker = async () => {
      for (let id = pending.shift(); id !== undefined; id = pending.shift()) {
        const rows = buffers.get(id) ?? [];
        const last = rows[rows.length - 1];
        const next = currentOffsets.get(id) ?? (last === undefined ? undefined : last.offset + 1);
        if (next === undefined) continue;
        const { topic, partition } = parseTopicPartitionKey(id);
        try {
          const key = { connector: started.connector, topic, partition };
          this.#count(id, await writePartition(env, { key, rows, next }));
        } catch (error) {
          failures.push(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(POOL_MAX, ids.length) }, worker));
    if (failures.length > 0) throw failures[0];
    return currentOffsets;
  }

  /** Drops what `partitions` had buffered. */
  override async close(partitions: readonly TopicPartition[]): Promise<void> {
    for (const tp of partitions) this.#buffers.drop(topicPartitionKey(tp));
  }

  /** Gives the pool back (the container's pool ends when no task uses it). */
  async stop(): Promise<void> {
    const started = this.#started;
    this.#started = undefined;
    this.#buffers.clear();
    await started?.lease.release();
  }

  /** Counts per input partition (`topic-partition`) since the task started. */
  counts(): ReadonlyMap<string, Readonly<PostgresSinkPartitionCounts>> {
    return this.#counts;
  }

  #require(): Started {
    if (this.#started === undefined) {
      throw new IllegalStateError('The PostgreSQL sink task must be started before use');
    }
    return this.#started;
  }

  async #ensureOffsetsTable(started: Started): Promise<void> {
    if (this.#offsetsTableReady) return;
    await ensureOffsetsTable(started.lease.pool, started.config.offsetsTable);
    this.#offsetsTableReady = true;
  }

  #count(id: string, outcome: PartitionOutcome): void {
    let counts = this.#counts.get(id);
    if (counts === undefined) {
      counts = { written: 0, skipped: 0, transactions: 0 };
      this.#counts.set(id, counts);
    }
    counts.written += outcome.written;
    counts.skipped += outcome.skipped;
    counts.transactions += 1;
  }
}

/** Creates the offsets table when missing, under its advisory lock (tasks start together). */
export async function ensureOffsetsTable(pool: PgPool, table: TableName): Promise<void> {
  await inTransaction(pool, 'creating the offsets table', async (client) => {
    await run(client, tableLockStatement(table));
    await run(client, createOffsetsTableStatement(table));
  });
}
