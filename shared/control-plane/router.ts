/**
 * HTTP semantics without a transport: (method, raw path, query, headers, body) → (status,
 * headers, body). Both the Lambda handler and the local HTTP server call `Router.handle`.
 *
 * - The raw path is split on `/` first and each segment percent-decoded after, so a connector
 *   named `a/b` (sent as `a%2Fb`) is one segment. Malformed encoding is a 400.
 * - Unknown path: 404 "HTTP 404 Not Found"; known path, wrong method: 405 with `Allow`;
 *   HEAD is answered as GET without a body.
 * - Bodies over `maxBodyBytes` (1 MiB): 413; a body with a non-JSON Content-Type: 415.
 * - Every error body is `{"error_code", "message"}` and is logged with the request id; a 5xx
 *   never shows the error's text (see errors.ts).
 */
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { UsageAttribution } from '../runtime/metering/usage-scopes.js';
import type { ConnectService } from './connect-service.js';
import { BadRequestError, mapError, RestError } from './errors.js';
import { openApiDocument } from './openapi.js';
import {
  connectRoutes,
  HIDDEN_ROUTES,
  type HttpMethod,
  type QueryReader,
  type RouteSpec,
} from './routes.js';

/** One request, as a transport hands it over. */
export interface HttpRequest {
  readonly method: string;
  /** The path as sent, percent-encoding intact, without the query string. */
  readonly path: string;
  /** Decoded query parameters, every value of each in order. */
  readonly query?: Readonly<Record<string, readonly string[]>>;
  /** Header names in any case. */
  readonly headers?: Readonly<Record<string, string | undefined>>;
  readonly body?: string;
  /** The transport's request id (API Gateway's); generated when absent. */
  readonly requestId?: string;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON text, or undefined for an empty response (202, 204). */
  readonly body?: string;
}

export interface RouterOptions {
  readonly logger: Logger;
  /** Times requests for the debug log. @default Date.now */
  readonly clock?: Clock;
  /** @default 1 MiB */
  readonly maxBodyBytes?: number;
  /** @default crypto.randomUUID */
  readonly newRequestId?: () => string;
  /**
   * The metering: a request on a path that names a connector is work for that connector.
   * @default none
   */
  readonly usage?: UsageAttribution;
}

/** The largest request body accepted. */
export const MAX_BODY_BYTES = 1024 * 1024;

type Segment = { readonly literal: string } | { readonly param: string };

interface CompiledRoute {
  readonly spec: RouteSpec;
  readonly segments: readonly Segment[];
}

const INT = /^[+-]?\d{1,10}$/;

/** Validates the typed parameters: `{task}` is a Java int. */
function acceptsParam(name: string, value: string): boolean {
  if (name !== 'task') return true;
  const n = Number(value);
  return INT.test(value) && n >= -(2 ** 31) && n < 2 ** 31;
}

function compile(path: string): Segment[] {
  return splitRaw(path).map((s) =>
    s.startsWith('{') && s.endsWith('}') ? { param: s.slice(1, -1) } : { literal: s },
  );
}

/** `/a/b/` → `['a', 'b']`; `/` → `[]`. One trailing slash is ignored. */
function splitRaw(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const withoutLead = trimmed.startsWith('/') ? trimmed.slice(1) : trimmed;
  return withoutLead === '' ? [] : withoutLead.split('/');
}

function decodeSegments(path: string): string[] {
  try {
    return splitRaw(path).map((s) => decodeURIComponent(s));
  } catch {
    throw new BadRequestError('The request path is not valid percent-encoded UTF-8');
  }
}

function match(
  route: CompiledRoute,
  segments: readonly string[],
): Record<string, string> | undefined {
  if (route.segments.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of route.segments.entries()) {
    const value = segments[i] ?? '';
    if ('literal' in segment) {
      if (segment.literal !== value) return undefined;
    } else {
      if (value === '' || !acceptsParam(segment.param, value)) return undefined;
      params[segment.param] = value;
    }
  }
  return params;
}

function lowerCaseHeaders(
  headers: Readonly<Record<string, string | undefined>> | undefined,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) out.set(name.toLowerCase(), value);
  }
  return out;
}

