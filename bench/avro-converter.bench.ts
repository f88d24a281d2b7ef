import avroTypes from 'avsc/lib/types.js';
import { EMPTY_HEADERS } from '../shared/connect/headers.js';
import { LogicalTimestamp } from '../shared/connect/logical-types.js';
import { SchemaBuilder, Schemas } from '../shared/connect/schema.js';
import { Struct } from '../shared/connect/struct.js';
import { AvroConverter } from '../shared/plugins/converters/avro/avro-converter.js';
import { JsonConverter } from '../shared/plugins/converters/json-converter.js';
import type { FetchLike } from '../shared/plugins/converters/schema-registry/registry-rest.js';
import { SchemaRegistryClients } from '../shared/plugins/converters/schema-registry/schema-registry-client.js';
import {
  frame,
  HEADER_SIZE,
  unframe,
  writeHeader,
} from '../shared/plugins/converters/schema-registry/wire-format.js';
import { compareThroughput } from './harness.js';

/**
 * `avro-converter`: our AvroConverter with its schema cached (the registry answered once, here an
 * in-process stand-in: the registry is off the measured path), per record, on a Struct of 6
 * fields (an int64, strings, a double, an optional string, a Timestamp):
 * - `avro-converter-write` / `-read`: against the protocol's floor, the bare Avro library the
 *   converter uses (avsc, the same Avro schema) encoding prepared plain objects after 5 bytes
 *   left for the header (one copy out, the cheapest framing avsc allows), or taking the header
 *   off and decoding (goal: ratio ≥ 0.8).
 * - `avro-converter-write-vs-json` / `-read-vs-json`: against our JsonConverter (Connect's default
 *   `schemas.enable=true`) on the same Structs, for context (ratio > 1: Avro is faster).
 * No services.
 */
const count = 20_000;
const topic = 'orders';
const registryUrl = 'http://registry.bench';

const schema = SchemaBuilder.struct()
  .name('bench.Order')
  .field('orderid', Schemas.INT64)
  .field('itemid', Schemas.STRING)
  .field('orderunits', Schemas.FLOAT64)
  .field('city', Schemas.OPTIONAL_STRING)
  .field('note', Schemas.STRING)
  .field('placed', LogicalTimestamp.schema())
  .build();

/**
 * A registry in memory behind `fetch`: registering gives a schema the next id (or its id when it
 * is there), a look-up answers version 1, `GET /schemas/ids/{id}` the schema.
 */
function standInRegistry(): FetchLike {
  const schemas: string[] = [];
  const idOf = (text: string) => {
    const index = schemas.indexOf(text);
    return index >= 0 ? index + 1 : schemas.push(text);
  };
  return async (url, init) => {
    const path = url.slice(registryUrl.length);
    const byId = /^\/schemas\/ids\/(\d+)/.exec(path);
    if (init.method === 'GET' && byId !== null) {
      const text = schemas[Number(byId[1]) - 1];
      return text === undefined
        ? Response.json({ error_code: 40403, message: 'Schema not found' }, { status: 404 })
        : Response.json({ schema: text });
    }
    const { schema: text } = JSON.parse(String(init.body)) as { schema: string };
    const id = idOf(text);
    if (/\/versions(\?|$)/.test(path)) return Response.json({ id });
    return Response.json({ subject: 's', id, version: 1, schema: text });
  };
}

/** A converter of a container of its own, its registry clients over `fetch`. */
function avroConverter(fetch: FetchLike): AvroConverter {
  const converter = new AvroConverter(
    new SchemaRegistryClients({ fetch, clock: { now: () => 0 } }),
  );
  converter.configure({ 'schema.registry.url': registryUrl }, false);
  return converter;
}

/** The same Avro schema as the converter's, for avsc alone (Timestamp: a long, as it encodes). */
function bareAvroType() {
  return avroTypes.Type.forSchema(
    {
      type: 'record',
      name: 'Order',
      namespace: 'bench',
      fields: [
        { name: 'orderid', type: 'long' },
        { name: 'itemid', type: 'string' },
        { name: 'orderunits', type: 'double' },
        { name: 'city', type: ['null', 'string'] },
        { name: 'note', type: 'string' },
        { name: 'placed', type: 'long' },
      ],
    },
    { wrapUnions: true },
  );
}

