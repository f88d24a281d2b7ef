import { type Clock, systemClock } from '../../ports/clock.js';
import type { ConfigStore } from '../../ports/config-store.js';
import type {
  LoggerLevelStore,
  RestartStore,
  TopicStore,
} from '../../ports/connector-meta-store.js';
import type { LeaseStore } from '../../ports/lease-store.js';
import type { UsageStore } from '../../ports/metering.js';
import type { OffsetStore } from '../../ports/offset-store.js';
import type { StateStore } from '../../ports/state-store.js';
import type { StatusStore } from '../../ports/status-store.js';
import { MemoryConfigStore } from './memory-config-store.js';
import { MemoryDb } from './memory-db.js';
import { MemoryLeaseStore } from './memory-lease-store.js';
import {
  MemoryLoggerLevelStore,
  MemoryRestartStore,
  MemoryTopicStore,
} from './memory-meta-stores.js';
import { MemoryOffsetStore } from './memory-offset-store.js';
import { MemoryStatusStore } from './memory-status-store.js';
import { MemoryUsageStore } from './memory-usage-store.js';

export interface MemoryStateStoreOptions {
  /** Time source for lease expiry and timestamps. @default systemClock */
  readonly clock?: Clock;
}

/**
 * The whole {@link StateStore} in one process's memory: unit tests and `local --memory`.
 * Same contract as the DynamoDB adapter (both pass test/contract/state-store.contract.ts);
 * state is lost when the process ends.
 *
 * @example
 * ```ts
 * const state = createMemoryStateStore({ clock: fakeClock });
 * await state.configs.createConnector('s3-sink', { 'connector.class': 'S3Sink' });
 * ```
 */
export class MemoryStateStore implements StateStore {
  readonly configs: ConfigStore;
  readonly leases: LeaseStore;
  readonly status: StatusStore;
  readonly offsets: OffsetStore;
  readonly topics: TopicStore;
  readonly restarts: RestartStore;
  readonly loggers: LoggerLevelStore;
  readonly usage: UsageStore = new MemoryUsageStore();
  readonly #db = new MemoryDb();

  constructor(options: MemoryStateStoreOptions = {}) {
    const clock = options.clock ?? systemClock;
    this.configs = new MemoryConfigStore(this.#db, clock);
    this.leases = new MemoryLeaseStore(this.#db, clock);
    this.status = new MemoryStatusStore(this.#db, clock);
    this.offsets = new MemoryOffsetStore(this.#db, clock);
    this.topics = new MemoryTopicStore(this.#db);
    this.restarts = new MemoryRestartStore(this.#db, clock);
    this.loggers = new MemoryLoggerLevelStore(this.#db, clock);
  }

  /** How many DynamoDB items the connector's state would occupy (for tests). */
  countItems(connector: string): number {
    return this.#db.countItems(connector);
  }
}

export function createMemoryStateStore(options: MemoryStateStoreOptions = {}): MemoryStateStore {
  return new MemoryStateStore(options);
}
