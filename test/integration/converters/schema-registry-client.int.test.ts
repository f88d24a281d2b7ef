import { createServer } from 'node:net';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ErrorCodes,
  SchemaRegistryRequestError,
  SchemaRegistryUnavailableError,
} from '../../../shared/plugins/converters/schema-registry/errors.js';
import {
  SCHEMA_REGISTRY_CONFIG_DEF,
  schemaRegistrySettingsOf,
} from '../../../shared/plugins/converters/schema-registry/registry-config.js';
import {
  type FetchLike,
  type RegistrySchema,
  SchemaRegistryClient,
} from '../../../shared/plugins/converters/schema-registry/schema-registry-client.js';
import { uniqueName } from '../../support/services.js';

/** A URL on a loopback port nothing listens on: connections are refused at once. */
let DEAD_URL = '';

beforeAll(async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  DEAD_URL = `http://127.0.0.1:${port}`;
});

function avro(fields: readonly object[], name = 'Order'): RegistrySchema {
  return {
    schemaType: 'AVRO',
    schema: JSON.stringify({ type: 'record', name, namespace: 'test', fields }),
    references: [],
  };
}

const V1 = avro([{ name: 'id', type: 'string' }]);
const V2 = avro([
  { name: 'id', type: 'string' },
  { name: 'qty', type: 'int', default: 0 },
]);
/** `id` turned into an int: incompatible with V1 under BACKWARD. */
const INCOMPATIBLE = avro([{ name: 'id', type: 'int' }]);

/** Real fetch, with every request's method and URL written down. */
function countingFetch(): { fetch: FetchLike; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    fetch: (url, init) => {
      calls.push(`${init.method} ${url}`);
      return fetch(url, init);
    },
  };
}

function client(
  props: Record<string, string> = {},
  deps: { fetch?: FetchLike; now?: () => number } = {},
): SchemaRegistryClient {
  const all = { 'schema.registry.url': inject('schemaRegistryUrl'), ...props };
  const settings = schemaRegistrySettingsOf(SCHEMA_REGISTRY_CONFIG_DEF.parse(all), all);
  return new SchemaRegistryClient(settings, {
    fetch: deps.fetch ?? ((url, init) => fetch(url, init)),
    clock: { now: deps.now ?? (() => 0) },
  });
}

describe('SchemaRegistryClient against the real registry', () => {
  it('registers a schema, and gives the same id when it is registered again', async () => {
    const subject = uniqueName('orders-value');
    const id = await client().register(subject, V1);
    const again = await client().register(subject, V1);
    expect(again).toBe(id);
  });

  it('looks up the id and version of a registered schema', async () => {
    const subject = uniqueName('orders-value');
    const id = await client().register(subject, V1);
    const found = await client().lookup(subject, V1);
    expect(found).toMatchObject({ subject, id, version: 1, schemaType: 'AVRO' });
    expect(JSON.parse(found.schema)).toEqual(JSON.parse(V1.schema));
  });

  it('fetches a schema by its id', async () => {
    const id = await client().register(uniqueName('orders-value'), V2);
    const schema = await client().schemaById(id);
    expect(schema.schemaType).toBe('AVRO');
    expect(JSON.parse(schema.schema)).toEqual(JSON.parse(V2.schema));
  });

  it('reads the latest version of a subject', async () => {
    const subject = uniqueName('orders-value');
    const sr = client();
    await sr.register(subject, V1);
    const id2 = await sr.register(subject, V2);
    const latest = await client().latest(subject);
    expect(latest).toMatchObject({ subject, id: id2, version: 2 });
  });

  it('refuses an incompatible schema with 409 under BACKWARD, and says so when asked', async () => {
    const subject = uniqueName('orders-value');
    const sr = client();
    // Apicurio's default compatibility is NONE (Confluent's BACKWARD).
    await sr.setCompatibility(subject, 'BACKWARD');
    await sr.register(subject, V1);
    expect(await sr.isCompatible(subject, V2)).toBe(true);
    expect(await sr.isCompatible(subject, INCOMPATIBLE)).toBe(false);
    const error = await sr.register(subject, INCOMPATIBLE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRegistryRequestError);
    expect(error).toMatchObject({ status: 409, errorCode: ErrorCodes.INCOMPATIBLE_SCHEMA });
    expect((error as Error).message).toContain(`POST /subjects/${subject}/versions`);
    expect((error as SchemaRegistryRequestError).retriable).toBe(false);
  });

  it('reports an unknown schema id as a record error with code 40403', async () => {
    const error = await client()
      .schemaById(2_000_000_000)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRegistryRequestError);
    expect(error).toMatchObject({ status: 404, errorCode: ErrorCodes.SCHEMA_NOT_FOUND });
    expect((error as Error).message).toContain('GET /schemas/ids/2000000000');
  });

  it('reports an invalid schema with 422 (42201)', async () => {
    const invalid: RegistrySchema = {
      schemaType: 'AVRO',
      schema: '{"type":"nope"}',
      references: [],
    };
    const error = await client()
      .register(uniqueName('bad-value'), invalid)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRegistryRequestError);
    expect(error).toMatchObject({ status: 422, errorCode: ErrorCodes.INVALID_SCHEMA });
  });

  it('fails over from a URL that refuses connections, and then stays on the one that answered', async () => {
    const counted = countingFetch();
    const sr = client(
      { 'schema.registry.url': `${DEAD_URL},${inject('schemaRegistryUrl')}` },
      { fetch: counted.fetch },
    );
    const subject = uniqueName('orders-value');
    const id = await sr.register(subject, V1);
    expect(await sr.schemaById(id)).toBeDefined();
    await sr.latest(subject);
    const dead = counted.calls.filter((call) => call.includes(`${DEAD_URL}/`));
    expect(dead).toEqual([`POST ${DEAD_URL}/subjects/${subject}/versions`]);
  });

  it('is retriable when no URL answers', async () => {
    const error = await client({ 'schema.registry.url': `${DEAD_URL},${DEAD_URL}/again` })
      .schemaById(1)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRegistryUnavailableError);
    expect((error as SchemaRegistryUnavailableError).retriable).toBe(true);
    expect((error as Error).message).toContain('ECONNREFUSED');
  });
});

