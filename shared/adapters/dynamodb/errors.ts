import { ConflictError, ConnectError } from '../../connect/errors.js';
import { MAX_ITEM_BYTES } from '../../ports/config-store.js';
import { ItemTooLargeError, StoreUnavailableError } from '../../ports/errors.js';
import type { Item } from './attributes.js';

/**
 * DynamoDB errors → the project's errors. Nothing the SDK throws leaves the adapter as is: the
 * SDK error survives only as `cause`.
 *
 * - `ConditionalCheckFailedException` is handled where it happens: `DynamoTable` returns it as
 *   `{ ok: false, old }` (the item DynamoDB returned through
 *   `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`, or a consistent re-read where the server
 *   does not return it, as dynalite) and each store turns the old item into AlreadyExists /
 *   NotFound / StaleVersion / Fenced / LeaseHeld. Only an unhandled one maps to ConflictError.
 * - Throttling, 5xx and network failures are retried by the SDK (standard mode, exponential
 *   backoff with jitter) and, once its attempts are spent, become a retriable
 *   `StoreUnavailableError`.
 * - An item over 400 KB becomes `ItemTooLargeError`; anything else a non-retriable
 *   `ConnectError` naming the operation.
 */

const RETRIABLE_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'LimitExceededException',
  'TransactionConflictException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

const RETRIABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

interface AwsLikeError {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly $retryable?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

function describe(error: unknown): AwsLikeError {
  return typeof error === 'object' && error !== null ? (error as AwsLikeError) : {};
}

/** True for the SDK's failed-condition error. */
export function isConditionalCheckFailed(error: unknown): boolean {
  return describe(error).name === 'ConditionalCheckFailedException';
}

/** The item DynamoDB returned with a failed condition (`ReturnValuesOnConditionCheckFailure`). */
export function oldItemOf(error: unknown): Item | undefined {
  const item = (error as { Item?: unknown }).Item;
  return typeof item === 'object' && item !== null ? (item as Item) : undefined;
}

/** Maps any error of a DynamoDB call made for `operation` (e.g. `update task configs of c`). */
export function mapDynamoError(error: unknown, operation: string): ConnectError {
  if (error instanceof ConnectError) return error;
  const { name, code, message, $retryable, $metadata } = describe(error);
  const text = typeof message === 'string' ? message : String(error);
  const status = $metadata?.httpStatusCode ?? 0;
  if (
    (typeof name === 'string' && RETRIABLE_NAMES.has(name)) ||
    (typeof code === 'string' && RETRIABLE_CODES.has(code)) ||
    $retryable !== undefined ||
    status >= 500
  ) {
    return new StoreUnavailableError(
      `DynamoDB is throttling or unavailable (${operation}): ${text}`,
      { cause: error },
    );
  }
  if (name === 'ValidationException' && /item size/i.test(text)) {
    return new ItemTooLargeError(operation, undefined, MAX_ITEM_BYTES, { cause: error });
  }
  if (name === 'ConditionalCheckFailedException') {
    return new ConflictError(`Concurrent change while trying to ${operation}`, { cause: error });
  }
  if (name === 'ResourceNotFoundException') {
    return new ConnectError(`The state table does not exist (${operation}): ${text}`, {
      cause: error,
    });
  }
  return new ConnectError(
    `DynamoDB failed to ${operation}: ${typeof name === 'string' ? `${name}: ` : ''}${text}`,
    { cause: error },
  );
}