function structs(): Struct[] {
  return Array.from({ length: count }, (_, i) =>
    new Struct(schema)
      .put('orderid', i)
      .put('itemid', `Item_${i % 97}`)
      .put('orderunits', i / 7)
      .put('city', i % 3 === 0 ? null : 'Seoul')
      .put('note', 'x'.repeat(40))
      .put('placed', new Date(1_700_000_000_000 + i)),
  );
}

export async function run(): Promise<void> {
  const registry = standInRegistry();
  const writer = avroConverter(registry);
  const reader = avroConverter(registry);
  const json = new JsonConverter();
  json.configure({}, false);
  const records = structs();

  // Warm the caches: the schema is registered once (writer) and read once (reader).
  const first = await writer.fromConnectData(topic, EMPTY_HEADERS, schema, records[0]);
  await reader.toConnectData(topic, EMPTY_HEADERS, first);
  const framed = records.map((s) => writer.fromConnectData(topic, EMPTY_HEADERS, schema, s));
  if (!framed.every((m): m is Uint8Array => m instanceof Uint8Array)) {
    throw new Error('the schema is not cached: a conversion returned a promise');
  }
  const jsonBytes = records.map(
    (s) => json.fromConnectData(topic, EMPTY_HEADERS, schema, s) as Uint8Array,
  );
  const { schemaId } = unframe(framed[0] as Uint8Array);

  const type = bareAvroType();
  const plain = records.map((s) => ({
    orderid: s.get('orderid'),
    itemid: s.get('itemid'),
    orderunits: s.get('orderunits'),
    city: s.get('city') === null ? null : { string: s.get('city') },
    note: s.get('note'),
    placed: (s.get('placed') as Date).getTime(),
  }));
  if (Buffer.compare(frame(schemaId, type.toBuffer(plain[1])), framed[1] as Uint8Array) !== 0) {
    throw new Error('the bare avsc baseline does not write the bytes the converter writes');
  }
  let sink = 0;

  const avroWrite = async () => {
    for (let i = 0; i < count; i += 1) {
      const bytes = writer.fromConnectData(topic, EMPTY_HEADERS, schema, records[i]);
      sink += (bytes as Uint8Array).length;
    }
    return count;
  };
  const avroRead = async () => {
    for (let i = 0; i < count; i += 1) {
      const read = reader.toConnectData(topic, EMPTY_HEADERS, framed[i] ?? null);
      if ((read as { value: unknown }).value !== null) sink += 1;
    }
    return count;
  };

  await compareThroughput({
    name: 'avro-converter-write',
    unit: 'records',
    ours: avroWrite,
    baseline: async () => {
      // The cheapest framing avsc allows: encode after 5 bytes left free, one copy out.
      const scratch = Buffer.allocUnsafe(64 * 1024);
      for (let i = 0; i < count; i += 1) {
        const end = type.encode(plain[i], scratch, HEADER_SIZE);
        const out = Buffer.allocUnsafe(end);
        scratch.copy(out, HEADER_SIZE, HEADER_SIZE, end);
        sink += writeHeader(out, schemaId).length;
      }
      return count;
    },
  });
  await compareThroughput({
    name: 'avro-converter-read',
    unit: 'records',
    ours: avroRead,
    baseline: async () => {
      for (let i = 0; i < count; i += 1) {
        const { payload } = unframe(framed[i] as Uint8Array);
        const value = type.fromBuffer(
          Buffer.from(payload.buffer, payload.byteOffset, payload.length),
        );
        if (value !== null) sink += 1;
      }
      return count;
    },
  });
  await compareThroughput({
    name: 'avro-converter-write-vs-json',
    unit: 'records',
    ours: avroWrite,
    baseline: async () => {
      for (let i = 0; i < count; i += 1) {
        sink += json.fromConnectData(topic, EMPTY_HEADERS, schema, records[i])?.length ?? 0;
      }
      return count;
    },
  });
  await compareThroughput({
    name: 'avro-converter-read-vs-json',
    unit: 'records',
    ours: avroRead,
    baseline: async () => {
      for (let i = 0; i < count; i += 1) {
        if (json.toConnectData(topic, EMPTY_HEADERS, jsonBytes[i] ?? null).value !== null) {
          sink += 1;
        }
      }
      return count;
    },
  });
  if (sink === 0) throw new Error('nothing was converted');
}
