import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { HttpRequest, Router } from '../../shared/control-plane/router.js';

/**
 * API Gateway REST proxy events (payload v1, resource `/{proxy+}`) ⇄ the router's requests
 * and responses. The Lambda handler and the local HTTP server both go through
 * {@link handleProxyEvent}, so the translation exists once.
 */

function decodeOrSelf(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The request path with its percent-encoding intact, without the stage or base path. REST APIs
 * deliver `path` still encoded; `requestContext.path` is the path as the client sent it behind
 * the stage (`/prod/connectors/a%2Fb`) or a custom domain's base path. The suffix of
 * `requestContext.path` that decodes to the same text as `path` is preferred, so an encoded
 * `/` survives even where `path` arrives decoded.
 */
export function rawPathOf(event: Pick<APIGatewayProxyEvent, 'path' | 'requestContext'>): string {
  const path = event.path || '/';
  const sent = event.requestContext?.path;
  if (typeof sent !== 'string' || sent === path || !sent.startsWith('/')) return path;
  const wanted = new Set([path, decodeOrSelf(path)]);
  const segments = sent.split('/');
  for (let skip = 0; skip < segments.length - 1; skip += 1) {
    const suffix = `/${segments.slice(skip + 1).join('/')}`;
    if (suffix === path || wanted.has(decodeOrSelf(suffix))) return suffix;
  }
  return path;
}

/** The router request of a proxy event. */
export function toHttpRequest(event: APIGatewayProxyEvent): HttpRequest {
  const multi = event.multiValueQueryStringParameters ?? {};
  const single = event.queryStringParameters ?? {};
  const query: Record<string, string[]> = Object.fromEntries([
    ...Object.entries(single).flatMap(([k, v]) => (v === undefined ? [] : [[k, [v]]])),
    ...Object.entries(multi).flatMap(([k, v]) => (v === undefined ? [] : [[k, [...v]]])),
  ]);
  const body =
    event.body === null || event.body === undefined
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  const requestId = event.requestContext?.requestId;
  return {
    method: String(event.httpMethod ?? 'GET'),
    path: rawPathOf(event),
    query,
    headers: event.headers ?? {},
    ...(body === undefined ? {} : { body }),
    ...(requestId ? { requestId } : {}),
  };
}

/** Routes one proxy event and returns the proxy result. Never throws. */
export async function handleProxyEvent(
  router: Router,
  event: APIGatewayProxyEvent,
): Promise<APIGatewayProxyResult> {
  const response = await router.handle(toHttpRequest(event));
  return {
    statusCode: response.status,
    headers: { ...response.headers },
    body: response.body ?? '',
  };
}
