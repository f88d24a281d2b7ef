/**
 * What a schema registry call can fail with, typed as Confluent's converters type it
 * (`AbstractKafkaSchemaSerDe.toKafkaException`, `RestService.isRestClientExceptionRetriable`):
 *
 * | registry answer                                   | error                            |
 * |---------------------------------------------------|----------------------------------|
 * | no answer (refused, reset, DNS, timeout), 408, 429, 500, 502, 503, 504 | {@link SchemaRegistryUnavailableError} (retriable) |
 * | 401, 403                                          | {@link SchemaRegistryAuthError}  |
 * | TLS refused (an untrusted certificate, a host name it is not for, no client certificate) | {@link SchemaRegistryTlsError} |
 * | other 4xx: 404 unknown id/subject/version, 409 incompatible, 422 invalid schema | {@link SchemaRegistryRequestError} (a DataError: a record error under `errors.tolerance`) |
 * | a 2xx whose body is not what the API promises     | ConnectError                     |
 *
 * Messages carry the registry's own message, its error code, the request's method and path
 * and the registry's URL without credentials; never a password or a user-info header.
 */
import { ConnectError, DataError, RetriableError } from 'serverless-connect/connect';

/** Confluent's error codes the converters act on. */
export const ErrorCodes = Object.freeze({
  SUBJECT_NOT_FOUND: 40401,
  VERSION_NOT_FOUND: 40402,
  SCHEMA_NOT_FOUND: 40403,
  INCOMPATIBLE_SCHEMA: 409,
  INVALID_SCHEMA: 42201,
});

/** The status and Confluent error code of a registry's error answer. */
export interface RegistryAnswer {
  /** The HTTP status. */
  readonly status: number;
  /** Confluent's `error_code` (e.g. 40403); the HTTP status when the body had none. */
  readonly errorCode: number;
}

/** The registry did not answer, or answered that it cannot serve now: try again later. */
export class SchemaRegistryUnavailableError extends RetriableError {
  /** The last HTTP status, or `null` when no registry answered. */
  readonly status: number | null;
  constructor(message: string, status: number | null, options: { cause?: unknown } = {}) {
    super(message, options);
    this.status = status;
  }
}

/** The registry refused the credentials (401) or the operation (403). Not a record's fault. */
export class SchemaRegistryAuthError extends ConnectError implements RegistryAnswer {
  readonly status: number;
  readonly errorCode: number;
  constructor(message: string, answer: RegistryAnswer) {
    super(message);
    this.status = answer.status;
    this.errorCode = answer.errorCode;
  }
}

/**
 * The TLS connection to the registry failed: its certificate is not trusted or not for its host,
 * or it wants a client certificate. A configuration fault (the `schema.registry.ssl.*` keys),
 * not a record's, and not passing.
 */
export class SchemaRegistryTlsError extends ConnectError {
  /** The TLS error code (`SELF_SIGNED_CERT_IN_CHAIN`, `ERR_TLS_CERT_ALTNAME_INVALID`, …). */
  readonly tlsCode: string;
  constructor(message: string, tlsCode: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.tlsCode = tlsCode;
  }
}

/** Whether `code` (a Node or OpenSSL error code) says a TLS handshake was refused. */
export function isTlsFailure(code: string): boolean {
  return /^(ERR_TLS_|ERR_SSL_|UNABLE_TO_|CERT_|SELF_SIGNED|DEPTH_ZERO|HOSTNAME_MISMATCH)/.test(
    code,
  );
}

/**
 * The registry refused the request for what it asked: an unknown schema id (40403), subject
 * (40401) or version (40402), an incompatible schema (409), an invalid one (42201).
 */
export class SchemaRegistryRequestError extends DataError implements RegistryAnswer {
  readonly status: number;
  readonly errorCode: number;
  constructor(message: string, answer: RegistryAnswer) {
    super(message);
    this.status = answer.status;
    this.errorCode = answer.errorCode;
  }
}

/** Statuses after which Confluent's client tries the next URL and its caller retries. */
export function isRetriableStatus(status: number): boolean {
  return (
    status === 408 ||
    status === 429 ||
    status === 500 ||
    status === 502 ||
    status === 503 ||
    status === 504
  );
}
