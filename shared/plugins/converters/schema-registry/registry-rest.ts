/**
 * One HTTP request to Confluent's Schema Registry REST API, over its base URLs, as Confluent's
 * `RestService` sends it: JSON bodies with the registry's media type, basic authentication per
 * URL, a bounded time per request, and failover to the next URL when one gives no answer or a
 * retriable status; the client then stays on the URL that answered (`UrlList`).
 */
import { ConnectError } from 'serverless-connect/connect';
import {
  isRetriableStatus,
  isTlsFailure,
  type RegistryAnswer,
  SchemaRegistryAuthError,
  SchemaRegistryRequestError,
  SchemaRegistryTlsError,
  SchemaRegistryUnavailableError,
} from './errors.js';
import type { RegistryEndpoint, SchemaRegistrySettings } from './registry-config.js';

/** What the client needs of `fetch` (Node's global one in production). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface RegistryRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path below the base URL, with its query, e.g. `/subjects/orders-value/versions`. */
  readonly path: string;
  /** Sent as JSON. */
  readonly body?: unknown;
}

const MEDIA_TYPE = 'application/vnd.schemaregistry.v1+json';
const ACCEPT = `${MEDIA_TYPE}, application/vnd.schemaregistry+json; qs=0.9, application/json; qs=0.5`;
/** The most of an error body that is not Confluent's JSON shown in a message. */
const MAX_BODY_IN_MESSAGE = 200;

/** Why a request got no answer: the system error code (ECONNREFUSED), or the error's text. */
function reasonOf(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** Confluent's `{error_code, message}`, or what can be said of another body. */
function errorOf(status: number, text: string): RegistryAnswer & { readonly message: string } {
  try {
    const body = JSON.parse(text) as { error_code?: unknown; message?: unknown };
    if (typeof body === 'object' && body !== null) {
      return {
        status,
        errorCode: typeof body.error_code === 'number' ? body.error_code : status,
        message: typeof body.message === 'string' ? body.message : text,
      };
    }
  } catch {
    // not JSON: a proxy's page, an empty body
  }
  const snippet = text.trim().slice(0, MAX_BODY_IN_MESSAGE);
  return { status, errorCode: status, message: snippet === '' ? `HTTP ${status}` : snippet };
}

/** The TLS failure of a request, with what to set. */
function tlsFailure(
  endpoint: RegistryEndpoint,
  request: RegistryRequest,
  code: string,
  cause: unknown,
): SchemaRegistryTlsError {
  const hint = code.startsWith('ERR_SSL_')
    ? `the registry refused the handshake: it may want a client certificate (schema.registry.ssl.keystore.*)`
    : code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH'
      ? `the certificate is not for this host (schema.registry.ssl.endpoint.identification.algorithm= turns the check off)`
      : `the registry's certificate is not trusted: name its CA in schema.registry.ssl.truststore.location (PEM)`;
  return new SchemaRegistryTlsError(
    `TLS to the schema registry at ${endpoint.url} failed for ${request.method} ${request.path}: ${code}; ${hint}`,
    code,
    { cause },
  );
}

/** Sends requests to the registry's URLs in turn; one instance per client. */
export class RegistryRest {
  readonly #endpoints: readonly RegistryEndpoint[];
  readonly #timeoutMs: number;
  readonly #fetch: FetchLike;
  /** The URL requests start on: the last one that answered. */
  #current = 0;

  constructor(settings: SchemaRegistrySettings, fetch: FetchLike) {
    if (settings.endpoints.length === 0) throw new ConnectError('No schema registry URL given');
    this.#endpoints = settings.endpoints;
    this.#timeoutMs = settings.requestTimeoutMs;
    this.#fetch = fetch;
  }

  /** The base URLs, without credentials. */
  get urls(): string[] {
    return this.#endpoints.map((e) => e.url);
  }

  /**
   * The answer's JSON body (`null` for 204). Every URL is tried at most once.
   * @throws SchemaRegistryUnavailableError when no URL answered (the last URL's reason),
   *   SchemaRegistryAuthError, SchemaRegistryRequestError, or ConnectError for a malformed answer.
   */
  async request(request: RegistryRequest): Promise<unknown> {
    let failure: SchemaRegistryUnavailableError | undefined;
    for (let tried = 0; tried < this.#endpoints.length; tried++) {
      const index = this.#current;
      try {
        return await this.#send(this.#endpoints[index] as RegistryEndpoint, request);
      } catch (error) {
        if (!(error instanceof SchemaRegistryUnavailableError)) throw error;
        failure = error;
        if (this.#current === index) this.#current = (index + 1) % this.#endpoints.length;
      }
    }
    throw failure as SchemaRegistryUnavailableError;
  }

  async #send(endpoint: RegistryEndpoint, request: RegistryRequest): Promise<unknown> {
    const where = `${request.method} ${request.path} at ${endpoint.url}`;
    const headers: Record<string, string> = { Accept: ACCEPT };
    if (request.body !== undefined) headers['Content-Type'] = MEDIA_TYPE;
    if (endpoint.authorization !== null) headers.Authorization = endpoint.authorization.value();
    let status: number;
    let text: string;
    try {
      const response = await this.#fetch(endpoint.url + request.path, {
        method: request.method,
        headers,
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      const reason = reasonOf(error);
      if (isTlsFailure(reason)) throw tlsFailure(endpoint, request, reason, error);
      throw new SchemaRegistryUnavailableError(
        `Schema registry gave no answer to ${where}: ${reason}`,
        null,
        { cause: error },
      );
    }
    if (status >= 200 && status < 300) {
      if (status === 204 || text === '') return null;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new ConnectError(`Schema registry answered ${where} with a body that is not JSON`);
      }
    }
    const answer = errorOf(status, text);
    const message = `Schema registry answered ${where} with an error: ${answer.message} (HTTP ${status}, error code ${answer.errorCode})`;
    if (isRetriableStatus(status)) throw new SchemaRegistryUnavailableError(message, status);
    if (status === 401 || status === 403) throw new SchemaRegistryAuthError(message, answer);
    throw new SchemaRegistryRequestError(message, answer);
  }
}
