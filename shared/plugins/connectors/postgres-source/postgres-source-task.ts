/**
 * The PostgreSQL source task: reads its tables (or the custom query) batch by batch, resuming
 * after the committed offsets, one query per table and poll (see table-querier.ts).
 */
import {
  type SourcePartition,
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

/** A querier's spec, with every partition its offset may be stored under (newest format first). */
interface Source extends QuerierSpec {
  readonly candidates: readonly SourcePartition[];
}

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

  /** What each querier reads, with the partitions its offset may be stored under. */
  async #sources(
    config: PostgresSourceConfig,
    tables: readonly SourceTable[],
    client: PgClient,
  ): Promise<Source[]> {
    const bulk = config.mode === 'bulk';
    const unresolved: ResolvedColumns = {
      incrementing: config.incrementingColumn,
      timestamps: config.timestampColumns,
      timestampKind: 'timestamptz',
    };
    if (config.query !== null) {
      const columns = bulk ? unresolved : await resolveQueryColumns(client, config.query, config);
      const partition = bulk ? bulkPartition(null) : queryPartition();
      return [
        {
          label: 'query',
          columns: { base: config.query, ...columns },
          topic: config.topicPrefix,
          schemaName: null,
          partition,
          candidates: [partition],
        },
      ];
    }
    const resolved = bulk ? null : await resolveTableColumns(client, tables, config);
    return tables.flatMap((table) => {
      const label = `${table.schema}.${table.table}`;
      const columns = resolved === null ? unresolved : resolved.get(label);
      // Dropped since the connector listed it: nothing to read until the next task configs.
      if (columns === undefined) return [];
      return [
        {
          label,
          columns: { base: `SELECT * FROM ${qualifiedName(table)}`, ...columns },
          topic: config.topicPrefix + table.table,
          schemaName: table.table,
          partition: bulk ? bulkPartition(table) : tablePartition(table),
          candidates: bulk
            ? [bulkPartition(table)]
            : tablePartitionCandidates(table, config.connection.database),
        },
      ];
    });
  }

  /** A querier per source, positioned at its committed offset (one offset read for all). */
  async #queriers(
    config: PostgresSourceConfig,
    tables: readonly SourceTable[],
    client: PgClient,
    context: SourceTaskContext,
  ): Promise<TableQuerier[]> {
    const sources = await this.#sources(config, tables, client);
    const schemas = new RowSchemas({ numericMapping: config.numericMapping, zone: config.zone });
    const stored = await context.offsetStorageReader.offsets(sources.flatMap((s) => s.candidates));
    const queriers: TableQuerier[] = [];
    let next = 0;
    for (const { candidates, ...spec } of sources) {
      // The reader answers in order: this source's candidates are the next ones, newest first.
      const run = stored.slice(next, next + candidates.length);
      next += candidates.length;
      const offset = run.find((s) => s.offset !== null)?.offset ?? null;
      queriers.push(
        config.mode === 'bulk'
          ? new TableQuerier(spec, config, schemas, NO_POSITION, parseBulkOffset(offset))
          : new TableQuerier(
              spec,
              config,
              schemas,
              await this.#initial(client, config, parsePosition(offset)),
            ),
      );
    }
    return queriers;
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
