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

/**
 * The names the components log under (`/admin/loggers` sets levels by name or dotted ancestor,
 * `serverless-connect` covering them all).
 */
export const LOGGERS = {
  /** The local runtime's own lines (start-up, shutdown). */
  runtime: 'serverless-connect.local',
  rest: 'serverless-connect.rest',
  enumerator: 'serverless-connect.enumerator',
  source: 'serverless-connect.source',
  sink: 'serverless-connect.sink',
  /** The local stand-in for Lambda's event source mappings. */
  esm: 'serverless-connect.esm',
  metrics: 'serverless-connect.metrics',
  /** The CloudFormation custom resource behind the CDK `Connector` construct. */
  connectorResource: 'serverless-connect.connector-resource',
} as const;

/** One of {@link LOGGERS}. */
export type LoggerName = (typeof LOGGERS)[keyof typeof LOGGERS];

/**
 * Makes the logger of a component, with fixed fields on every line (connector, task, request
 * id). The composition root decides where lines go and which levels apply.
 */
export interface LoggerFactory {
  (name: LoggerName, context?: LogFields): Logger;
  /**
   * Brings the levels up to date when they can change (`/admin/loggers`); called at the start of
   * each function invocation. Never rejects. Absent: the levels are fixed.
   */
  refresh?(): Promise<void>;
}

/** A factory of {@link silentLogger}s. */
export const silentLoggers: LoggerFactory = () => silentLogger;
