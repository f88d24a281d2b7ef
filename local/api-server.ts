import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import {
  type CredentialScheme,
  Principals,
  parseAuthorization,
} from '../shared/adapters/http-auth/credentials.js';
import { ConfigError } from '../shared/connect/errors.js';
import { MAX_BODY_BYTES } from '../shared/control-plane/router.js';
import { type Logger, silentLogger } from '../shared/ports/logger.js';
import { localLambdaContext } from './esm/lambda-context.js';

/**
 * The REST API on a plain node:http server: each request becomes the API Gateway proxy event
 * the Lambda handler receives and goes through the same `handleProxyEvent`, so local and AWS
 * share one translation and one router.
 *
 * @example
 * ```ts
 * const server = await startApiServer({ port: 8083, deps, service: { kafkaClusterId: 'local' } });
 * console.log(server.url); // http://127.0.0.1:8083
 * await server.close();
 * ```
 */

/** Credentials the server requires (either or both). */
export interface ApiServerAuth {
  /** `Authorization: Bearer <token>`. */
  readonly bearerToken?: string;
  /** `Authorization: Basic base64(<username>:<password>)`. */
  readonly basic?: { readonly username: string; readonly password: string };
}

interface CommonOptions {
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** 0 picks a free port. @default 8083 (Kafka Connect's) */
  readonly port?: number;
  /**
   * Optional on a loopback address (without it, no authentication); required on any other
   * address: the server refuses to start without credentials.
   */
  readonly auth?: ApiServerAuth;
  /** @default silentLogger */
  readonly logger?: Logger;
}

/** The API function's handler (functions/api/handler.ts `apiHandler`), invoked per request. */
export type ApiHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

export interface ApiServerOptions extends CommonOptions {
  readonly handler: ApiHandler;
}

/** API Gateway's integration timeout, the local requests' time budget. */
const API_TIMEOUT_MS = 29_000;

export interface RunningApiServer {
  /** `http://<host>:<port>`. */
  readonly url: string;
  close(): Promise<void>;
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\./.test(h) || /^::ffff:127\./.test(h);
}

/** The server's credentials as principals: the Basic user, and `bearer` for the token. */
function principalsOf(auth: ApiServerAuth): {
  principals: Principals;
  schemes: CredentialScheme[];
} {
  const schemes: CredentialScheme[] = [];
  if (auth.basic !== undefined) schemes.push('basic');
  if (auth.bearerToken !== undefined) schemes.push('bearer');
  return {
    principals: new Principals(
      new Map([
        ...(auth.basic === undefined
          ? []
          : [[auth.basic.username, [auth.basic.password]] as const]),
        ...(auth.bearerToken === undefined
          ? []
          : [[BEARER_PRINCIPAL, [auth.bearerToken]] as const]),
      ]),
    ),
    schemes,
  };
}

/** A principal name no Basic user can have (RFC 7617: no colon): the token's. */
const BEARER_PRINCIPAL = ':bearer';

/**
 * Whether the header carries the server's credentials: the Basic pair, or the token as Bearer
 * (compared in constant time, shared/adapters/http-auth).
 */
function authorized(
  header: string | undefined,
  { principals, schemes }: ReturnType<typeof principalsOf>,
): boolean {
  const presented = parseAuthorization(header, schemes);
  if (presented === undefined) return false;
  const principal = principals.authenticate(presented);
  // A Bearer token is accepted only as the token, never as the Basic password.
  return presented.scheme === 'bearer' ? principal === BEARER_PRINCIPAL : principal !== undefined;
}

function checkAuth(host: string, auth: ApiServerAuth | undefined): void {
  if (auth?.bearerToken === '' || auth?.basic?.password === '') {
    throw new ConfigError('API server credentials must not be empty', 'auth');
  }
  const hasCredentials = auth?.bearerToken !== undefined || auth?.basic !== undefined;
  if (!hasCredentials && !isLoopback(host)) {
    throw new ConfigError(
      `Refusing to serve the REST API on ${host} without credentials: set auth.bearerToken or auth.basic, or listen on 127.0.0.1`,
      'auth',
    );
  }
}

/** The API Gateway REST proxy event (v1) of a node:http request. */
export function toProxyEvent(
  req: IncomingMessage,
  body: string | null,
  requestId: string,
): APIGatewayProxyEvent {
  const url = req.url ?? '/';
  const cut = url.indexOf('?');
  let path = cut < 0 ? url : url.slice(0, cut);
  if (!path.startsWith('/')) path = path.replace(/^[a-z]+:\/\/[^/]*/i, '') || '/';
  const grouped = new Map<string, string[]>();
  for (const [key, value] of new URLSearchParams(cut < 0 ? '' : url.slice(cut + 1))) {
    grouped.set(key, [...(grouped.get(key) ?? []), value]);
  }
  const multi = Object.fromEntries(grouped);
  const single = Object.fromEntries([...grouped].map(([k, v]) => [k, v.at(-1) ?? '']));
  const headers = Object.fromEntries(
    Object.entries(req.headers).flatMap(([k, v]) =>
      v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v]],
    ),
  );
  const hasQuery = grouped.size > 0;
  return {
    resource: '/{proxy+}',
    path,
    httpMethod: req.method ?? 'GET',
    headers,
    multiValueHeaders: {},
    queryStringParameters: hasQuery ? single : null,
    multiValueQueryStringParameters: hasQuery ? multi : null,
    pathParameters: { proxy: path.slice(1) },
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      authorizer: null,
      httpMethod: req.method ?? 'GET',
      identity: { sourceIp: req.socket.remoteAddress ?? '' },
      path,
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: '/{proxy+}',
      stage: '$default',
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

/** Reads the body, keeping at most `limit + 1` bytes (the router answers 413 beyond `limit`). */
function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ body: Buffer; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve({ body: Buffer.concat(chunks).subarray(0, limit + 1), tooLarge: true });
      }
    };
    req.on('data', onData);
    req.once('end', () => resolve({ body: Buffer.concat(chunks), tooLarge: false }));
    req.once('error', reject);
  });
}

