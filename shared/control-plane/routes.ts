/**
 * The route table: every public path of Kafka Connect's REST API, bound to the service.
 * Path templates use `{connector}`, `{task}` (an int: other values do not match, so they get
 * 404 as in Connect), `{plugin}` and `{logger}`; each parameter is one percent-decoded
 * segment. The OpenAPI description (openapi.ts) lists exactly these routes (a unit test checks).
 */
import type { ConnectService } from './connect-service.js';
import type { LoggerScope } from './loggers.js';
import { parseOffsetsBody } from './offsets.js';
import {
  parseCreateRequest,
  parseJsonBody,
  parseLevelRequest,
  toConfigInput,
} from './request-body.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Query parameters, each with all its values in order. */
export interface QueryReader {
  /** The first value, or `undefined`. */
  first(name: string): string | undefined;
  /** Every value (`expand=status&expand=info`). */
  all(name: string): readonly string[];
}

export interface RouteRequest {
  /** Decoded path parameters by template name. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: QueryReader;
  readonly body: string | undefined;
}

export interface RouteResult {
  readonly status: number;
  /** Serialised as JSON; no body when undefined. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RouteSpec {
  readonly method: HttpMethod;
  readonly path: string;
  /** True when the route reads a JSON body (Content-Type is checked). */
  readonly readsBody: boolean;
  handle(request: RouteRequest): Promise<RouteResult>;
}

/** Jersey's lenient boolean: `true` in any case is true, anything else false. */
function flag(query: QueryReader, name: string, fallback: boolean): boolean {
  const value = query.first(name);
  return value === undefined ? fallback : value.toLowerCase() === 'true';
}

function param(request: RouteRequest, name: string): string {
  return request.params[name] ?? '';
}

const ok = (body: unknown): RouteResult => ({ status: 200, body });
const empty = (status: number): RouteResult => ({ status });

