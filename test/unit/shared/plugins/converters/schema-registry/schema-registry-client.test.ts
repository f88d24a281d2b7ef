/**
 * What the real registry (test/integration/converters/schema-registry-client.int.test.ts)
 * cannot be made to do: authentication, 5xx answers, answers that never come, malformed
 * bodies. A loopback HTTP server plays the registry.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectError, DataError } from '../../../../../../shared/connect/errors.js';
import {
  SchemaRegistryAuthError,
  SchemaRegistryUnavailableError,
} from '../../../../../../shared/plugins/converters/schema-registry/errors.js';
import {
  SCHEMA_REGISTRY_CONFIG_DEF,
  schemaRegistrySettingsOf,
} from '../../../../../../shared/plugins/converters/schema-registry/registry-config.js';
import {
  type RegistrySchema,
  SchemaRegistryClient,
} from '../../../../../../shared/plugins/converters/schema-registry/schema-registry-client.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string;
}

type Handler = (request: Seen, response: ServerResponse) => void;

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((resolve) => s.close(resolve));
    }),
  );
});

/** A fake registry on a loopback port; `seen` collects its requests. */
async function fakeRegistry(handler: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      const request: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        body,
      };
      seen.push(request);
      handler(request, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, seen };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/vnd.schemaregistry.v1+json' });
  res.end(JSON.stringify(body));
}

function client(props: Record<string, string>): SchemaRegistryClient {
  const settings = schemaRegistrySettingsOf(SCHEMA_REGISTRY_CONFIG_DEF.parse(props), props);
  return new SchemaRegistryClient(settings, {
    fetch: (url, init) => fetch(url, init),
    clock: { now: () => 0 },
  });
}

const AVRO: RegistrySchema = { schemaType: 'AVRO', schema: '"string"', references: [] };

describe('SchemaRegistryClient over HTTP', () => {
  it('sends basic credentials from basic.auth.user.info, the URL without them', async () => {
    const registry = await fakeRegistry((_req, res) => json(res, 200, { id: 7 }));
    const sr = client({
      'schema.registry.url': registry.url,
      'basic.auth.credentials.source': 'USER_INFO',
      'basic.auth.user.info': 'alice:s3cr€t',
    });

    expect(await sr.register('orders-value', AVRO)).toBe(7);

    const expected = `Basic ${Buffer.from('alice:s3cr€t', 'utf8').toString('base64')}`;
    expect(registry.seen[0]).toMatchObject({
      method: 'POST',
      url: '/subjects/orders-value/versions',
      authorization: expected,
      contentType: 'application/vnd.schemaregistry.v1+json',
    });
  });

  it("takes each URL's own user info with the URL credentials source", async () => {
    const first = await fakeRegistry((_req, res) => json(res, 503, { error_code: 50301 }));
    const second = await fakeRegistry((_req, res) => json(res, 200, { id: 1 }));
    const withUser = (url: string, user: string) => url.replace('//', `//${user}:p%40ss@`);
    const sr = client({
      'schema.registry.url': `${withUser(first.url, 'one')},${withUser(second.url, 'two')}`,
    });

    await sr.register('s', AVRO);

    const basic = (user: string) => `Basic ${Buffer.from(`${user}:p@ss`).toString('base64')}`;
    expect(first.seen[0]?.authorization).toBe(basic('one'));
    expect(second.seen[0]?.authorization).toBe(basic('two'));
  });

  it('refuses bad credentials as an error that is neither retriable nor a record error, without the secret', async () => {
    const registry = await fakeRegistry((_req, res) =>
      json(res, 401, { error_code: 401, message: 'Unauthorized' }),
    );
    const sr = client({
      'schema.registry.url': registry.url.replace('//', '//bob:hunter2@'),
    });

    const error = await sr.schemaById(1).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SchemaRegistryAuthError);
    expect(error).not.toBeInstanceOf(DataError);
    expect((error as ConnectError).retriable).toBe(false);
    const message = (error as Error).message;
    expect(message).toContain('Unauthorized');
    expect(message).toContain(registry.url);
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain(Buffer.from('bob:hunter2').toString('base64'));
  });

  it('fails over on 503 and stays on the URL that answered', async () => {
    const down = await fakeRegistry((_req, res) =>
      json(res, 503, { error_code: 50301, message: 'busy' }),
    );
    const up = await fakeRegistry((_req, res) =>
      json(res, 200, { schema: '"string"', references: [] }),
    );
    const sr = client({ 'schema.registry.url': `${down.url},${up.url}` });

    await sr.schemaById(1);
    await sr.schemaById(2);

    expect(down.seen).toHaveLength(1);
    expect(up.seen.map((r) => r.url)).toEqual(['/schemas/ids/1', '/schemas/ids/2']);
  });

  it('is retriable when every URL answers 5xx, with the last answer in the message', async () => {
    const html = await fakeRegistry((_req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end('<html>Bad Gateway</html>');
    });
    const sr = client({ 'schema.registry.url': html.url });

    const error = await sr.latest('orders-value').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SchemaRegistryUnavailableError);
    expect(error).toMatchObject({ retriable: true, status: 502 });
    expect((error as Error).message).toContain('<html>Bad Gateway</html>');
    expect((error as Error).message).toContain('GET /subjects/orders-value/versions/latest');
  });

  it('gives up on an answer that does not come within the timeouts, retriably', async () => {
    const silent = await fakeRegistry(() => undefined);
    const sr = client({
      'schema.registry.url': silent.url,
      'http.connect.timeout.ms': '1',
      'http.read.timeout.ms': '100',
    });

    const error = await sr.schemaById(1).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SchemaRegistryUnavailableError);
    expect((error as Error).message).toContain('timed out');
  });

  it('refuses a 200 whose body is not what the API promises', async () => {
    const odd = await fakeRegistry((_req, res) => json(res, 200, { schemaId: 1 }));
    const error = await client({ 'schema.registry.url': odd.url })
      .schemaById(1)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).retriable).toBe(false);
  });

  it('sends schemaType and references for other formats, leaves them out for Avro, and encodes the subject', async () => {
    const registry = await fakeRegistry((_req, res) => json(res, 200, { id: 3 }));
    const sr = client({ 'schema.registry.url': `${registry.url}/apis/ccompat/v7/` });
    const proto: RegistrySchema = {
      schemaType: 'PROTOBUF',
      schema: 'syntax = "proto3"; import "other.proto"; message A { Other o = 1; }',
      references: [{ name: 'other.proto', subject: 'other', version: 2 }],
    };

    await sr.register('a topic/value', proto, { normalize: true });
    await sr.register('plain', AVRO);

    expect(registry.seen.map((r) => r.url)).toEqual([
      '/apis/ccompat/v7/subjects/a%20topic%2Fvalue/versions?normalize=true',
      '/apis/ccompat/v7/subjects/plain/versions',
    ]);
    expect(JSON.parse(registry.seen[0]?.body ?? '')).toEqual({
      schemaType: 'PROTOBUF',
      schema: proto.schema,
      references: proto.references,
    });
    expect(JSON.parse(registry.seen[1]?.body ?? '')).toEqual({ schema: '"string"' });
  });
});
