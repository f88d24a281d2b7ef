import type { ConfigStore } from './config-store.js';
import type { LoggerLevelStore, RestartStore, TopicStore } from './connector-meta-store.js';
import type { LeaseStore } from './lease-store.js';
import type { UsageStore } from './metering.js';
import type { OffsetStore } from './offset-store.js';
import type { StatusStore } from './status-store.js';

/**
 * The whole state of serverless-connect (Kafka Connect's config, offsets and status topics),
 * as one object of narrow ports. Code takes the port it needs (`deps.leases`), and composition
 * roots build all of them with one adapter factory over one table.
 *
 * @example
 * ```ts
 * const state = createDynamoDbStateStore({ client, tableName, clock: systemClock });
 * const lease = await state.leases.acquireLease({ connector, task, owner, generation, ttlMs });
 * await state.status.putTaskStatus({ connector, task }, { state: 'RUNNING', workerId }, lease);
 * ```
 */
export interface StateStore {
  readonly configs: ConfigStore;
  readonly leases: LeaseStore;
  readonly status: StatusStore;
  readonly offsets: OffsetStore;
  readonly topics: TopicStore;
  readonly restarts: RestartStore;
  readonly loggers: LoggerLevelStore;
  /** Hourly usage sums per connector (the metering). */
  readonly usage: UsageStore;
}
