/**
 * The PostgreSQL source task: reads its tables (or the custom query) batch by batch, resuming
 * after the committed offsets, one query per table and poll (see table-querier.ts).
 */
import {
  type SourceOffset,
  type SourceRecord,
  SourceTask,
  type SourceTaskContext,
} from 'serverless-connect/connect';
import { qualifiedName } from '../postgres/identifiers.js';
import {
  type PgClient,
  type PoolLease,
  type PostgresPools,
  toConnectError,
} from '../postgres/pg-client.js';
import type { CriteriaColumns } from './criteria.js';
import { parseTimestamp } from './pg-time.js';
import {
  POSTGRES_SOURCE_VERSION,
  type PostgresSourceConfig,
  parsePostgresSourceConfig,
  TIMESTAMP_INITIAL_CURRENT,
} from './postgres-source-config.js';
import { RowSchemas, textQuery } from './row-schemas.js';
import {
  bulkPartition,
  NO_POSITION,
  type Position,
  parseBulkOffset,
  parsePosition,
  queryPartition,
  type SourceTable,
  tablePartition,
  tablePartitionCandidates,
} from './source-offsets.js';
import { type ResolvedColumns, resolveQueryColumns, resolveTableColumns } from './table-columns.js';
import { decodeTables, TABLES_TASK_CONFIG } from './table-discovery.js';
import { type QuerierSpec, TableQuerier } from './table-querier.js';

/** The time source (structurally the runtime's `Clock`). */
export interface PostgresSourceClock {
  now(): number;
}

/** What the connector and its tasks are built from. */
export interface PostgresSourceDeps {
  readonly pools: PostgresPools;
  readonly clock: PostgresSourceClock;
}

/** The longest a poll waits for a table to be due before it returns null. */
const MAX_POLL_WAIT_MS = 1000;
/** How long a table that no longer exists is left alone (until the connector drops it). */
const MISSING_TABLE_RETRY_MS = 30_000;
const UNDEFINED_TABLE = '42P01';

interface Running {
  readonly config: PostgresSourceConfig;
  readonly lease: PoolLease;
  readonly queriers: readonly TableQuerier[];
  readonly tableMode: boolean;
}

async function databaseNow(client: PgClient, config: PostgresSourceConfig): Promise<bigint> {
  const { rows } = await textQuery(client, { text: 'SELECT CURRENT_TIMESTAMP', values: [] });
  return parseTimestamp(rows[0]?.[0] ?? '', config.zone);
}

/**
 * Records: value a struct of the row's columns (named after the table; unnamed for a query),
 * no key, topic `topic.prefix` + table name (the prefix alone for a query); partitions and
 * offsets as Confluent's JDBC source stores them (source-offsets.ts). `poll` returns one
 * table's batch, or `null` after waiting at most about a second for a table to be due.
 */
export class PostgresSourceTask extends SourceTask {
  readonly #deps: PostgresSourceDeps;
  #running: Running | null = null;
  #stopped = false;
  #wake: (() => void) | null = null;
  readonly #stop: { promise: Promise<void>; resolve: () => void };

  constructor(deps: PostgresSourceDeps) {
    super();
    this.#deps = deps;
    let resolve = () => {};
    const promise = new Promise<void>((r) => {
      resolve = r;
    });
    this.#stop = { promise, resolve };
  }

  version(): string {
    return POSTGRES_SOURCE_VERSION;
  }

  /**
   * Parses the config, reads the committed offsets (each table's under every partition format
   * Confluent used, newest first) and, for the incremental modes, checks the criteria columns.
   * @throws ConfigError for a bad config or a missing or nullable column; a ConnectError
   *   (retriable when the connection failed) when the database cannot be read.
   */
  async start(props: Readonly<Record<string, string>>, context: SourceTaskContext): Promise<void> {
    const config = parsePostgresSourceConfig(props);
    const tables = config.query === null ? decodeTables(props[TABLES_TASK_CONFIG] ?? '') : [];
    const lease = this.#deps.pools.acquire(config.connection);
    try {
      let client: PgClient;
      try {
        client = await lease.pool.connect();
      } catch (error) {
        throw toConnectError(error, `connecting to ${config.connection.host}`);
      }
      let failed = false;
      try {
        const queriers = await this.#queriers(config, tables, client, context);
        this.#running = { config, lease, queriers, tableMode: config.query === null };
      } catch (error) {
        failed = true;
        throw toConnectError(error, 'starting the task');
      } finally {
        client.release(failed ? true : undefined);
      }
    } catch (error) {
      await lease.release();
      throw error;
    }
  }

