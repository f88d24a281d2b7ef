/**
 * What the schema-registry converter tests share: a container's registry clients whose requests
 * are listed, and a URL where no registry answers.
 */
import { createServer } from 'node:net';
import { SchemaRegistryClients } from '../../../shared/plugins/converters/schema-registry/schema-registry-client.js';

/**
 * Registry clients as a warm container holds them, over the real `fetch`; `requests` lists each
 * request as `METHOD /path` (the path after `registryUrl`).
 */
export function countingRegistryClients(registryUrl: () => string): {
  readonly clients: SchemaRegistryClients;
  readonly requests: string[];
} {
  const requests: string[] = [];
  const clients = new SchemaRegistryClients({
    clock: { now: () => Date.now() },
    fetch: (url, init) => {
      requests.push(`${init.method} ${decodeURIComponent(url.slice(registryUrl().length))}`);
      return fetch(url, init);
    },
  });
  return { clients, requests };
}

/** A base URL on a loopback port nothing listens on (the registry is down). */
export async function unreachableRegistryUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
