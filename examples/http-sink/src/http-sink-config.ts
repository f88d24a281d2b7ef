/**
 * The HTTP sink's configuration: the keys (one {@link ConfigDef}, serving both the runtime and
 * `…/config/validate`) and their parsed form.
 */
import {
  ConfigDef,
  ConfigError,
  LambdaValidator,
  type Password,
  Range,
} from 'serverless-connect/connect';

/** The version of the HTTP sink connector and task. */
export const HTTP_SINK_VERSION = '0.1.0';

export const HTTP_URL_CONFIG = 'http.url';
export const HTTP_HEADERS_CONFIG = 'http.headers';
export const HTTP_AUTH_TOKEN_CONFIG = 'http.auth.token';
export const HTTP_TIMEOUT_MS_CONFIG = 'http.timeout.ms';
export const BATCH_MAX_RECORDS_CONFIG = 'batch.max.records';
export const RETRY_MAX_ATTEMPTS_CONFIG = 'retry.max.attempts';
export const RETRY_BACKOFF_MS_CONFIG = 'retry.backoff.ms';

/** The parsed config a task works from. */
export interface HttpSinkConfig {
  readonly url: URL;
  /** Extra request headers, by name. Their values are never logged. */
  readonly headers: ReadonlyMap<string, string>;
  /** Sent as `Authorization: Bearer <token>`; null for none. */
  readonly authToken: string | null;
  readonly timeoutMs: number;
  readonly batchMaxRecords: number;
  readonly retryMaxAttempts: number;
  readonly retryBackoffMs: number;
}

function parseUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      'Invalid value for configuration http.url: not an absolute URL',
      HTTP_URL_CONFIG,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      'Invalid value for configuration http.url: must be an http: or https: URL',
      HTTP_URL_CONFIG,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new ConfigError(
      'Invalid value for configuration http.url: must not hold credentials (use http.auth.token or http.headers)',
      HTTP_URL_CONFIG,
    );
  }
  return url;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `Name:Value,Name2:Value2` → a map. The message names the header, never its value. */
function parseHeaders(value: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const item of value.split(',')) {
    if (item.trim() === '') continue;
    const colon = item.indexOf(':');
    const name = (colon < 0 ? item : item.slice(0, colon)).trim();
    if (colon < 0 || !HEADER_NAME.test(name)) {
      throw new ConfigError(
        `Invalid value for configuration http.headers: expected Name:Value items, got a bad item at header '${HEADER_NAME.test(name) ? name : '?'}'`,
        HTTP_HEADERS_CONFIG,
      );
    }
    const headerValue = item.slice(colon + 1).trim();
    if (/[\r\n\0]/.test(headerValue)) {
      throw new ConfigError(
        `Invalid value for configuration http.headers: the value of header '${name}' holds a control character`,
        HTTP_HEADERS_CONFIG,
      );
    }
    headers.set(name, headerValue);
  }
  return headers;
}

/** Runs a parser as a ConfigDef validator (null, an unset optional key, passes). */
const parsedBy = (parse: (value: string) => unknown, describe: string) =>
  LambdaValidator.with(
    (_name, value) => {
      if (typeof value === 'string') parse(value);
    },
    () => describe,
  );

/** The connector's own keys, in documentation order. */
export const HTTP_SINK_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: HTTP_URL_CONFIG,
    type: 'STRING',
    validator: parsedBy(parseUrl, 'an http: or https: URL'),
    importance: 'HIGH',
    documentation:
      'The endpoint each batch is POSTed to, as JSON {"records":[...]} with an Idempotency-Key header.',
  })
  .define({
    name: HTTP_HEADERS_CONFIG,
    type: 'STRING',
    defaultValue: '',
    validator: parsedBy(parseHeaders, 'Name:Value,Name2:Value2'),
    importance: 'MEDIUM',
    documentation:
      'Extra request headers, as Name:Value,Name2:Value2. Their values are never logged or put in error messages.',
  })
  .define({
    name: HTTP_AUTH_TOKEN_CONFIG,
    type: 'PASSWORD',
    defaultValue: null,
    importance: 'HIGH',
    documentation:
      'A bearer token, sent as Authorization: Bearer <token>. Hidden in the REST API and in logs.',
  })
  .define({
    name: HTTP_TIMEOUT_MS_CONFIG,
    type: 'INT',
    defaultValue: 10_000,
    validator: Range.between(1, 900_000),
    importance: 'LOW',
    documentation: 'How long one request may take before it is aborted (and retried).',
  })
  .define({
    name: BATCH_MAX_RECORDS_CONFIG,
    type: 'INT',
    defaultValue: 100,
    validator: Range.between(1, 10_000),
    importance: 'MEDIUM',
    documentation:
      'The most records in one request; a request holds records of one topic-partition.',
  })
  .define({
    name: RETRY_MAX_ATTEMPTS_CONFIG,
    type: 'INT',
    defaultValue: 5,
    validator: Range.between(1, 100),
    importance: 'LOW',
    documentation:
      'Attempts per request on network errors, timeouts, 408, 429 and 5xx; then put fails with a RetriableError and the runtime redelivers the batch.',
  })
  .define({
    name: RETRY_BACKOFF_MS_CONFIG,
    type: 'INT',
    defaultValue: 200,
    validator: Range.between(0, 60_000),
    importance: 'LOW',
    documentation:
      'The first wait between attempts; it doubles each attempt, with full jitter (a 429 Retry-After wins).',
  });

/** Parses `props`; throws ConfigError (naming the key) when they are invalid. */
export function parseHttpSinkConfig(props: Readonly<Record<string, string>>): HttpSinkConfig {
  const parsed = HTTP_SINK_CONFIG_DEF.parse(props);
  const token = parsed[HTTP_AUTH_TOKEN_CONFIG] as Password | null;
  return {
    url: parseUrl(parsed[HTTP_URL_CONFIG] as string),
    headers: parseHeaders(parsed[HTTP_HEADERS_CONFIG] as string),
    authToken: token === null ? null : token.value(),
    timeoutMs: parsed[HTTP_TIMEOUT_MS_CONFIG] as number,
    batchMaxRecords: parsed[BATCH_MAX_RECORDS_CONFIG] as number,
    retryMaxAttempts: parsed[RETRY_MAX_ATTEMPTS_CONFIG] as number,
    retryBackoffMs: parsed[RETRY_BACKOFF_MS_CONFIG] as number,
  };
}