  async #queriers(
    config: PostgresSourceConfig,
    tables: readonly SourceTable[],
    client: PgClient,
    context: SourceTaskContext,
  ): Promise<TableQuerier[]> {
    const schemas = new RowSchemas({ numericMapping: config.numericMapping, zone: config.zone });
    const settings = { ...config };
    const bulk = config.mode === 'bulk';
    const reader = context.offsetStorageReader;
    const query = config.query;
    const unresolved: ResolvedColumns = {
      incrementing: config.incrementingColumn,
      timestamps: config.timestampColumns,
      timestampKind: 'timestamptz',
    };
    if (query !== null) {
      const columns = bulk ? unresolved : await resolveQueryColumns(client, query, config);
      const spec = this.#spec('query', { base: query, ...columns }, config.topicPrefix, null);
      const partition = bulk ? bulkPartition(null) : queryPartition();
      const offset = await reader.offset(partition);
      if (bulk)
        return [
          new TableQuerier(
            { ...spec, partition },
            settings,
            schemas,
            NO_POSITION,
            parseBulkOffset(offset),
          ),
        ];
      const position = await this.#initial(client, config, parsePosition(offset));
      return [new TableQuerier({ ...spec, partition }, settings, schemas, position)];
    }
    const resolved = bulk
      ? new Map<string, ResolvedColumns>()
      : await resolveTableColumns(client, tables, config);
    const candidates = tables.map((t) =>
      bulk ? [bulkPartition(t)] : tablePartitionCandidates(t, config.connection.database),
    );
    // One read for every table; the reader answers in order, so each table's come in a run.
    const stored = await reader.offsets(candidates.flat());
    let cursor = 0;
    const offsetOf = (count: number): SourceOffset | null => {
      const run = stored.slice(cursor, cursor + count);
      cursor += count;
      return run.find((s) => s.offset !== null)?.offset ?? null;
    };
    const queriers: TableQuerier[] = [];
    for (const [i, table] of tables.entries()) {
      const columns = bulk ? unresolved : resolved.get(`${table.schema}.${table.table}`);
      const count = candidates[i]?.length ?? 0;
      // Dropped since the connector listed it: nothing to read until the next task configs.
      if (columns === undefined) {
        offsetOf(count);
        continue;
      }
      const base = `SELECT * FROM ${qualifiedName(table)}`;
      const spec = this.#spec(
        `${table.schema}.${table.table}`,
        { base, ...columns },
        config.topicPrefix + table.table,
        table.table,
      );
      const offset = offsetOf(count);
      if (bulk) {
        const partition = bulkPartition(table);
        queriers.push(
          new TableQuerier(
            { ...spec, partition },
            settings,
            schemas,
            NO_POSITION,
            parseBulkOffset(offset),
          ),
        );
      } else {
        const position = await this.#initial(client, config, parsePosition(offset));
        queriers.push(
          new TableQuerier(
            { ...spec, partition: tablePartition(table) },
            settings,
            schemas,
            position,
          ),
        );
      }
    }
    return queriers;
  }

  #spec(label: string, columns: CriteriaColumns, topic: string, schemaName: string | null) {
    return { label, columns, topic, schemaName } satisfies Omit<QuerierSpec, 'partition'>;
  }

  /** `timestamp.initial` where no offset is stored (timestamp modes). */
  async #initial(
    client: PgClient,
    config: PostgresSourceConfig,
    position: Position,
  ): Promise<Position> {
    if (
      config.timestampInitial === null ||
      config.timestampColumns.length === 0 ||
      config.mode === 'incrementing' ||
      position.timestamp !== null ||
      position.incrementing !== null
    ) {
      return position;
    }
    const timestamp =
      config.timestampInitial === TIMESTAMP_INITIAL_CURRENT
        ? await databaseNow(client, config)
        : BigInt(config.timestampInitial) * 1000n;
    return { timestamp, incrementing: null };
  }

  /**
   * The next due table's batch. Each due table is queried at most once per poll; when none is
   * due, waits for the next one up to about a second, then resolves `null`. `stop()` makes a
   * pending poll resolve `null` at once.
   */
  async poll(): Promise<SourceRecord[] | null> {
    const running = this.#running;
    if (running === null) return null;
    const { clock } = this.#deps;
    const started = clock.now();
    const ran = new Set<TableQuerier>();
    while (!this.#stopped) {
      const now = clock.now();
      const next = running.queriers
        .filter((q) => !ran.has(q))
        .reduce<TableQuerier | null>(
          (a, q) => (a === null || q.nextDueAt < a.nextDueAt ? q : a),
          null,
        );
      if (next === null) return null;
      if (next.nextDueAt > now) {
        const wait = Math.min(next.nextDueAt - now, started + MAX_POLL_WAIT_MS - now);
        if (wait <= 0) return null;
        await this.#sleep(wait);
        continue;
      }
      ran.add(next);
      const work = this.#read(running, next, now);
      work.catch(() => undefined);
      const records = await Promise.race([work, this.#stop.promise.then(() => null)]);
      if (records === null) return null;
      if (records.length > 0) return records;
    }
    return null;
  }

  async #read(running: Running, querier: TableQuerier, now: number): Promise<SourceRecord[]> {
    const { config, lease } = running;
    let client: PgClient;
    try {
      client = await lease.pool.connect();
    } catch (error) {
      throw toConnectError(error, `connecting to ${config.connection.host}`);
    }
    let discard = false;
    try {
      let time: bigint | undefined;
      return await querier.poll(client, now, async () => {
        time ??= await databaseNow(client, config);
        return time;
      });
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (running.tableMode && code === UNDEFINED_TABLE) {
        // Dropped since the connector listed it: left alone until the next task configs.
        querier.nextDueAt = now + Math.max(config.pollIntervalMs, MISSING_TABLE_RETRY_MS);
        return [];
      }
      discard = typeof code !== 'string';
      throw toConnectError(error, `reading ${querier.spec.label}`);
    } finally {
      client.release(discard ? true : undefined);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }

  /** Ends a pending poll (it resolves `null`) and gives the pool back. Idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    this.#stop.resolve();
    const running = this.#running;
    this.#running = null;
    await running?.lease.release();
  }
}
