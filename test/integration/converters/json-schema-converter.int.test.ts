/**
 * The JsonSchemaConverter against the real registry (the project's Apicurio, Confluent's API):
 * a round trip across containers with the registry's version, a compatible change registered as
 * a new version (an incompatible one refused with the registry's 409), RecordNameStrategy's
 * subject as the registry lists it, the schema text as the registry stores it, `use.latest.version`
 * with its backward compatibility check, and an unknown id.
 */
import { describe, expect, inject, it } from 'vitest';
import { DataError } from '../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../shared/connect/headers.js';
import {
  type Schema,
  SchemaBuilder,
  Schemas,
  valuesEqual,
} from '../../../shared/connect/schema.js';
import { Struct } from '../../../shared/connect/struct.js';
import { JsonSchemaConverter } from '../../../shared/plugins/converters/json-schema/json-schema-converter.js';
import { SchemaRegistryClients } from '../../../shared/plugins/converters/schema-registry/schema-registry-client.js';
import { unframe } from '../../../shared/plugins/converters/schema-registry/wire-format.js';
import { expectedOrder, orderSchema } from '../../support/order-source.js';
import { uniqueName } from '../../support/services.js';

const registryUrl = () => inject('schemaRegistryUrl');

/** A warm container: its own registry clients, whose requests are listed as `METHOD /path`. */
function container() {
  const requests: string[] = [];
  const clients = new SchemaRegistryClients({
    clock: { now: () => Date.now() },
    fetch: (url, init) => {
      requests.push(`${init.method} ${decodeURIComponent(url.slice(registryUrl().length))}`);
      return fetch(url, init);
    },
  });
  const converter = (props: Record<string, string> = {}, isKey = false) => {
    const c = new JsonSchemaConverter(clients);
    c.configure({ 'schema.registry.url': registryUrl(), ...props }, isKey);
    return c;
  };
  return { requests, converter };
}

async function written(c: JsonSchemaConverter, topic: string, schema: Schema, value: unknown) {
  const bytes = await c.fromConnectData(topic, EMPTY_HEADERS, schema, value);
  if (bytes === null) throw new Error('expected bytes');
  return bytes;
}

function sameFields(actual: unknown, expected: Struct): boolean {
  return expected.schema.fields.every((f) =>
    valuesEqual((actual as Struct).get(f.name), expected.get(f.name)),
  );
}

async function registryJson(path: string): Promise<unknown> {
  return (await fetch(`${registryUrl()}${path}`)).json();
}

