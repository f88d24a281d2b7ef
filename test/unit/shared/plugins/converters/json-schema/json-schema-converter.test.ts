/**
 * The JsonSchemaConverter on the wire, against a fake registry (`fetch` answering register, id
 * and look-up): Confluent's framing (magic byte 0, the id as 4 big-endian bytes, the JSON in
 * UTF-8), the schema registered with schemaType JSON, nulls as Confluent writes them, and
 * `json.fail.invalid.schema` both ways. The real registry: test/integration/converters/.
 */
import { describe, expect, it } from 'vitest';
import { isPromiseLike } from '../../../../../../shared/connect/converter.js';
import { DataError } from '../../../../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../../../../shared/connect/headers.js';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import { JsonSchemaConverter } from '../../../../../../shared/plugins/converters/json-schema/json-schema-converter.js';
import { SchemaRegistryClients } from '../../../../../../shared/plugins/converters/schema-registry/schema-registry-client.js';

const URL = 'http://registry.test:8081';

/** A registry that gives each new schema id 7, 8, …; `bodies` holds what was registered. */
function fakeRegistry(preset: Record<number, string> = {}) {
  const bodies: Record<string, unknown>[] = [];
  const byId = new Map<number, string>(Object.entries(preset).map(([k, v]) => [Number(k), v]));
  const clients = new SchemaRegistryClients({
    clock: { now: () => 0 },
    fetch: async (url, init) => {
      const path = decodeURIComponent(url.replace(URL, ''));
      const body = JSON.parse(String(init.body ?? '{}')) as Record<string, unknown>;
      let [status, answer]: [number, unknown] = [
        404,
        { error_code: 40403, message: 'Schema not found' },
      ];
      if (init.method === 'GET' && path.endsWith('/versions/latest') && byId.has(1)) {
        const subject = path.slice('/subjects/'.length, -'/versions/latest'.length);
        [status, answer] = [
          200,
          { subject, id: 1, version: 3, schema: byId.get(1), schemaType: 'JSON' },
        ];
      } else if (init.method === 'POST' && path.endsWith('/versions')) {
        bodies.push(body);
        const id = 7 + byId.size;
        byId.set(id, String(body.schema));
        [status, answer] = [200, { id }];
      } else if (init.method === 'GET' && path.startsWith('/schemas/ids/')) {
        const schema = byId.get(Number(path.slice('/schemas/ids/'.length)));
        if (schema !== undefined) [status, answer] = [200, { schema, schemaType: 'JSON' }];
      } else if (init.method === 'POST' && path.startsWith('/subjects/')) {
        const id = [...byId].find(([, text]) => text === body.schema)?.[0];
        if (id !== undefined) {
          [status, answer] = [
            200,
            { subject: path.slice(10), id, version: 2, schema: body.schema },
          ];
        }
      }
      return new Response(JSON.stringify(answer), { status });
    },
  });
  return { clients, bodies };
}

function converter(props: Record<string, string> = {}, registry = fakeRegistry()) {
  const c = new JsonSchemaConverter(registry.clients);
  c.configure({ 'schema.registry.url': URL, ...props }, false);
  return c;
}

const PERSON = SchemaBuilder.struct()
  .name('Person')
  .field('name', Schemas.STRING)
  .field('age', Schemas.OPTIONAL_INT32)
  .build();

