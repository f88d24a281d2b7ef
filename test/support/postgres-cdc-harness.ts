/**
 * Runs the PostgreSQL CDC source task as the source runtime would, in a test: a context whose
 * offset reader returns what the test "committed", polls collected until a condition holds, and
 * a commit step that stores the records' offsets, reports them (`commitRecord`) and calls
 * `commit()` (what the runtime does once a Kafka transaction committed). A crash is a task
 * stopped without that step.
 */
import pg from 'pg';
import { inject } from 'vitest';
import type { SourceTaskContext } from '../../shared/connect/context.js';
import type { SourceOffset, SourcePartition, SourceRecord } from '../../shared/connect/records.js';
import { Struct } from '../../shared/connect/struct.js';
import { systemPostgresCdcDeps } from '../../shared/plugins/connectors/postgres-cdc/descriptor.js';
import { PostgresCdcSourceConnector } from '../../shared/plugins/connectors/postgres-cdc/postgres-cdc-source-connector.js';
import type { PostgresCdcSourceTask } from '../../shared/plugins/connectors/postgres-cdc/postgres-cdc-source-task.js';
import { dropSlot } from './postgres-slots.js';
import { uniqueName } from './services.js';

export const connector = new PostgresCdcSourceConnector(systemPostgresCdcDeps());

/** Names of one test's own objects (slot names allow lower-case letters, digits and _). */
export function cdcNames(prefix = 'cdc') {
  const id = uniqueName(prefix).replaceAll('-', '_').toLowerCase();
  return { table: `${id}_t`, slot: `${id}_s`, publication: `${id}_p`, prefix: id };
}

/** A Debezium-style config for the test server. */
export function cdcConfig(props: Record<string, string>): Record<string, string> {
  const url = new URL(inject('postgresUrl'));
  return {
    name: uniqueName('pg-cdc'),
    'database.hostname': url.hostname,
    'database.port': url.port,
    'database.dbname': url.pathname.slice(1),
    'database.user': decodeURIComponent(url.username),
    'database.password': decodeURIComponent(url.password),
    'publication.autocreate.mode': 'filtered',
    'poll.interval.ms': '100',
    ...props,
  };
}

export class CdcHarness {
  /** Committed offsets by partition (JSON), as the runtime's store holds them. */
  readonly committed = new Map<string, SourceOffset>();
  readonly gauges: Record<string, number> = {};

  context(props: Readonly<Record<string, string>>): SourceTaskContext {
    return {
      configs: () => props,
      offsetStorageReader: {
        offset: async (partition) => this.committed.get(JSON.stringify(partition)) ?? null,
        offsets: async (partitions) =>
          partitions.flatMap((partition) => {
            const offset = this.committed.get(JSON.stringify(partition));
            return offset === undefined ? [] : [{ partition, offset }];
          }),
      },
      transactionContext: null,
      pluginMetrics: () => ({
        gauge: (name, value) => {
          this.gauges[name] = value;
        },
      }),
    };
  }

  async open(props: Record<string, string>): Promise<PostgresCdcSourceTask> {
    const task = connector.createTask();
    await task.start(props, this.context(props));
    return task;
  }

  /** Polls until `done(all records so far)` or `timeoutMs`; returns them. */
  async pollUntil(
    task: PostgresCdcSourceTask,
    done: (records: SourceRecord[]) => boolean,
    timeoutMs = 20_000,
  ): Promise<SourceRecord[]> {
    const records: SourceRecord[] = [];
    const deadline = Date.now() + timeoutMs;
    while (!done(records)) {
      if (Date.now() > deadline) {
        throw new Error(
          `timed out after ${records.length} records: ${records.map(describe).join(' ')}`,
        );
      }
      records.push(...((await task.poll()) ?? []));
    }
    return records;
  }

  /** What the runtime does after a Kafka transaction with `records` committed. */
  async commit(task: PostgresCdcSourceTask, records: readonly SourceRecord[]): Promise<void> {
    for (const record of records) {
      this.committed.set(JSON.stringify(record.sourcePartition), record.sourceOffset ?? {});
      await task.commitRecord(record, null);
    }
    await task.commit();
  }

  offsetOf(partition: SourcePartition): SourceOffset | undefined {
    return this.committed.get(JSON.stringify(partition));
  }
}

/** `op:key` of a change record (`tombstone:key`, `heartbeat`), for assertions and messages. */
export function describe(record: SourceRecord): string {
  if (record.topic.startsWith('__debezium-heartbeat')) return 'heartbeat';
  const key = record.key instanceof Struct ? JSON.stringify(plain(record.key)) : 'null';
  if (record.value === null) return `tombstone:${key}`;
  return `${(record.value as Struct).get('op')}:${key}`;
}

/** A Struct as a plain object (nested structs too; bigints as strings). */
export function plain(value: unknown): unknown {
  if (value instanceof Struct) {
    return Object.fromEntries(value.schema.fields.map((f) => [f.name, plain(value.get(f.name))]));
  }
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

/** A connection to the test server. */
export async function adminClient(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: inject('postgresUrl') });
  await client.connect();
  return client;
}

/** Drops a test's slot (it holds WAL), publication and tables. */
export async function dropCdcObjects(
  db: pg.Client,
  names: {
    slot?: string;
    slots?: string[];
    publication?: string;
    publications?: string[];
    tables?: string[];
  },
): Promise<void> {
  for (const slot of [...(names.slots ?? []), ...(names.slot === undefined ? [] : [names.slot])]) {
    await dropSlot(db, slot).catch(() => undefined);
  }
  for (const publication of [
    ...(names.publications ?? []),
    ...(names.publication === undefined ? [] : [names.publication]),
  ]) {
    await db.query(`DROP PUBLICATION IF EXISTS "${publication}"`);
  }
  for (const table of names.tables ?? []) await db.query(`DROP TABLE IF EXISTS "${table}" CASCADE`);
}