let sequence = 0;

/** Starts the server; resolves once it listens. */
export async function startApiServer(options: ApiServerOptions): Promise<RunningApiServer> {
  const host = options.host ?? '127.0.0.1';
  checkAuth(host, options.auth);
  const logger = options.logger ?? silentLogger;
  const { auth, handler } = options;
  const credentials = auth === undefined ? undefined : principalsOf(auth);

  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    sequence += 1;
    const requestId = `local-${process.pid}-${sequence}`;
    if (
      auth !== undefined &&
      credentials !== undefined &&
      !authorized(req.headers.authorization, credentials)
    ) {
      req.resume();
      res.writeHead(401, {
        'Content-Type': 'application/json',
        'WWW-Authenticate':
          auth.basic !== undefined ? 'Basic realm="serverless-connect"' : 'Bearer',
        'X-Request-Id': requestId,
      });
      res.end(JSON.stringify({ error_code: 401, message: 'User cannot access the resource.' }));
      return;
    }
    const { body, tooLarge } = await readBody(req, MAX_BODY_BYTES);
    const event = toProxyEvent(req, body.length === 0 ? null : body.toString('utf8'), requestId);
    const result = await handler(
      event,
      localLambdaContext({ functionName: 'api', timeoutMs: API_TIMEOUT_MS, requestId }),
    );
    const headers = Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]),
    );
    if (tooLarge) {
      headers.Connection = 'close';
      res.once('finish', () => req.destroy());
    }
    res.writeHead(result.statusCode, headers);
    res.end(result.body === '' ? undefined : result.body);
  };

  const server = createServer((req, res) => {
    respond(req, res).catch((error: unknown) => {
      logger.error('local API server failed to answer', { error });
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error_code: 500, message: 'Internal server error' }));
      } else {
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8083, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
