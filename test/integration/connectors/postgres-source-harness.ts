/**
 * What the PostgreSQL source's integration tests share: a connector over real pools, configs
 * for the test server, and a task run that polls until the source is dry, committing each
 * poll's offsets to an in-memory offset store as the runtime does.
 */
import pg from 'pg';
import { inject } from 'vitest';
import type { SourceRecord, Struct } from '../../../shared/connect/index.js';
import { PostgresPools } from '../../../shared/plugins/connectors/postgres/pg-client.js';
import { pgPoolOf } from '../../../shared/plugins/connectors/postgres/pg-pool.js';
import { PostgresSourceConnector } from '../../../shared/plugins/connectors/postgres-source/postgres-source-connector.js';
import type { PostgresSourceDeps } from '../../../shared/plugins/connectors/postgres-source/postgres-source-task.js';
import {
  MemoryOffsetStore,
  RecordingConnectorContext,
  sourceTaskContext,
} from '../../../shared/testkit/contexts.js';
import { uniqueName } from '../../support/services.js';

export { MemoryOffsetStore, RecordingConnectorContext };

/** A name usable unquoted in SQL: lower case, underscores. */
export function sqlName(prefix: string): string {
  return uniqueName(prefix).replaceAll('-', '_').toLowerCase();
}

/** A connection to the test server for the tests' own SQL. */
export async function connectDb(): Promise<pg.Client> {
  const db = new pg.Client({ connectionString: inject('postgresUrl') });
  await db.connect();
  return db;
}

/** The connection keys of the test server, the URL in JDBC form. */
export function connectionProps(): Record<string, string> {
  const url = new URL(inject('postgresUrl'));
  return {
    'connection.url': `jdbc:postgresql://${url.host}${url.pathname}`,
    'connection.user': decodeURIComponent(url.username),
    'connection.password': decodeURIComponent(url.password),
  };
}

/** A source config: the connection, a short poll interval, and `props`. */
export function sourceConfig(props: Record<string, string>): Record<string, string> {
  return {
    name: uniqueName('pg-source'),
    ...connectionProps(),
    'poll.interval.ms': '20',
    'table.poll.interval.ms': '0',
    ...props,
  };
}

export const testDeps = (): PostgresSourceDeps => ({
  pools: new PostgresPools(pgPoolOf),
  clock: { now: () => Date.now() },
});

/** The task configs of a connector started with `props`. */
export async function taskConfigsOf(
  props: Record<string, string>,
  maxTasks = 1,
  deps: PostgresSourceDeps = testDeps(),
): Promise<Record<string, string>[]> {
  const connector = new PostgresSourceConnector(deps);
  await connector.start(props, new RecordingConnectorContext());
  try {
    return await connector.taskConfigs(maxTasks);
  } finally {
    await connector.stop();
  }
}

export interface DrainOptions {
  /** Stop and restart the task after every this many non-empty polls (a crash after commit). */
  readonly restartEvery?: number;
  /** Empty polls in a row that mean dry. @default 2 */
  readonly idlePolls?: number;
  /** Stop once this many records were read (a source that never runs dry, as bulk's). */
  readonly limit?: number;
  readonly deps?: PostgresSourceDeps;
}

/**
 * Runs task(s) of `taskConfig` until dry, committing each poll's offsets to `store` (the latest
 * offset of each partition), and returns every record in order.
 */
export async function drain(
  taskConfig: Record<string, string>,
  store: MemoryOffsetStore,
  options: DrainOptions = {},
): Promise<SourceRecord[]> {
  const connector = new PostgresSourceConnector(options.deps ?? testDeps());
  const records: SourceRecord[] = [];
  const idleLimit = options.idlePolls ?? 2;
  for (let instance = 0; instance < 1000; instance++) {
    const task = connector.createTask();
    await task.start(taskConfig, sourceTaskContext(taskConfig, store));
    let idle = 0;
    let polls = 0;
    try {
      while (idle < idleLimit) {
        const batch = (await task.poll()) ?? [];
        if (batch.length === 0) {
          idle += 1;
          continue;
        }
        idle = 0;
        polls += 1;
        records.push(...batch);
        for (const r of batch) {
          if (r.sourcePartition !== null && r.sourceOffset !== null) {
            store.put(r.sourcePartition, r.sourceOffset);
          }
        }
        if (options.limit !== undefined && records.length >= options.limit) return records;
        if (options.restartEvery !== undefined && polls >= options.restartEvery) break;
      }
    } finally {
      await task.stop();
    }
    if (idle >= idleLimit) return records;
  }
  throw new Error('the source never ran dry');
}

/** A field of a record's struct value. */
export function field(record: SourceRecord, name: string): unknown {
  return (record.value as Struct).get(name);
}
