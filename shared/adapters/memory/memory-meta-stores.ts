import type { Clock } from '../../ports/clock.js';
import type {
  LoggerLevel,
  LoggerLevelStore,
  PendingRestart,
  RestartRequest,
  RestartStore,
  TopicStore,
} from '../../ports/connector-meta-store.js';
import { compareNames, copy, type MemoryDb } from './memory-db.js';

/** TopicStore in memory. */
export class MemoryTopicStore implements TopicStore {
  readonly #db: MemoryDb;

  constructor(db: MemoryDb) {
    this.#db = db;
  }

  async recordActiveTopic(connector: string, topic: string): Promise<boolean> {
    const topics = this.#db.items(connector).topics;
    if (topics.has(topic)) return false;
    topics.add(topic);
    return true;
  }

  async listActiveTopics(connector: string): Promise<string[]> {
    return [...(this.#db.peek(connector)?.topics ?? [])].sort(compareNames);
  }

  async resetActiveTopics(connector: string): Promise<void> {
    this.#db.peek(connector)?.topics.clear();
  }
}

/** RestartStore in memory. */
export class MemoryRestartStore implements RestartStore {
  readonly #db: MemoryDb;
  readonly #clock: Clock;

  constructor(db: MemoryDb, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  async requestRestart(connector: string, request: RestartRequest): Promise<PendingRestart> {
    const items = this.#db.items(connector);
    const pending: PendingRestart = {
      connector,
      onlyFailed: request.onlyFailed,
      includeTasks: request.includeTasks,
      seq: (items.restart?.seq ?? 0) + 1,
      requestedAt: this.#clock.now(),
    };
    items.restart = { ...pending, completed: false };
    return copy(pending);
  }

  async getRestartRequest(connector: string): Promise<PendingRestart | undefined> {
    const restart = this.#db.peek(connector)?.restart;
    if (restart === undefined || restart.completed) return undefined;
    const { completed: _completed, ...pending } = restart;
    return copy(pending);
  }

  async completeRestart(connector: string, seq: number): Promise<boolean> {
    const restart = this.#db.peek(connector)?.restart;
    if (restart === undefined || restart.completed || restart.seq !== seq) return false;
    restart.completed = true;
    return true;
  }
}

/** LoggerLevelStore in memory (global, outside every connector). */
export class MemoryLoggerLevelStore implements LoggerLevelStore {
  readonly #db: MemoryDb;
  readonly #clock: Clock;

  constructor(db: MemoryDb, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  async setLoggerLevel(logger: string, level: string): Promise<LoggerLevel> {
    const stored = { logger, level, lastModified: this.#clock.now() };
    this.#db.loggers.set(logger, stored);
    return { ...stored };
  }

  async getLoggerLevel(logger: string): Promise<LoggerLevel | undefined> {
    const stored = this.#db.loggers.get(logger);
    return stored === undefined ? undefined : { ...stored };
  }

  async listLoggerLevels(): Promise<LoggerLevel[]> {
    return [...this.#db.loggers.values()]
      .map((level) => ({ ...level }))
      .sort((a, b) => compareNames(a.logger, b.logger));
  }
}
