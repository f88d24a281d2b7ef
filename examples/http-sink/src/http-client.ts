/**
 * One POST with retries: network errors, timeouts, 408, 429 (after its Retry-After) and 5xx are
 * retried with exponential backoff and full jitter; any other answer that is not 2xx is returned
 * to the caller as a rejection.
 */
import { RetriableError } from 'serverless-connect/connect';
import type { HttpSinkConfig } from './http-sink-config.js';

/** What the task is built from: injected so tests neither wait nor depend on chance. */
export interface HttpSinkDeps {
  /** @default globalThis.fetch */
  readonly fetch: typeof globalThis.fetch;
  /** Waits between attempts. @default setTimeout */
  readonly sleep: (ms: number) => Promise<void>;
  /** Uniform in [0, 1), for the jitter. @default Math.random */
  readonly random: () => number;
}

/** The real fetch, timers and randomness. */
export function systemHttpSinkDeps(): HttpSinkDeps {
  return {
    fetch: (input, init) => globalThis.fetch(input, init),
    sleep: (ms) => new Promise((resolve) => globalThis.setTimeout(resolve, ms)),
    random: () => globalThis.Math.random(),
  };
}

/** The endpoint answered a status that retrying will not change (a 4xx but 408 and 429). */
export interface Rejection {
  readonly status: number;
  /** The status line and the start of the answer's body, secrets removed. */
  readonly message: string;
}

const RETRIABLE_STATUS = (status: number) => status === 408 || status === 429 || status >= 500;
const MAX_BODY_CHARS = 200;
const MAX_RETRY_AFTER_MS = 60_000;

/** The URL as it may appear in messages: no user info, no query (either may hold a secret). */
export function safeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** `text` with every secret of `config` (token, header values) replaced by `[hidden]`. */
function scrub(text: string, config: HttpSinkConfig): string {
  const secrets = [config.authToken, ...config.headers.values()].filter(
    (s): s is string => s !== null && s.length >= 4,
  );
  return secrets.reduce((out, secret) => out.split(secret).join('[hidden]'), text);
}

/** Retry-After in seconds (the HTTP-date form is not honoured: the backoff applies). */
function retryAfterMs(response: Response): number | null {
  const header = response.headers.get('retry-after')?.trim() ?? '';
  if (!/^\d+$/.test(header)) return null;
  return Math.min(Number(header) * 1000, MAX_RETRY_AFTER_MS);
}

async function describe(response: Response, config: HttpSinkConfig): Promise<string> {
  const body = (await response.text().catch(() => '')).slice(0, MAX_BODY_CHARS).trim();
  const line = `${response.status} ${response.statusText}`.trim();
  return scrub(body === '' ? line : `${line}: ${body}`, config);
}

/**
 * POSTs `body` with `headers` to the configured endpoint.
 *
 * @returns null when the endpoint took it (2xx), the {@link Rejection} for a non-retriable status
 * @throws RetriableError once `retry.max.attempts` attempts failed retriably
 */
export async function postWithRetries(
  config: HttpSinkConfig,
  deps: HttpSinkDeps,
  headers: Readonly<Record<string, string>>,
  body: string,
): Promise<Rejection | null> {
  const where = `POST ${safeUrl(config.url)}`;
  let lastFailure = '';
  for (let attempt = 1; attempt <= config.retryMaxAttempts; attempt += 1) {
    let waitMs: number | null = null;
    try {
      const response = await deps.fetch(config.url, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(config.timeoutMs),
      });
      if (response.ok) {
        await response.body?.cancel();
        return null;
      }
      const message = await describe(response, config);
      if (!RETRIABLE_STATUS(response.status)) return { status: response.status, message };
      lastFailure = message;
      if (response.status === 429) waitMs = retryAfterMs(response);
    } catch (error) {
      lastFailure = scrub(error instanceof Error ? error.message : String(error), config);
    }
    if (attempt < config.retryMaxAttempts) {
      const backoff = config.retryBackoffMs * 2 ** (attempt - 1);
      await deps.sleep(waitMs ?? Math.floor(deps.random() * backoff));
    }
  }
  throw new RetriableError(
    `HTTP sink: ${where} failed ${config.retryMaxAttempts} time(s), last: ${lastFailure}`,
  );
}
