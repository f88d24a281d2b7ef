import type { LoggerLevelStore } from '../../ports/connector-meta-store.js';
import type { LogFields, Logger, LoggerFactory } from '../../ports/logger.js';
import { jsonLogger, type LogLevel } from './json-logger.js';

/**
 * Log levels that follow `/admin/loggers`: the control plane stores levels in the state store
 * (cluster-wide, as Connect's KIP-976 cluster scope), and every process's loggers read them
 * back, so `curl -X PUT .../admin/loggers/root -d '{"level":"DEBUG"}'` turns on debug lines
 * without a restart or a deployment. The local runtime re-reads them on a timer (`start`); a
 * Lambda function, whose timers do not run while its container is frozen, at the start of an
 * invocation (`refreshIfDue`, called by the invocation middleware): at the container's first
 * invocation, then at most every `refreshEveryMs`.
 *
 * Each component logs under a dotted name (`serverless-connect.source`, ...). Its level is the
 * stored level of its name or of the nearest ancestor (`serverless-connect` covers
 * `serverless-connect.source`), else that of `root`, else the start-up level (`LOG_LEVEL`).
 */

/** The JSON logger's levels, plus `off`. */
export type LoggerLevelName = 'off' | LogLevel;

const rank: Record<LoggerLevelName, number> = { off: -1, error: 0, warn: 1, info: 2, debug: 3 };

/** A log4j level name, as `/admin/loggers` accepts it, as a JSON logger level. */
export function fromLog4jLevel(level: string): LoggerLevelName | undefined {
  switch (level.trim().toUpperCase()) {
    case 'OFF':
      return 'off';
    case 'FATAL':
    case 'ERROR':
      return 'error';
    case 'WARN':
      return 'warn';
    case 'INFO':
      return 'info';
    case 'DEBUG':
    case 'TRACE':
    case 'ALL':
      return 'debug';
    default:
      return undefined;
  }
}

/**
 * The level of logger `name`: the stored level of `name` or of its nearest dotted ancestor,
 * else `root`'s, else `fallback`. Unknown level names are skipped.
 */
export function effectiveLevel(
  name: string,
  stored: ReadonlyMap<string, string>,
  fallback: LoggerLevelName,
): LoggerLevelName {
  const segments = name.split('.');
  for (let end = segments.length; end > 0; end -= 1) {
    const level = stored.get(segments.slice(0, end).join('.'));
    const parsed = level === undefined ? undefined : fromLog4jLevel(level);
    if (parsed !== undefined) return parsed;
  }
  const root = stored.get('root');
  return (root === undefined ? undefined : fromLog4jLevel(root)) ?? fallback;
}

/** How often a Lambda function re-reads the levels (`LOG_LEVEL_REFRESH_SECONDS`). */
export const DEFAULT_LEVEL_REFRESH_MS = 30_000;

export interface LoggerLevelsOptions {
  /** The level until `/admin/loggers` sets one (`LOG_LEVEL`). */
  readonly fallback: LoggerLevelName;
  /** Where lines go. @default stdout */
  readonly write?: (line: string) => void;
  /** The least time between two reads by {@link LoggerLevels.refreshIfDue}. @default 30 s */
  readonly refreshEveryMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * Loggers whose levels follow the stored logger levels. `refresh` reads them once; `start`
 * re-reads them on a timer, `refreshIfDue` when the last read is older than `refreshEveryMs`
 * (a failed read keeps the last levels).
 */
export class LoggerLevels {
  readonly #store: Pick<LoggerLevelStore, 'listLoggerLevels'>;
  readonly #fallback: LoggerLevelName;
  readonly #write: (line: string) => void;
  readonly #refreshEveryMs: number;
  readonly #now: () => number;
  #stored: ReadonlyMap<string, string> = new Map();
  /** When the last read started (successful or not); undefined before the first. */
  #readAt: number | undefined;
  #reading: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(store: Pick<LoggerLevelStore, 'listLoggerLevels'>, options: LoggerLevelsOptions) {
    this.#store = store;
    this.#fallback = options.fallback;
    this.#write = options.write ?? ((line) => process.stdout.write(`${line}\n`));
    this.#refreshEveryMs = options.refreshEveryMs ?? DEFAULT_LEVEL_REFRESH_MS;
    this.#now = options.now ?? Date.now;
  }

  /** The level logger `name` logs at now. */
  levelOf(name: string): LoggerLevelName {
    return effectiveLevel(name, this.#stored, this.#fallback);
  }

  /** A logger named `name` (shown as `logger` on each line) with `context` on every line. */
  logger(name: string, context: LogFields = {}): Logger {
    const line = jsonLogger('debug', { logger: name, ...context }, this.#write);
    const at =
      (level: LogLevel) =>
      (message: string, fields?: LogFields): void => {
        if (rank[level] <= rank[this.levelOf(name)]) line[level](message, fields);
      };
    return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
  }

  /** These loggers as the engine's factory, whose `refresh` is {@link refreshIfDue}. */
  factory(): LoggerFactory {
    return Object.assign((name: string, context?: LogFields) => this.logger(name, context), {
      refresh: () => this.refreshIfDue(),
    });
  }

  /** Reads the stored levels now. @throws what the store throws */
  async refresh(): Promise<void> {
    this.#readAt = this.#now();
    const levels = await this.#store.listLoggerLevels();
    this.#stored = new Map(levels.map((l) => [l.logger, l.level]));
  }

  /**
   * Reads the stored levels unless a read started less than `refreshEveryMs` ago; the first
   * call always reads. Never throws: a failed read keeps the last levels until the next is due.
   * Calls while a read is under way wait for that read.
   */
  refreshIfDue(): Promise<void> {
    if (this.#reading !== undefined) return this.#reading;
    const due = this.#readAt === undefined || this.#now() - this.#readAt >= this.#refreshEveryMs;
    if (!due) return Promise.resolve();
    this.#reading = this.refresh()
      .catch(() => undefined)
      .finally(() => {
        this.#reading = undefined;
      });
    return this.#reading;
  }

  /** Re-reads the levels every `everyMs` until `stop`. */
  start(everyMs: number): void {
    this.stop();
    this.#timer = setInterval(() => {
      this.refresh().catch(() => undefined);
    }, everyMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
