import { jsonLogger } from '../../shared/adapters/logging/json-logger.js';
import type { LoggerLevelStore } from '../../shared/ports/connector-meta-store.js';
import type { LogFields, Logger } from '../../shared/ports/logger.js';

/**
 * Log levels that follow `/admin/loggers`: the control plane stores levels in the state store
 * (cluster-wide, as Connect's KIP-976 cluster scope), and the local runtime's loggers read them
 * back every few seconds, so `curl -X PUT .../admin/loggers/root -d '{"level":"DEBUG"}'` turns on
 * debug lines without a restart.
 *
 * Each component logs under a dotted name (`serverless-connect.source`, ...). Its level is the
 * stored level of its name or of the nearest ancestor (`serverless-connect` covers
 * `serverless-connect.source`), else that of `root`, else the start-up level (`LOG_LEVEL`).
 */

/** The JSON logger's levels, plus `off`. */
export type LocalLogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

const rank: Record<LocalLogLevel, number> = { off: -1, error: 0, warn: 1, info: 2, debug: 3 };

/** A log4j level name, as `/admin/loggers` accepts it, as a JSON logger level. */
export function fromLog4jLevel(level: string): LocalLogLevel | undefined {
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
  fallback: LocalLogLevel,
): LocalLogLevel {
  const segments = name.split('.');
  for (let end = segments.length; end > 0; end -= 1) {
    const level = stored.get(segments.slice(0, end).join('.'));
    const parsed = level === undefined ? undefined : fromLog4jLevel(level);
    if (parsed !== undefined) return parsed;
  }
  const root = stored.get('root');
  return (root === undefined ? undefined : fromLog4jLevel(root)) ?? fallback;
}

export interface LoggerLevelsOptions {
  /** The level until `/admin/loggers` sets one (`LOG_LEVEL`). */
  readonly fallback: LocalLogLevel;
  /** Where lines go. @default stdout */
  readonly write?: (line: string) => void;
}

/**
 * Loggers whose levels follow the stored logger levels. `refresh` reads them once; `start`
 * re-reads them on a timer (a failed read keeps the last levels).
 */
export class LoggerLevels {
  readonly #store: Pick<LoggerLevelStore, 'listLoggerLevels'>;
  readonly #fallback: LocalLogLevel;
  readonly #write: (line: string) => void;
  #stored: ReadonlyMap<string, string> = new Map();
  #timer: NodeJS.Timeout | undefined;

  constructor(store: Pick<LoggerLevelStore, 'listLoggerLevels'>, options: LoggerLevelsOptions) {
    this.#store = store;
    this.#fallback = options.fallback;
    this.#write = options.write ?? ((line) => process.stdout.write(`${line}\n`));
  }

  /** The level logger `name` logs at now. */
  levelOf(name: string): LocalLogLevel {
    return effectiveLevel(name, this.#stored, this.#fallback);
  }

  /** A logger named `name` (shown as `logger` on each line) with `context` on every line. */
  logger(name: string, context: LogFields = {}): Logger {
    const line = jsonLogger('debug', { logger: name, ...context }, this.#write);
    const at =
      (level: Exclude<LocalLogLevel, 'off'>) =>
      (message: string, fields?: LogFields): void => {
        if (rank[level] <= rank[this.levelOf(name)]) line[level](message, fields);
      };
    return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
  }

  /** Reads the stored levels now. */
  async refresh(): Promise<void> {
    const levels = await this.#store.listLoggerLevels();
    this.#stored = new Map(levels.map((l) => [l.logger, l.level]));
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