function isJsonMediaType(contentType: string): boolean {
  const type = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

function queryReader(query: Readonly<Record<string, readonly string[]>> | undefined): QueryReader {
  const entries = new Map(Object.entries(query ?? {}));
  return {
    first: (name) => entries.get(name)?.[0],
    all: (name) => entries.get(name) ?? [],
  };
}

/** Routes requests to the service; see the module comment for the HTTP rules. */
export class Router {
  readonly #routes: readonly CompiledRoute[];
  readonly #hidden: readonly CompiledRoute[];
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #maxBodyBytes: number;
  readonly #newRequestId: () => string;
  readonly #usage: UsageAttribution | undefined;

  constructor(routes: readonly RouteSpec[], options: RouterOptions) {
    this.#routes = routes.map((spec) => ({ spec, segments: compile(spec.path) }));
    this.#hidden = HIDDEN_ROUTES.map((h) => ({
      spec: { ...h, readsBody: false } as RouteSpec,
      segments: compile(h.path),
    }));
    this.#logger = options.logger;
    this.#clock = options.clock ?? { now: () => Date.now() };
    this.#maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
    this.#newRequestId = options.newRequestId ?? randomUUID;
    this.#usage = options.usage;
  }

  /** Method and path template of every route, in table order. */
  get routes(): readonly { readonly method: HttpMethod; readonly path: string }[] {
    return this.#routes.map(({ spec }) => ({ method: spec.method, path: spec.path }));
  }

  /** Answers one request; never throws. */
  async handle(request: HttpRequest): Promise<HttpResponse> {
    const requestId = request.requestId ?? this.#newRequestId();
    const started = this.#clock.now();
    const method = request.method.toUpperCase();
    // HEAD is GET without the body, as JAX-RS answers it.
    const head = method === 'HEAD';
    let response: HttpResponse;
    try {
      response = await this.#dispatch(head ? 'GET' : method, request);
    } catch (error) {
      response = this.#errorResponse(error, requestId, method, request.path);
    }
    if (head) response = { status: response.status, headers: response.headers };
    // A call about a connector that does not exist is the shared line's, not a name's.
    if (response.status === 404) this.#usage?.assign(undefined);
    this.#logger.debug('request', {
      requestId,
      method,
      path: request.path,
      status: response.status,
      ms: this.#clock.now() - started,
    });
    return { ...response, headers: { ...response.headers, 'X-Request-Id': requestId } };
  }

  async #dispatch(method: string, request: HttpRequest): Promise<HttpResponse> {
    const segments = decodeSegments(request.path);
    const matches = this.#routes.flatMap((route) => {
      const params = match(route, segments);
      return params === undefined ? [] : [{ route, params }];
    });
    const found = matches.find((m) => m.route.spec.method === method);
    if (found === undefined) {
      const hidden = this.#hidden.some(
        (h) => h.spec.method === method && match(h, segments) !== undefined,
      );
      if (matches.length === 0 || hidden) throw new RestError(404, 'HTTP 404 Not Found');
      const allow = [...new Set(matches.map((m) => m.route.spec.method))].sort().join(', ');
      throw new MethodNotAllowedError(allow);
    }
    const connector = found.params.connector;
    if (connector !== undefined) this.#usage?.assign(connector);
    const body = this.#checkBody(found.route.spec, request);
    const result = await found.route.spec.handle({
      params: found.params,
      query: queryReader(request.query),
      body,
    });
    return result.body === undefined
      ? { status: result.status, headers: { ...result.headers } }
      : {
          status: result.status,
          headers: { 'Content-Type': 'application/json', ...result.headers },
          body: JSON.stringify(result.body),
        };
  }

  #checkBody(spec: RouteSpec, request: HttpRequest): string | undefined {
    const body = request.body;
    if (body === undefined || body === '') return undefined;
    if (body.length > this.#maxBodyBytes || Buffer.byteLength(body, 'utf8') > this.#maxBodyBytes) {
      throw new RestError(
        413,
        `The request body is larger than ${this.#maxBodyBytes} bytes, the most this API accepts`,
      );
    }
    if (!spec.readsBody) return undefined;
    const contentType = lowerCaseHeaders(request.headers).get('content-type');
    if (contentType !== undefined && !isJsonMediaType(contentType)) {
      throw new RestError(415, 'HTTP 415 Unsupported Media Type');
    }
    return body;
  }

  #errorResponse(error: unknown, requestId: string, method: string, path: string): HttpResponse {
    const mapped = mapError(error, requestId);
    const fields = { requestId, method, path, status: mapped.status };
    if (mapped.status >= 500) this.#logger.error('request failed', { ...fields, error });
    else this.#logger.warn('request rejected', { ...fields, message: mapped.body.message });
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (error instanceof MethodNotAllowedError) headers.Allow = error.allow;
    return { status: mapped.status, headers, body: JSON.stringify(mapped.body) };
  }
}

class MethodNotAllowedError extends RestError {
  readonly allow: string;
  constructor(allow: string) {
    super(405, 'HTTP 405 Method Not Allowed');
    this.allow = allow;
  }
}

/** The router of `service`'s routes, serving the OpenAPI description at `/openapi.json`. */
export function createRouter(service: ConnectService, options: RouterOptions): Router {
  return new Router(connectRoutes(service, openApiDocument), options);
}
