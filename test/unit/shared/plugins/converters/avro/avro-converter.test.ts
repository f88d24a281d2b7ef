/**
 * The AvroConverter without a registry round trip that matters: configuration errors, which
 * subject each strategy registers under, tombstones and bad bytes (no registry call at all), and
 * the synchronous answer once a schema is known. A fake `fetch` plays the registry's register
 * and id endpoints; the real registry is in test/integration/converters/avro-converter.int.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { isPromiseLike } from '../../../../../../shared/connect/converter.js';
import {
  ConfigError,
  DataError,
  IllegalStateError,
} from '../../../../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../../../../shared/connect/headers.js';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import { AvroConverter } from '../../../../../../shared/plugins/converters/avro/avro-converter.js';
import { SchemaRegistryClients } from '../../../../../../shared/plugins/converters/schema-registry/schema-registry-client.js';

const URL_PROPS = { 'schema.registry.url': 'http://registry.test:8081' };

/** A registry that registers every schema under a new id and answers by id; `requests` lists calls. */
function fakeRegistry() {
  const requests: string[] = [];
  const byId = new Map<number, string>();
  const clients = new SchemaRegistryClients({
    clock: { now: () => 0 },
    fetch: async (url, init) => {
      const path = url.replace('http://registry.test:8081', '');
      requests.push(`${init.method} ${decodeURIComponent(path)}`);
      const body = JSON.parse(String(init.body ?? '{}')) as { schema?: string };
      let answer: unknown = { error_code: 40401, message: 'Subject not found' };
      let status = 404;
      const registered = /^\/subjects\/([^/]+)\/versions$/.exec(path);
      const byIdPath = /^\/schemas\/ids\/(\d+)$/.exec(path);
      const lookup = /^\/subjects\/([^/]+)$/.exec(path);
      if (init.method === 'POST' && registered !== null && body.schema !== undefined) {
        const id = byId.size + 1;
        byId.set(id, body.schema);
        [status, answer] = [200, { id }];
      } else if (init.method === 'GET' && byIdPath !== null) {
        const schema = byId.get(Number(byIdPath[1]));
        if (schema !== undefined) [status, answer] = [200, { schema }];
        else answer = { error_code: 40403, message: 'Schema not found' };
      } else if (init.method === 'POST' && lookup !== null && body.schema !== undefined) {
        const id = [...byId].find(([, text]) => text === body.schema)?.[0];
        if (id !== undefined) {
          const subject = decodeURIComponent(lookup[1] as string);
          [status, answer] = [200, { subject, id, version: 1, schema: body.schema }];
        }
      }
      return new Response(JSON.stringify(answer), { status });
    },
  });
  return { clients, requests };
}

function converter(props: Record<string, string> = {}, isKey = false) {
  const registry = fakeRegistry();
  const avro = new AvroConverter(registry.clients);
  avro.configure({ ...URL_PROPS, ...props }, isKey);
  return { avro, requests: registry.requests };
}

const ORDER = SchemaBuilder.struct()
  .name('com.example.Order')
  .field('id', Schemas.INT64)
  .field('note', Schemas.OPTIONAL_STRING)
  .build();
const order = (id: number) => new Struct(ORDER).put('id', id);

describe('AvroConverter configuration', () => {
  it('requires schema.registry.url', () => {
    expect(() => new AvroConverter(fakeRegistry().clients).configure({}, false)).toThrow(
      'Missing required configuration "schema.registry.url" which has no default value.',
    );
  });

  it.each([
    ['value.subject.name.strategy', 'io.confluent.kafka.serializers.subject.NoSuchStrategy'],
    ['auto.register.schemas', 'maybe'],
    ['generalized.sum.type.support', 'true'],
    ['flatten.singleton.unions', 'false'],
    ['schemas.cache.size', '-1'],
  ])('refuses %s=%s with a ConfigError naming the key', (key, value) => {
    const configure = () =>
      new AvroConverter(fakeRegistry().clients).configure({ ...URL_PROPS, [key]: value }, false);

    expect(configure).toThrow(ConfigError);
    expect(configure).toThrow(`for configuration ${key}`);
  });

  it('hides basic.auth.user.info as a password in its ConfigDef', () => {
    expect(new AvroConverter().config().configKey('basic.auth.user.info')?.type).toBe('PASSWORD');
  });

  it('throws IllegalStateError when used before configure', () => {
    const avro = new AvroConverter(fakeRegistry().clients);
    expect(() => avro.toConnectData('orders', EMPTY_HEADERS, new Uint8Array(6))).toThrow(
      IllegalStateError,
    );
  });
});