/** The routes of `service`; `openApi` is served at `GET /openapi.json`. */
export function connectRoutes(service: ConnectService, openApi: unknown): RouteSpec[] {
  const { connectors, lifecycle, offsets, plugins, loggers, cost } = service;
  const c = (r: RouteRequest) => param(r, 'connector');
  const task = (r: RouteRequest) => Number(param(r, 'task'));
  const route = (
    method: HttpMethod,
    path: string,
    handle: (request: RouteRequest) => Promise<RouteResult> | RouteResult,
    readsBody = false,
  ): RouteSpec => ({ method, path, readsBody, handle: async (request) => handle(request) });

  return [
    route('GET', '/', () => ok(service.serverInfo())),
    route('GET', '/health', async () => {
      const { healthy, body } = await service.health();
      return healthy ? ok(body) : { status: 500, body: { error_code: 500, ...body } };
    }),
    route('GET', '/openapi.json', () => ok(openApi)),
    route('GET', '/connectors', async (r) => ok(await connectors.list(r.query.all('expand')))),
    route(
      'POST',
      '/connectors',
      async (r) => {
        const info = await connectors.create(parseCreateRequest(parseJsonBody(r.body)));
        return {
          status: 201,
          body: info,
          headers: { Location: `/connectors/${encodeURIComponent(info.name)}` },
        };
      },
      true,
    ),
    route('GET', '/connectors/{connector}', async (r) => ok(await connectors.info(c(r)))),
    route('DELETE', '/connectors/{connector}', async (r) => {
      await connectors.delete(c(r));
      return empty(204);
    }),
    route('GET', '/connectors/{connector}/config', async (r) => ok(await connectors.config(c(r)))),
    route(
      'PUT',
      '/connectors/{connector}/config',
      async (r) => {
        const result = await connectors.putConfig(c(r), toConfigInput(parseJsonBody(r.body)));
        return result.created
          ? {
              status: 201,
              body: result.info,
              headers: { Location: `/connectors/${encodeURIComponent(result.info.name)}` },
            }
          : ok(result.info);
      },
      true,
    ),
    route(
      'PATCH',
      '/connectors/{connector}/config',
      async (r) =>
        ok(await connectors.patchConfig(c(r), toConfigInput(parseJsonBody(r.body), 'The patch'))),
      true,
    ),
    route('GET', '/connectors/{connector}/status', async (r) => ok(await lifecycle.status(c(r)))),
    route('GET', '/connectors/{connector}/tasks', async (r) => ok(await connectors.tasks(c(r)))),
    route('GET', '/connectors/{connector}/tasks-config', async (r) =>
      ok(await connectors.tasksConfig(c(r))),
    ),
    route('GET', '/connectors/{connector}/tasks/{task}/status', async (r) =>
      ok(await lifecycle.taskStatus(c(r), task(r))),
    ),
    route('POST', '/connectors/{connector}/tasks/{task}/restart', async (r) => {
      await lifecycle.restartTask(c(r), task(r));
      return empty(204);
    }),
    route('POST', '/connectors/{connector}/restart', async (r) => {
      const status = await lifecycle.restart(c(r), {
        includeTasks: flag(r.query, 'includeTasks', false),
        onlyFailed: flag(r.query, 'onlyFailed', false),
      });
      return status === undefined ? empty(204) : { status: 202, body: status };
    }),
    route('PUT', '/connectors/{connector}/pause', async (r) => {
      await lifecycle.pause(c(r));
      return empty(202);
    }),
    route('PUT', '/connectors/{connector}/resume', async (r) => {
      await lifecycle.resume(c(r));
      return empty(202);
    }),
    route('PUT', '/connectors/{connector}/stop', async (r) => {
      await lifecycle.stop(c(r));
      return empty(204);
    }),
    route('GET', '/connectors/{connector}/offsets', async (r) => ok(await offsets.get(c(r)))),
    route(
      'PATCH',
      '/connectors/{connector}/offsets',
      async (r) => {
        // Parsed here first so a malformed body is a 400 even for an unknown connector.
        const body = parseJsonBody(r.body);
        parseOffsetsBody(body);
        return ok(await offsets.alter(c(r), body));
      },
      true,
    ),
    route('DELETE', '/connectors/{connector}/offsets', async (r) => ok(await offsets.reset(c(r)))),
    route('GET', '/connectors/{connector}/topics', async (r) => ok(await connectors.topics(c(r)))),
    route('PUT', '/connectors/{connector}/topics/reset', async (r) => {
      await connectors.resetTopics(c(r));
      return empty(202);
    }),
    // Our extension, not Apache Kafka Connect's: what the connector cost (docs/rest-api.md).
    route('GET', '/connectors/{connector}/cost', async (r) => ok(await cost.report(c(r)))),
    route('GET', '/connector-plugins', (r) =>
      ok(plugins.list(flag(r.query, 'connectorsOnly', true))),
    ),
    route('GET', '/connector-plugins/{plugin}/config', (r) =>
      ok(plugins.config(param(r, 'plugin'))),
    ),
    route(
      'PUT',
      '/connector-plugins/{plugin}/config/validate',
      async (r) =>
        ok(await plugins.validate(param(r, 'plugin'), toConfigInput(parseJsonBody(r.body)))),
      true,
    ),
    route('GET', '/admin/loggers', async () => ok(await loggers.list())),
    route('GET', '/admin/loggers/{logger}', async (r) => ok(await loggers.get(param(r, 'logger')))),
    route(
      'PUT',
      '/admin/loggers/{logger}',
      async (r) => {
        const scope: LoggerScope =
          r.query.first('scope')?.toLowerCase() === 'cluster' ? 'cluster' : 'worker';
        const level = parseLevelRequest(parseJsonBody(r.body));
        const affected = await loggers.set(param(r, 'logger'), level, scope);
        return affected === undefined ? empty(204) : ok(affected);
      },
      true,
    ),
  ];
}

/**
 * Worker-internal routes of Apache Kafka Connect, answered 404 as if absent (a method-mismatch
 * 405 would reveal them).
 */
export const HIDDEN_ROUTES: readonly { readonly method: string; readonly path: string }[] = [
  { method: 'POST', path: '/connectors/{connector}/tasks' },
];
