/**
 * Logger levels (`LoggingResource`, KIP-495 and KIP-976), kept in the state store so every
 * function of the deployment reads the same levels. The `root` logger always exists.
 */
import type { LoggerLevel } from '../ports/connector-meta-store.js';
import type { StateStore } from '../ports/state-store.js';
import type { LoggerLevelInfo } from './dto.js';
import { BadRequestError, RestNotFoundError } from './errors.js';
import { utf8Bytes } from './service-context.js';

/** log4j's levels, as Connect accepts them (case-insensitive). */
export const LOG_LEVELS = ['OFF', 'FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE', 'ALL'];

export const ROOT_LOGGER = 'root';

/** The longest logger name, in UTF-8 bytes (it is part of a state-table sort key). */
export const MAX_LOGGER_NAME_BYTES = 512;

/** `scope` of `PUT /admin/loggers/{l}`: anything but `cluster` means `worker`. */
export type LoggerScope = 'worker' | 'cluster';

function info(stored: LoggerLevel): LoggerLevelInfo {
  return { level: stored.level, last_modified: stored.lastModified };
}

export class LoggersApi {
  readonly #store: StateStore;
  readonly #rootLevel: string;

  /** `rootLevel`: the level reported for `root` until a REST call sets one. */
  constructor(store: StateStore, rootLevel: string) {
    this.#store = store;
    this.#rootLevel = rootLevel;
  }

  /** `GET /admin/loggers`: every logger with a level, `root` included, by name. */
  async list(): Promise<Record<string, LoggerLevelInfo>> {
    const stored = await this.#store.loggers.listLoggerLevels();
    const entries = new Map<string, LoggerLevelInfo>([
      [ROOT_LOGGER, { level: this.#rootLevel, last_modified: null }],
    ]);
    for (const level of stored) entries.set(level.logger, info(level));
    return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** `GET /admin/loggers/{l}`: 404 for a logger that has no level. */
  async get(name: string): Promise<LoggerLevelInfo> {
    const stored =
      utf8Bytes(name) <= MAX_LOGGER_NAME_BYTES
        ? await this.#store.loggers.getLoggerLevel(name)
        : undefined;
    if (stored !== undefined) return info(stored);
    if (name === ROOT_LOGGER) return { level: this.#rootLevel, last_modified: null };
    throw new RestNotFoundError(`Logger ${name} not found.`);
  }

  /**
   * `PUT /admin/loggers/{l}`: sets the level of the logger and of every logger below it
   * (`a.b` covers `a.b.c`; `root` covers all). 400 without a level, 404 for an unknown level
   * name (Connect's codes). Returns the affected loggers (worker scope; 200) or `undefined`
   * (cluster scope; 204).
   */
  async set(
    name: string,
    level: string | undefined,
    scope: LoggerScope,
  ): Promise<string[] | undefined> {
    if (level === undefined) {
      throw new BadRequestError("Desired 'level' parameter was not specified in request.");
    }
    const normalized = level.toUpperCase();
    if (!LOG_LEVELS.includes(normalized)) {
      throw new RestNotFoundError(`invalid log level '${level}'.`);
    }
    if (name === '' || utf8Bytes(name) > MAX_LOGGER_NAME_BYTES) {
      throw new BadRequestError(
        `Logger names must be 1 to ${MAX_LOGGER_NAME_BYTES} bytes long (UTF-8)`,
      );
    }
    const known = (await this.#store.loggers.listLoggerLevels()).map((l) => l.logger);
    const below = known.filter((l) => name === ROOT_LOGGER || l.startsWith(`${name}.`));
    const affected = [...new Set([name, ...below])].sort();
    await Promise.all(
      affected.map((logger) => this.#store.loggers.setLoggerLevel(logger, normalized)),
    );
    return scope === 'cluster' ? undefined : affected;
  }
}
