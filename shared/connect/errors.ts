/**
 * The error hierarchy of serverless-connect. Every error the runtime raises or maps is a
 * {@link ConnectError}; `retriable` alone decides whether a caller may retry, and `code`
 * lets transports (the REST API, the sink handler) map errors without `instanceof` chains.
 *
 * Mirrors Kafka Connect's `ConnectException` family: `RetriableException` for transient
 * failures, `DataException` for bad records, `ConfigException` for bad configs,
 * `NotFoundException`, `AlreadyExistsException`, and fencing for zombie writers.
 */

export type ConnectErrorCode =
  | 'CONNECT'
  | 'RETRIABLE'
  | 'DATA'
  | 'CONFIG'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'CONFLICT'
  | 'FENCED'
  | 'ILLEGAL_STATE';

export interface ConnectErrorOptions {
  readonly cause?: unknown;
  readonly retriable?: boolean;
}

/** Base of every error raised by connectors, the runtime and the adapters. */
export class ConnectError extends Error {
  readonly code: ConnectErrorCode = 'CONNECT';
  readonly retriable: boolean;

  constructor(message: string, options: ConnectErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.retriable = options.retriable ?? false;
  }
}

/** A transient failure: the same call may succeed later (Connect's `RetriableException`). */
export class RetriableError extends ConnectError {
  override readonly code = 'RETRIABLE';
  constructor(message: string, options: Omit<ConnectErrorOptions, 'retriable'> = {}) {
    super(message, { ...options, retriable: true });
  }
}

/** A record's data cannot be converted or transformed (Connect's `DataException`). */
export class DataError extends ConnectError {
  override readonly code = 'DATA';
}

/** A configuration is invalid (Connect's `ConfigException`). `key` names the offending key. */
export class ConfigError extends ConnectError {
  override readonly code = 'CONFIG';
  readonly key: string | undefined;
  constructor(message: string, key?: string, options: ConnectErrorOptions = {}) {
    super(message, options);
    this.key = key;
  }
}

/** The named connector, task, plugin or item does not exist. */
export class NotFoundError extends ConnectError {
  override readonly code = 'NOT_FOUND';
}

/** Creating something that already exists (a connector with the same name). */
export class AlreadyExistsError extends ConnectError {
  override readonly code = 'ALREADY_EXISTS';
}

/** A concurrent writer won: the caller's view (version, generation) is stale. */
export class ConflictError extends ConnectError {
  override readonly code = 'CONFLICT';
}

/** A newer owner holds the resource; the caller is a zombie and must stop writing. */
export class FencedError extends ConnectError {
  override readonly code = 'FENCED';
}

/** The operation is not allowed in the current state (e.g. offsets altered while RUNNING). */
export class IllegalStateError extends ConnectError {
  override readonly code = 'ILLEGAL_STATE';
}

/** True when `error` is a ConnectError marked retriable. */
export function isRetriable(error: unknown): boolean {
  return error instanceof ConnectError && error.retriable;
}
