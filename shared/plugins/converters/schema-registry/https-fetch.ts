/**
 * A `fetch` for `https` registry URLs with the converter's own TLS settings (trusted CAs, a client
 * certificate): Node's global `fetch` takes none per request, so these requests go through
 * `node:https` with one keep-alive agent per client. Other URLs go to the `fetch` given.
 *
 * A failed request rejects as `fetch` does (a TypeError whose `cause` carries the system or TLS
 * error code), so the client words and classifies it the same way.
 */
import { Agent, request } from 'node:https';
import type { FetchLike } from './registry-rest.js';
import type { RegistryTls } from './registry-tls.js';

/** Statuses whose response has no body (the `Response` constructor refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/** `fetch` over `node:https` with `tls` for https URLs, `fallback` for the others. */
export function httpsFetch(tls: RegistryTls, fallback: FetchLike): FetchLike {
  const agent = new Agent({
    keepAlive: true,
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls.cert === undefined ? {} : { cert: tls.cert }),
    ...(tls.key === undefined ? {} : { key: tls.key.value() }),
    ...(tls.pfx === undefined ? {} : { pfx: tls.pfx }),
    ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase.value() }),
    ...(tls.checkServerIdentity ? {} : { checkServerIdentity: () => undefined }),
  });
  return (url, init) => {
    if (!url.startsWith('https:')) return fallback(url, init);
    return new Promise<Response>((resolve, reject) => {
      const failed = (error: unknown) => reject(new TypeError('fetch failed', { cause: error }));
      const req = request(
        url,
        {
          method: init.method ?? 'GET',
          headers: init.headers as Record<string, string>,
          agent,
          ...(init.signal === null || init.signal === undefined ? {} : { signal: init.signal }),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', failed);
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            resolve(new Response(NO_BODY.has(status) ? null : Buffer.concat(chunks), { status }));
          });
        },
      );
      req.on('error', (error) =>
        error.name === 'AbortError' && init.signal?.reason !== undefined
          ? reject(init.signal.reason)
          : failed(error),
      );
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
  };
}
