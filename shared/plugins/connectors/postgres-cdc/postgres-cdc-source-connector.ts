/**
 * The PostgreSQL CDC source connector: Debezium's PostgreSQL connector (pgoutput) as a
 * serverless-connect plugin, exactly once. Keys in cdc-config.ts, what a task does in
 * postgres-cdc-source-task.ts, offsets in cdc-offsets.ts.
 */
import {
  type ConfigDef,
  ConfigError,
  type ConfigValue,
  ConnectError,
  type ConnectorContext,
  type ConnectorTransactionBoundaries,
  type ExactlyOnceSupport,
  IllegalStateError,
  SourceConnector,
  type SourcePartitionOffset,
} from 'serverless-connect/connect';
import { dropOwnPublication, dropSlot, slotInfo } from './catalog.js';
import { parsePostgresCdcConfig, postgresCdcTaskConfigs } from './cdc-config.js';
import { POSTGRES_CDC_CONFIG_DEF, POSTGRES_CDC_VERSION } from './cdc-config-def.js';
import { parseCdcOffset, parseCdcPartition } from './cdc-offsets.js';
import { formatLsn } from './lsn.js';
import { type PostgresCdcDeps, PostgresCdcSourceTask } from './postgres-cdc-source-task.js';
import { connectQueryClient } from './replication-stream.js';

/**
 * Splits the captured tables over `tasks.max` tasks by a hash of `schema.table` (each task
 * finds its own tables, so the task configs never change as tables come and go); with more than
 * one task, task i streams slot `<slot.name>_<i>` and publication `<publication.name>_<i>`.
 *
 * @example
 * const connector = new PostgresCdcSourceConnector(deps);
 * await connector.start({ 'database.hostname': 'db', 'database.dbname': 'shop',
 *   'database.user': 'cdc', 'database.password': '${secretsmanager:shop:password}',
 *   'topic.prefix': 'shop', 'table.include.list': 'public.orders' }, ctx);
 * await connector.taskConfigs(1);
 */
export class PostgresCdcSourceConnector extends SourceConnector {
  readonly #deps: PostgresCdcDeps;
  #props: Readonly<Record<string, string>> | null = null;

  constructor(deps: PostgresCdcDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return POSTGRES_CDC_VERSION;
  }

  config(): ConfigDef {
    return POSTGRES_CDC_CONFIG_DEF;
  }

  /** Validates every key, then the cross-key rules, reported on the offending key. */
  override validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    const values = super.validate(props);
    if (values.some((v) => v.errors.length > 0)) return values;
    try {
      parsePostgresCdcConfig(props);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      values.find((v) => v.name === error.key)?.errors.push(error.message);
    }
    return values;
  }

  /** Parses the config; throws ConfigError with Kafka's messages when it is invalid. No I/O. */
  async start(props: Readonly<Record<string, string>>, _context: ConnectorContext): Promise<void> {
    parsePostgresCdcConfig(props);
    this.#props = { ...props };
  }

  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    if (this.#props === null) {
      throw new IllegalStateError(
        'The PostgreSQL CDC connector must be started before taskConfigs',
      );
    }
    return postgresCdcTaskConfigs(this.#props, maxTasks);
  }

  async stop(): Promise<void> {
    this.#props = null;
  }

  createTask(): PostgresCdcSourceTask {
    return new PostgresCdcSourceTask(this.#deps);
  }

  /** Offsets are positions in the slot, committed with the records: exactly once. */
  override exactlyOnceSupport(_config: Readonly<Record<string, string>>): ExactlyOnceSupport {
    return 'SUPPORTED';
  }

  override canDefineTransactionBoundaries(
    _config: Readonly<Record<string, string>>,
  ): ConnectorTransactionBoundaries {
    return 'UNSUPPORTED';
  }

  /**
   * Before `PATCH`/`DELETE …/offsets` of the stopped connector:
   * - a reset (every offset null, as DELETE sends) drops the slots of the offsets' partitions and
   *   of the config's tasks, and the publications the connector created, so the next start
   *   begins anew (snapshot.mode=initial: a new snapshot);
   * - a streaming offset is accepted only when its slot exists and can still serve it (its
   *   position is not before the slot's confirmed position); snapshot offsets cannot be set.
   */
  override async alterOffsets(
    config: Readonly<Record<string, string>>,
    offsets: readonly SourcePartitionOffset[],
  ): Promise<boolean> {
    const parsed = parsePostgresCdcConfig(config);
    const taskCount = Math.max(1, Number(config['tasks.max'] ?? '1') || 1);
    const base = config['slot.name'] ?? 'debezium';
    const slotOf = (slot: string | null) => slot ?? base;
    const client = await connectQueryClient(parsed.connection);
    try {
      if (offsets.every((o) => o.offset === null)) {
        const slots = new Set(offsets.map((o) => slotOf(parseCdcPartition(o.partition).slot)));
        const publications = new Set<string>();
        const basePublication = config['publication.name'] ?? 'dbz_publication';
        if (taskCount <= 1) {
          slots.add(base);
          publications.add(basePublication);
        } else {
          for (let i = 0; i < taskCount; i++) {
            slots.add(`${base}_${i}`);
            publications.add(`${basePublication}_${i}`);
          }
        }
        for (const slot of slots) await dropSlot(client, slot, this.#deps.sleep);
        for (const publication of publications) await dropOwnPublication(client, publication);
        return true;
      }
      for (const { partition, offset } of offsets) {
        const slot = slotOf(parseCdcPartition(partition).slot);
        const position = parseCdcOffset(offset);
        if (position === null) {
          await dropSlot(client, slot, this.#deps.sleep);
          continue;
        }
        if (position.kind !== 'stream') {
          throw new ConnectError(
            'A snapshot offset cannot be set: reset the offsets (DELETE) to snapshot again',
          );
        }
        const info = await slotInfo(client, slot);
        if (info === null) {
          throw new ConnectError(
            `Replication slot ${slot} does not exist: it cannot serve LSN ${formatLsn(position.confirmable)}`,
          );
        }
        if (info.confirmedFlush !== null && position.confirmable < info.confirmedFlush) {
          throw new ConnectError(
            `Replication slot ${slot} was confirmed up to ${formatLsn(info.confirmedFlush)}: it cannot serve ${formatLsn(position.confirmable)} (the WAL before is released)`,
          );
        }
      }
      return true;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
