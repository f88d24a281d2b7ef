import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type Clock, systemClock } from '../../ports/clock.js';
import type { ConfigStore } from '../../ports/config-store.js';
import type {
  LoggerLevelStore,
  RestartStore,
  TopicStore,
} from '../../ports/connector-meta-store.js';
import type { LeaseStore } from '../../ports/lease-store.js';
import type { UsageRecorder, UsageStore } from '../../ports/metering.js';
import type { OffsetStore } from '../../ports/offset-store.js';
import type { StateStore } from '../../ports/state-store.js';
import type { StatusStore } from '../../ports/status-store.js';
import { DynamoDbConfigStore } from './dynamodb-config-store.js';
import { DynamoDbLeaseStore } from './dynamodb-lease-store.js';
import {
  DynamoDbLoggerLevelStore,
  DynamoDbRestartStore,
  DynamoDbTopicStore,
} from './dynamodb-meta-stores.js';
import { DynamoDbOffsetStore } from './dynamodb-offset-store.js';
import { DynamoDbStatusStore } from './dynamodb-status-store.js';
import { DynamoDbUsageStore } from './dynamodb-usage-store.js';
import { DynamoTable } from './table.js';

export interface DynamoDbStateStoreOptions {
  /**
   * The client (built by the composition root; its retry settings apply: the SDK's standard
   * mode retries throttling with backoff before the adapter reports StoreUnavailableError).
   */
  readonly client: DynamoDBClient;
  /** The table created from table-schema.ts (CDK in AWS, `ensureTable` locally). */
  readonly tableName: string;
  /** Time source for lease expiry and timestamps. @default systemClock */
  readonly clock?: Clock;
  /**
   * Where every request's consumed capacity is reported (the metering's `UsageScopes`).
   * @default none: requests are not metered
   */
  readonly usage?: UsageRecorder;
  /** Uniform in [0, 1): picks the container's shard of the usage items. @default Math.random */
  readonly random?: () => number;
}

/**
 * The whole {@link StateStore} over one DynamoDB table: single-item writes only (no
 * TransactWriteItems, which dynalite lacks), each write that can race carrying a condition.
 *
 * @example
 * ```ts
 * const state = createDynamoDbStateStore({ client: new DynamoDBClient({}), tableName });
 * const page = await state.configs.listConnectors({ limit: 100 });
 * ```
 */
export function createDynamoDbStateStore(options: DynamoDbStateStoreOptions): StateStore {
  const table = new DynamoTable(options.client, options.tableName, options.usage);
  const clock = options.clock ?? systemClock;
  const configs: ConfigStore = new DynamoDbConfigStore(table, clock);
  const leases: LeaseStore = new DynamoDbLeaseStore(table, clock);
  const status: StatusStore = new DynamoDbStatusStore(table, clock);
  const offsets: OffsetStore = new DynamoDbOffsetStore(table, clock);
  const topics: TopicStore = new DynamoDbTopicStore(table, clock);
  const restarts: RestartStore = new DynamoDbRestartStore(table, clock);
  const loggers: LoggerLevelStore = new DynamoDbLoggerLevelStore(table, clock);
  const usage: UsageStore = new DynamoDbUsageStore(table, options.random ?? Math.random);
  return { configs, leases, status, offsets, topics, restarts, loggers, usage };
}
