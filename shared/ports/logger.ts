/**
 * The logging port: structured log lines. The runtime never writes to `console` itself; the
 * composition root injects a logger (Powertools Logger in AWS, a console logger locally) that
 * already carries the invocation's context (connector, task, request id).
 *
 * @example
 * ```ts
 * logger.error('Error encountered in task orders-0.', { stage: 'VALUE_CONVERTER', error });
 * ```
 */

/** Extra structured fields of one log line. Values must be JSON-serialisable or an `Error`. */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * A structured logger. Every method is fire-and-forget: it never throws and never blocks on
 * I/O. `fields` are attached to the line as given; an implementation must not mutate them.
 */
export interface Logger {
  error(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = {
  error: () => {},
  warn: () => {},
  info: () => {},
  debug: () => {},
};