describe('JsonSchemaConverter with the schema registry', () => {
  it('reads in another container what one wrote, with the registry’s version: one registry call per new schema', async () => {
    const topic = uniqueName('orders');
    const writer = container();
    const reader = container();
    const produced = [1, 2, 3].map((seq) => expectedOrder('v1', seq));
    const values = writer.converter();

    const messages: Uint8Array[] = [];
    for (const order of produced) messages.push(await written(values, topic, order.schema, order));
    const read = [];
    for (const bytes of messages)
      read.push(await reader.converter().toConnectData(topic, EMPTY_HEADERS, bytes));

    const id = unframe(messages[0] as Uint8Array).schemaId;
    expect(writer.requests).toEqual([`POST /subjects/${topic}-value/versions`]);
    expect(reader.requests).toEqual([`GET /schemas/ids/${id}`, `POST /subjects/${topic}-value`]);
    expect(read.map((r, i) => sameFields(r.value, produced[i] as Struct))).toEqual([
      true,
      true,
      true,
    ]);
    expect(read[0]?.schema).toMatchObject({ name: 'com.example.Order', version: 1 });
    expect(read[0]?.schema?.field('amount')?.schema.name).toBe(
      'org.apache.kafka.connect.data.Decimal',
    );
  });

  it('stores the schema as type JSON with the text JsonSchemaData writes', async () => {
    const topic = uniqueName('orders');
    const bytes = await written(
      container().converter(),
      topic,
      orderSchema('v1'),
      expectedOrder('v1', 1),
    );

    const stored = (await registryJson(`/schemas/ids/${unframe(bytes).schemaId}`)) as {
      schemaType?: string;
      schema: string;
    };

    const schema = JSON.parse(stored.schema);
    expect(stored.schemaType).toBe('JSON');
    expect(schema).toMatchObject({ title: 'com.example.Order', type: 'object' });
    expect(schema.properties.id).toEqual({
      'connect.index': 0,
      'connect.type': 'int64',
      type: 'integer',
    });
    expect(schema.properties.note).toEqual({
      'connect.index': 7,
      oneOf: [{ type: 'null' }, { type: 'string' }],
    });
    expect(schema.properties.placed).toMatchObject({
      title: 'org.apache.kafka.connect.data.Timestamp',
      'connect.type': 'int64',
    });
  });

  it('registers a compatible change as a new version and refuses an incompatible one under BACKWARD (closed objects)', async () => {
    // With JSON Schema's default open content model, adding a property is not BACKWARD
    // compatible (Confluent's checker and Apicurio's agree): Connect users close objects.
    const topic = uniqueName('orders');
    const c = container().converter({ 'object.additional.properties': 'false' });
    const v1 = await written(c, topic, orderSchema('v1'), expectedOrder('v1', 1));
    const config = await fetch(`${registryUrl()}/config/${topic}-value`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ compatibility: 'BACKWARD' }),
    });
    expect(config.status).toBe(200);
    const retyped = SchemaBuilder.struct()
      .name('com.example.Order')
      .field('id', Schemas.STRING)
      .build();

    const v2 = await written(c, topic, orderSchema('v2'), expectedOrder('v2', 2));
    const breaking = Promise.resolve(
      c.fromConnectData(topic, EMPTY_HEADERS, retyped, new Struct(retyped).put('id', 'three')),
    );

    await expect(breaking).rejects.toThrow(DataError);
    await expect(breaking).rejects.toThrow(/error code 409/);
    expect(unframe(v2).schemaId).not.toBe(unframe(v1).schemaId);
    const back = await container().converter().toConnectData(topic, EMPTY_HEADERS, v2);
    expect(back.schema?.version).toBe(2);
    expect(sameFields(back.value, expectedOrder('v2', 2))).toBe(true);
    expect(await registryJson(`/subjects/${topic}-value/versions`)).toEqual([1, 2]);
  });

  it('writes with the latest version under use.latest.version when it can read the record’s schema, and refuses one that cannot (latest.compatibility.strict)', async () => {
    const topic = uniqueName('orders');
    const closed = { 'object.additional.properties': 'false' };
    const registering = container().converter(closed);
    await written(registering, topic, orderSchema('v1'), expectedOrder('v1', 1));
    const v2 = await written(registering, topic, orderSchema('v2'), expectedOrder('v2', 2));
    const retyped = SchemaBuilder.struct()
      .name('com.example.Order')
      .field('id', Schemas.STRING)
      .build();
    const latest = container().converter({
      ...closed,
      'auto.register.schemas': 'false',
      'use.latest.version': 'true',
    });

    const v1 = await written(latest, topic, orderSchema('v1'), expectedOrder('v1', 3));
    const refused = latest.fromConnectData(
      topic,
      EMPTY_HEADERS,
      retyped,
      new Struct(retyped).put('id', 'x'),
    );
    await expect(refused).rejects.toThrow(DataError);
    await expect(refused).rejects.toThrow(
      /of type JSON for schema .*#\/properties\/id: TYPE_CHANGED.*Set latest\.compatibility\.strict=false to disable this check/,
    );
    const back = await container().converter().toConnectData(topic, EMPTY_HEADERS, v1);

    expect(unframe(v1).schemaId).toBe(unframe(v2).schemaId);
    expect(back.schema?.version).toBe(2);
    expect((back.value as Struct).get('coupon')).toBeNull();
    expect(await registryJson(`/subjects/${topic}-value/versions`)).toEqual([1, 2]);
  });

  it('registers under the record name (the schema’s title) with RecordNameStrategy', async () => {
    const topic = uniqueName('orders');
    const name = `com.example.${uniqueName('Key').replaceAll('-', '_')}`;
    const key = SchemaBuilder.struct().name(name).field('id', Schemas.INT64).build();
    const { converter } = container();
    const keys = converter({ 'key.subject.name.strategy': 'RecordNameStrategy' }, true);

    const bytes = await written(keys, topic, key, new Struct(key).put('id', 42));
    const back = await container()
      .converter({ 'key.subject.name.strategy': 'RecordNameStrategy' }, true)
      .toConnectData(topic, EMPTY_HEADERS, bytes);

    expect(await registryJson('/subjects')).toEqual(expect.arrayContaining([name]));
    expect(await registryJson('/subjects')).not.toEqual(expect.arrayContaining([`${topic}-key`]));
    expect((back.value as Struct).get('id')).toBe(42);
    expect(back.schema?.version).toBe(1);
  });

  it('fails with a DataError carrying the registry’s 40403 for an id it does not know', async () => {
    const read = Promise.resolve(
      container()
        .converter()
        .toConnectData(
          'orders',
          EMPTY_HEADERS,
          new Uint8Array([0, 0x7f, 0xff, 0xff, 0xf0, 0x7b, 0x7d]),
        ),
    );

    await expect(read).rejects.toThrow(DataError);
    await expect(read).rejects.toThrow(/error code 40403/);
  });
});
