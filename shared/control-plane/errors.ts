/**
 * Errors of the control plane and their mapping to Kafka Connect's REST error responses
 * (`ConnectExceptionMapper`): every error becomes `{"error_code": <status>, "message": …}`.
 * Only 4xx messages are shown to the caller; a 5xx answer carries a fixed text and the request
 * id, and the error itself goes to the log.
 */
import {
  AlreadyExistsError,
  ConfigError,
  ConflictError,
  ConnectError,
  DataError,
  FencedError,
  IllegalStateError,
  NotFoundError,
} from '../connect/errors.js';
import { ConnectorNotStoppedError, ItemTooLargeError } from '../ports/errors.js';

/** An error that carries its HTTP status (Connect's `ConnectRestException`). */
export class RestError extends ConnectError {
  readonly status: number;
  constructor(status: number, message: string, options: { readonly cause?: unknown } = {}) {
    super(message, options);
    this.status = status;
  }
}

/** 400: the request is malformed or its content is invalid. */
export class BadRequestError extends RestError {
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super(400, message, options);
  }
}

/** 404 for a route, connector, task, plugin or logger that does not exist. */
export class RestNotFoundError extends RestError {
  constructor(message: string) {
    super(404, message);
  }
}

/** 403: the operation is disabled by configuration (topic tracking). */
export class ForbiddenError extends RestError {
  constructor(message: string) {
    super(403, message);
  }
}

/** 409: a concurrent change won; re-read and retry. */
export class RestConflictError extends RestError {
  constructor(message: string) {
    super(409, message);
  }
}

/** The body of every error response. */
export interface ErrorBody {
  readonly error_code: number;
  readonly message: string;
}

/** How an error is answered. */
export interface MappedError {
  readonly status: number;
  readonly body: ErrorBody;
  /** True when the message is the error's own text (4xx, and 503 texts written here). */
  readonly exposed: boolean;
}

function statusOf(error: unknown): number {
  if (error instanceof RestError) return error.status;
  if (error instanceof ConnectorNotStoppedError) return 400;
  if (error instanceof ItemTooLargeError) return 413;
  if (error instanceof NotFoundError) return 404;
  if (error instanceof AlreadyExistsError) return 409;
  if (error instanceof ConflictError || error instanceof FencedError) return 409;
  if (error instanceof IllegalStateError) return 409;
  if (error instanceof ConfigError || error instanceof DataError) return 400;
  if (error instanceof ConnectError && error.retriable) return 503;
  return 500;
}

/**
 * Maps any thrown value to a status and an error body. 4xx answers carry the error's
 * message; 503 a fixed "retry" text; any other 5xx a fixed text naming the request id only.
 */
export function mapError(error: unknown, requestId: string): MappedError {
  const status = statusOf(error);
  if (status < 500) {
    const message = error instanceof Error ? error.message : String(error);
    return { status, body: { error_code: status, message }, exposed: true };
  }
  const message =
    status === 503
      ? `The state store is temporarily unavailable; retry the request (request id ${requestId})`
      : `Internal server error (request id ${requestId})`;
  return { status, body: { error_code: status, message }, exposed: false };
}