describe('AvroConverter subjects', () => {
  it.each([
    [{}, false, 'orders-value'],
    [{}, true, 'orders-key'],
    [{ 'value.subject.name.strategy': 'RecordNameStrategy' }, false, 'com.example.Order'],
    [
      {
        'key.subject.name.strategy':
          'io.confluent.kafka.serializers.subject.TopicRecordNameStrategy',
      },
      true,
      'orders-com.example.Order',
    ],
  ])('with %j (key: %s) registers under %s', async (props, isKey, subject) => {
    const { avro, requests } = converter(props, isKey);

    await avro.fromConnectData('orders', EMPTY_HEADERS, ORDER, order(1));

    expect(requests).toEqual([`POST /subjects/${subject}/versions`]);
  });

  it('refuses a schema that is not a record under RecordNameStrategy, with Confluent’s message', async () => {
    const { avro } = converter({ 'value.subject.name.strategy': 'RecordNameStrategy' });

    const written = Promise.resolve().then(() =>
      avro.fromConnectData('orders', EMPTY_HEADERS, Schemas.STRING, 'text'),
    );

    await expect(written).rejects.toThrow(DataError);
    await expect(written).rejects.toThrow(
      'In configuration value.subject.name.strategy = io.confluent.kafka.serializers.subject.RecordNameStrategy, the message value must only be a record schema',
    );
  });
});

describe('AvroConverter conversions', () => {
  it('answers synchronously once the schema id is known, with the same bytes', async () => {
    const { avro, requests } = converter();

    const first = avro.fromConnectData('orders', EMPTY_HEADERS, ORDER, order(1));
    const second = avro.fromConnectData('orders', EMPTY_HEADERS, ORDER, order(1));
    const firstBytes = await first;

    expect(isPromiseLike(first)).toBe(true);
    expect(isPromiseLike(second)).toBe(true); // asked before the first answer came
    expect(await second).toEqual(firstBytes);
    const third = avro.fromConnectData('orders', EMPTY_HEADERS, ORDER, order(1));
    expect(isPromiseLike(third)).toBe(false);
    expect(third).toEqual(firstBytes);
    expect(requests).toHaveLength(1);
  });

  it('writes a tombstone for a null value of an optional or absent schema, calling no registry', () => {
    const { avro, requests } = converter();
    const optional = SchemaBuilder.struct().name('x.Y').optional().build();

    expect(avro.fromConnectData('orders', EMPTY_HEADERS, optional, null)).toBeNull();
    expect(avro.fromConnectData('orders', EMPTY_HEADERS, null, null)).toBeNull();
    expect(avro.toConnectData('orders', EMPTY_HEADERS, null)).toEqual({
      schema: null,
      value: null,
    });
    expect(requests).toEqual([]);
  });

  it('refuses null for a required schema and a schemaless value as DataErrors', () => {
    const { avro } = converter();

    expect(() => avro.fromConnectData('orders', EMPTY_HEADERS, ORDER, null)).toThrow(
      'Failed to serialize Avro data from topic orders: Found null value for non-optional schema',
    );
    expect(() => avro.fromConnectData('orders', EMPTY_HEADERS, null, { id: 1 })).toThrow(DataError);
  });

  it('refuses bytes that are not the wire format without asking the registry', () => {
    const { avro, requests } = converter();

    const read = () => avro.toConnectData('orders', EMPTY_HEADERS, new Uint8Array([1, 0, 0, 0]));

    expect(read).toThrow(DataError);
    expect(read).toThrow(
      /^Failed to deserialize data for topic orders to Avro: Unknown magic byte/,
    );
    expect(requests).toEqual([]);
  });

  it('reads back what it wrote, the schema from the container’s cache and its version from one look-up', async () => {
    const { avro, requests } = converter();
    const bytes = await avro.fromConnectData('orders', EMPTY_HEADERS, ORDER, order(7));
    if (bytes === null) throw new Error('expected bytes');

    const first = await avro.toConnectData('orders', EMPTY_HEADERS, bytes);
    const again = avro.toConnectData('orders', EMPTY_HEADERS, bytes);

    expect((first.value as Struct).get('id')).toBe(7);
    expect(first.schema?.name).toBe('com.example.Order');
    expect(first.schema?.version).toBe(1);
    expect(isPromiseLike(again)).toBe(false);
    expect(requests).toEqual([
      'POST /subjects/orders-value/versions',
      'POST /subjects/orders-value',
    ]);
  });

  it('gives an unknown schema id as a DataError with the registry’s message', async () => {
    const { avro } = converter();

    const read = avro.toConnectData('orders', EMPTY_HEADERS, new Uint8Array([0, 0, 0, 0, 42, 2]));

    await expect(read).rejects.toThrow(DataError);
    await expect(read).rejects.toThrow(/Schema not found \(HTTP 404, error code 40403\)/);
  });
});