describe('SchemaRegistryClient caches', () => {
  it('answers from its cache what it registered or looked up before', async () => {
    const counted = countingFetch();
    const sr = client({}, { fetch: counted.fetch });
    const subject = uniqueName('orders-value');

    const id = await sr.register(subject, V1);
    await sr.register(subject, V1);
    await sr.schemaById(id);
    await sr.lookup(subject, V1);
    await sr.lookup(subject, V1);
    await sr.register(subject, V1);

    expect(counted.calls.map((call) => call.split(' ')[0])).toEqual(['POST', 'POST']);
  });

  it('shares one request among concurrent readers of an unseen id', async () => {
    const id = await client().register(uniqueName('orders-value'), V2);
    const counted = countingFetch();
    const reader = client({}, { fetch: counted.fetch });

    const schemas = await Promise.all(Array.from({ length: 10 }, () => reader.schemaById(id)));
    await reader.schemaById(id);

    expect(new Set(schemas.map((s) => s.schema)).size).toBe(1);
    expect(counted.calls).toHaveLength(1);
  });

  it('keeps the latest version for latest.cache.ttl.sec, then asks again', async () => {
    const subject = uniqueName('orders-value');
    await client().register(subject, V1);
    const counted = countingFetch();
    let now = 0;
    const sr = client({ 'latest.cache.ttl.sec': '60' }, { fetch: counted.fetch, now: () => now });

    await sr.latest(subject);
    now = 59_000;
    await sr.latest(subject);
    expect(counted.calls).toHaveLength(1);
    await client().register(subject, V2);
    now = 60_000;
    expect((await sr.latest(subject)).version).toBe(2);
    expect(counted.calls).toHaveLength(2);
  });

  it('forgets the least recently used schemas beyond schemas.cache.size', async () => {
    const writer = client();
    const subject = uniqueName('orders-value');
    const ids = [
      await writer.register(subject, V1),
      await writer.register(subject, V2),
      await writer.register(uniqueName('other-value'), INCOMPATIBLE),
    ];
    const counted = countingFetch();
    const reader = client({ 'schemas.cache.size': '2' }, { fetch: counted.fetch });

    for (const id of ids) await reader.schemaById(id);
    await reader.schemaById(ids[2] as number);
    await reader.schemaById(ids[0] as number);

    // The third id pushed the first out: reading it again costs a request; the third did not.
    expect(counted.calls).toHaveLength(4);
  });
});
