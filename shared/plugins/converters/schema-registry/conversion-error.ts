/**
 * The error a schema-registry converter throws for a failed conversion, as Confluent's
 * converters wrap theirs (`Failed to serialize Avro data from topic orders: ...`): the message
 * says what failed and carries the cause's message (a DLQ record's
 * `__connect.errors.exception.message` holds the registry's own words), and the kind is kept:
 *
 * | cause | thrown | under the runtime |
 * |---|---|---|
 * | a RetriableError (the registry unreachable or busy) | RetriableError | retried per `errors.retry.*`, then `errors.tolerance` |
 * | a DataError (bad bytes, an unknown id, an incompatible or invalid schema) | DataError | a record error under `errors.tolerance` |
 * | another ConnectError (the registry refused the credentials) | ConnectError | `errors.tolerance` |
 * | anything else (a library's own error) | DataError | a record error |
 */
import { ConnectError, DataError, RetriableError } from 'serverless-connect/connect';

/** `error` wrapped for the conversion `what` failed (`Failed to serialize ... topic orders`). */
export function conversionError(what: string, error: unknown): ConnectError {
  const reason = error instanceof Error ? error.message : String(error);
  const message = `${what}: ${reason}`;
  if (error instanceof ConnectError && error.retriable) {
    return new RetriableError(message, { cause: error });
  }
  if (error instanceof ConnectError && !(error instanceof DataError)) {
    return new ConnectError(message, { cause: error });
  }
  return new DataError(message, { cause: error });
}
