/**
 * What a DynamoDB failure means for the sink, and the retry loop driven by it: throttling, 5xx
 * and network errors are retried with exponential backoff, then surface as RetriableError
 * (the batch is redelivered); a rejected item is a data error; a missing table and anything
 * else fail the task.
 */
import { ConnectError, RetriableError } from 'serverless-connect/connect';

/** How the sink treats a failed call. */
export type WriteErrorKind = 'retriable' | 'invalid' | 'missing-table' | 'fatal';

const RETRIABLE_NAMES: ReadonlySet<string> = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'TransactionConflictException',
  'ReplicatedWriteConflictException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/** Errors about the item itself: other items may still be written. */
const INVALID_NAMES: ReadonlySet<string> = new Set([
  'ValidationException',
  'ItemCollectionSizeLimitExceededException',
]);

const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

interface ErrorShape {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly cause?: unknown;
  readonly $retryable?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown };
}

function shape(error: unknown): ErrorShape {
  return typeof error === 'object' && error !== null ? (error as ErrorShape) : {};
}

function isNetworkError(error: unknown, depth = 0): boolean {
  const { code, cause } = shape(error);
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  return depth < 3 && cause !== undefined && isNetworkError(cause, depth + 1);
}

/** Classifies an error thrown by the SDK (or a network error). */
export function classifyWriteError(error: unknown): WriteErrorKind {
  const { name, $retryable, $metadata } = shape(error);
  const status = $metadata?.httpStatusCode;
  if (typeof name === 'string' && INVALID_NAMES.has(name)) return 'invalid';
  if (name === 'ResourceNotFoundException') return 'missing-table';
  if (typeof name === 'string' && RETRIABLE_NAMES.has(name)) return 'retriable';
  if (typeof status === 'number' && (status >= 500 || status === 429)) return 'retriable';
  if ($retryable !== undefined && $retryable !== null && $retryable !== false) return 'retriable';
  return isNetworkError(error) ? 'retriable' : 'fatal';
}

/** `Name: message` of an error, for wrapping messages. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** How long to wait and what randomness to use between retries. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** The wait before the first retry; doubled each time, capped at 20×, full jitter. */
  readonly backoffMs: number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Uniform in [0, 1). */
  readonly random: () => number;
}

/** The wait before retry number `retry` (0-based): full jitter over the capped exponential. */
export function backoffDelay(policy: RetryPolicy, retry: number): number {
  const ceiling = Math.min(policy.backoffMs * 2 ** retry, policy.backoffMs * 20);
  return Math.floor(policy.random() * ceiling);
}

/**
 * Runs `call`, retrying errors classified `retriable` up to `policy.maxRetries` times; then
 * rejects with RetriableError (`what` names the operation). Other errors are rethrown as they
 * are, for the caller to map.
 */
export async function withRetries<T>(
  what: string,
  policy: RetryPolicy,
  call: () => Promise<T>,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await call();
    } catch (error) {
      if (classifyWriteError(error) !== 'retriable') throw error;
      if (retry >= policy.maxRetries) {
        throw new RetriableError(
          `${what} failed after ${policy.maxRetries} retries: ${errorText(error)}`,
          { cause: error },
        );
      }
      await policy.sleep(backoffDelay(policy, retry));
    }
  }
}

/** The task-failing error of a non-retriable, non-data failure on `table`. */
export function fatalError(table: string, what: string, error: unknown): ConnectError {
  if (error instanceof ConnectError) return error;
  if (classifyWriteError(error) === 'missing-table') {
    return new ConnectError(`DynamoDB table ${table} does not exist`, { cause: error });
  }
  return new ConnectError(`${what} failed: ${errorText(error)}`, { cause: error });
}