describe('JsonSchemaConverter', () => {
  it('frames the JSON with magic byte 0 and the schema id, registering the schema as JSON', async () => {
    const registry = fakeRegistry();
    const c = converter({}, registry);

    const bytes = await c.fromConnectData(
      'people',
      EMPTY_HEADERS,
      PERSON,
      new Struct(PERSON).put('name', 'Zoë'),
    );
    const again = c.fromConnectData(
      'people',
      EMPTY_HEADERS,
      PERSON,
      new Struct(PERSON).put('name', 'Al'),
    );

    expect([...(bytes as Uint8Array).subarray(0, 5)]).toEqual([0, 0, 0, 0, 7]);
    expect(new TextDecoder().decode((bytes as Uint8Array).subarray(5))).toBe(
      '{"name":"Zoë","age":null}',
    );
    expect(registry.bodies).toEqual([
      {
        schemaType: 'JSON',
        schema:
          '{"title":"Person","type":"object","properties":{"name":{"connect.index":0,"type":"string"},"age":{"connect.index":1,"oneOf":[{"type":"null"},{"connect.type":"int32","type":"integer"}]}}}',
      },
    ]);
    expect(isPromiseLike(again)).toBe(false); // the id is known: no registry call, no promise
  });

  it('reads framed JSON back with the registry schema and version', async () => {
    const registry = fakeRegistry();
    const bytes = await converter({}, registry).fromConnectData(
      'people',
      EMPTY_HEADERS,
      PERSON,
      new Struct(PERSON).put('name', 'Ada').put('age', 36),
    );

    const read = await converter({}, registry).toConnectData('people', EMPTY_HEADERS, bytes);

    expect(read.schema?.name).toBe('Person');
    expect(read.schema?.version).toBe(2);
    expect((read.value as Struct).get('age')).toBe(36);
  });

  it('writes nulls as Confluent does: no bytes without a schema or for a required one, JSON null for an optional one', async () => {
    const c = converter();

    const tombstone = c.fromConnectData('t', EMPTY_HEADERS, null, null);
    const required = c.fromConnectData('t', EMPTY_HEADERS, Schemas.STRING, null);
    const optional = (await c.fromConnectData(
      't',
      EMPTY_HEADERS,
      Schemas.OPTIONAL_STRING,
      null,
    )) as Uint8Array;

    expect([tombstone, required]).toEqual([null, null]);
    expect(new TextDecoder().decode(optional.subarray(5))).toBe('null');
    expect(() => c.fromConnectData('t', EMPTY_HEADERS, null, 'x')).toThrow(DataError);
  });

  it('validates payloads read with json.fail.invalid.schema (and not without)', async () => {
    const strict = {
      subject: '{"type":"object","properties":{"qty":{"type":"integer","maximum":10}}}',
    };
    const registry = fakeRegistry({ 1: strict.subject });
    const c = converter({ 'json.fail.invalid.schema': 'true' }, registry);
    const framed = (json: string) =>
      new Uint8Array([0, 0, 0, 0, 1, ...new TextEncoder().encode(json)]);

    const ok = await c.toConnectData('t', EMPTY_HEADERS, framed('{"qty":3}'));
    const bad = () => c.toConnectData('t', EMPTY_HEADERS, framed('{"qty":30}'));
    const lenient = await converter({}, registry).toConnectData(
      't',
      EMPTY_HEADERS,
      framed('{"qty":30}'),
    );

    expect((ok.value as Struct).get('qty')).toBe(3);
    expect(bad).toThrow(DataError);
    expect(bad).toThrow(/Validation error in JSON: \$\/qty must be <= 10/);
    expect((lenient.value as Struct).get('qty')).toBe(30);
  });

  it('fails with a DataError on bytes that are not the wire format or not JSON', async () => {
    const registry = fakeRegistry({ 1: '{"type":"string"}' });
    const c = converter({}, registry);
    await c.toConnectData('t', EMPTY_HEADERS, new Uint8Array([0, 0, 0, 0, 1, 0x22, 0x61, 0x22]));

    expect(() => c.toConnectData('t', EMPTY_HEADERS, new Uint8Array([1, 2]))).toThrow(/magic byte/);
    expect(() =>
      c.toConnectData('t', EMPTY_HEADERS, new Uint8Array([0, 0, 0, 0, 1, 0x7b])),
    ).toThrow(DataError);
  });

  it('writes with the latest version under use.latest.version when it can read the record’s schema, and refuses one that cannot (latest.compatibility.strict)', async () => {
    const latest = (properties: Record<string, unknown>) =>
      JSON.stringify({
        title: 'Person',
        type: 'object',
        properties,
        additionalProperties: false,
      });
    const name = { type: 'string' };
    const age = { oneOf: [{ type: 'null' }, { type: 'integer' }] };
    const props = { 'auto.register.schemas': 'false', 'use.latest.version': 'true' };
    const closedPerson = { 'object.additional.properties': 'false', ...props };
    const person = new Struct(PERSON).put('name', 'Ada');

    const wider = converter(closedPerson, fakeRegistry({ 1: latest({ name, age, email: age }) }));
    const narrower = converter(closedPerson, fakeRegistry({ 1: latest({ name }) }));
    const lenient = converter(
      { ...closedPerson, 'latest.compatibility.strict': 'false' },
      fakeRegistry({ 1: latest({ name }) }),
    );

    const bytes = (await wider.fromConnectData(
      'people',
      EMPTY_HEADERS,
      PERSON,
      person,
    )) as Uint8Array;
    const refused = Promise.resolve().then(() =>
      narrower.fromConnectData('people', EMPTY_HEADERS, PERSON, person),
    );
    await expect(refused).rejects.toThrow(DataError);
    await expect(refused).rejects.toThrow(
      /Incompatible schema .* of type JSON for schema .*: #\/properties\/age: PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL\. Set latest\.compatibility\.strict=false to disable this check/,
    );
    expect([...bytes.subarray(0, 5)]).toEqual([0, 0, 0, 0, 1]);
    expect(await lenient.fromConnectData('people', EMPTY_HEADERS, PERSON, person)).not.toBeNull();
  });
});
