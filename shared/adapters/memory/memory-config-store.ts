import { ConfigError } from '../../connect/errors.js';
import type { Clock } from '../../ports/clock.js';
import {
  type ConfigMap,
  type ConfigStore,
  type ConnectorPage,
  type ConnectorRecord,
  type CreateConnectorOptions,
  type DeleteConnectorOptions,
  isLegalTransition,
  type ListConnectorsOptions,
  MAX_ITEM_BYTES,
  nextTaskConfigSet,
  type TargetState,
  type TargetStateChange,
  type TaskConfigSet,
} from '../../ports/config-store.js';
import {
  ConnectorExistsError,
  ConnectorNotFoundError,
  InvalidTransitionError,
  ItemTooLargeError,
  StaleVersionError,
} from '../../ports/errors.js';
import { compareNames, copy, jsonBytes, type MemoryDb } from './memory-db.js';

const MAX_PAGE = 1000;

/** ConfigStore in memory. */
export class MemoryConfigStore implements ConfigStore {
  readonly #db: MemoryDb;
  readonly #clock: Clock;

  constructor(db: MemoryDb, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  async createConnector(
    name: string,
    config: ConfigMap,
    options: CreateConnectorOptions = {},
  ): Promise<ConnectorRecord> {
    const items = this.#db.items(name);
    if (items.connector !== undefined) throw new ConnectorExistsError(name);
    const now = this.#clock.now();
    items.connector = {
      name,
      config: { ...config },
      version: 1,
      targetState: options.initialState ?? 'RUNNING',
      createdAt: now,
      updatedAt: now,
    };
    return copy(items.connector);
  }

  async updateConnector(
    name: string,
    config: ConfigMap,
    expectedVersion: number,
  ): Promise<ConnectorRecord> {
    const items = this.#db.peek(name);
    const current = items?.connector;
    if (items === undefined || current === undefined) throw new ConnectorNotFoundError(name);
    if (current.version !== expectedVersion) {
      throw new StaleVersionError(`config of ${name}`, expectedVersion, current.version);
    }
    items.connector = {
      ...current,
      config: { ...config },
      version: expectedVersion + 1,
      updatedAt: this.#clock.now(),
    };
    return copy(items.connector);
  }

  async getConnector(name: string): Promise<ConnectorRecord | undefined> {
    const connector = this.#db.peek(name)?.connector;
    return connector === undefined ? undefined : copy(connector);
  }

  async listConnectors(options: ListConnectorsOptions = {}): Promise<ConnectorPage> {
    const limit = options.limit ?? MAX_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
      throw new ConfigError(`limit must be an integer in 1..${MAX_PAGE}, got ${limit}`, 'limit');
    }
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const names = this.#db
      .connectorNames()
      .filter((name) => after === undefined || compareNames(name, after) > 0);
    const page = names.slice(0, limit);
    const last = page.at(-1);
    return names.length > limit && last !== undefined
      ? { names: page, nextCursor: encodeCursor(last) }
      : { names: page };
  }

  async deleteConnector(name: string, options: DeleteConnectorOptions = {}): Promise<void> {
    const items = this.#db.peek(name);
    if (items?.connector === undefined) throw new ConnectorNotFoundError(name);
    if (options.keepOffsets !== true) {
      this.#db.drop(name);
      return;
    }
    const kept = this.#db.items(name);
    delete kept.connector;
    delete kept.tasks;
    delete kept.status;
    delete kept.restart;
    kept.topics.clear();
    for (const record of kept.taskRecords.values()) {
      delete record.lease;
      delete record.status;
    }
  }

  async setTargetState(name: string, to: TargetState): Promise<TargetStateChange> {
    const items = this.#db.peek(name);
    const current = items?.connector;
    if (items === undefined || current === undefined) throw new ConnectorNotFoundError(name);
    const from = current.targetState;
    if (!isLegalTransition(from, to)) throw new InvalidTransitionError(name, from, to);
    items.connector = { ...current, targetState: to };
    return { from, to };
  }

  async putTaskConfigs(
    name: string,
    configs: readonly ConfigMap[],
    expectedVersion: number,
  ): Promise<TaskConfigSet> {
    const items = this.#db.peek(name);
    if (items?.connector === undefined) throw new ConnectorNotFoundError(name);
    const current = items.tasks ?? { connector: name, version: 0, tasks: [] };
    if (current.version !== expectedVersion) {
      throw new StaleVersionError(`task configs of ${name}`, expectedVersion, current.version);
    }
    const next = nextTaskConfigSet(current, configs);
    if (next === undefined) return copy(current);
    const size = jsonBytes(next.tasks);
    if (size > MAX_ITEM_BYTES) {
      throw new ItemTooLargeError(`task configs of ${name}`, size, MAX_ITEM_BYTES);
    }
    items.tasks = next;
    return copy(next);
  }

  async clearFencing(name: string, expectedVersion: number): Promise<TaskConfigSet> {
    const items = this.#db.peek(name);
    const current = items?.tasks ?? { connector: name, version: 0, tasks: [] };
    if (current.version !== expectedVersion) {
      throw new StaleVersionError(`task configs of ${name}`, expectedVersion, current.version);
    }
    if (items?.tasks === undefined) return copy(current);
    const { fencing: _fenced, ...cleared } = items.tasks;
    items.tasks = cleared;
    return copy(cleared);
  }

  async getTaskConfigs(name: string): Promise<TaskConfigSet> {
    const tasks = this.#db.peek(name)?.tasks;
    return tasks === undefined ? { connector: name, version: 0, tasks: [] } : copy(tasks);
  }
}

function encodeCursor(name: string): string {
  return Buffer.from(name, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  return Buffer.from(cursor, 'base64url').toString('utf8');
}
