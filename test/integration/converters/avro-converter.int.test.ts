/**
 * The AvroConverter against the real registry (the project's Apicurio, Confluent's API): subject
 * name strategies as the registry lists them, reading back across containers, schema evolution
 * under BACKWARD, look-up and latest-version modes, how often the registry is called, and a
 * registry that is down. Each container counts the requests its registry client sends.
 */
import { describe, expect, inject, it } from 'vitest';
import { DataError, RetriableError } from '../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../shared/connect/headers.js';
import {
  type Schema,
  SchemaBuilder,
  Schemas,
  valuesEqual,
} from '../../../shared/connect/schema.js';
import { Struct } from '../../../shared/connect/struct.js';
import { AvroConverter } from '../../../shared/plugins/converters/avro/avro-converter.js';
import {
  SCHEMA_REGISTRY_CONFIG_DEF,
  schemaRegistrySettingsOf,
} from '../../../shared/plugins/converters/schema-registry/registry-config.js';
import {
  type SchemaRegistryClient,
  SchemaRegistryClients,
} from '../../../shared/plugins/converters/schema-registry/schema-registry-client.js';
import { unframe } from '../../../shared/plugins/converters/schema-registry/wire-format.js';
import { expectedOrder, orderSchema } from '../../support/order-source.js';
import { uniqueName } from '../../support/services.js';
import { countingRegistryClients, unreachableRegistryUrl } from './registry-support.js';

const registryUrl = () => inject('schemaRegistryUrl');

/** A warm container: its own registry clients, whose requests are listed as `METHOD /path`. */
function container() {
  const { clients, requests } = countingRegistryClients(registryUrl);
  const converter = (props: Record<string, string> = {}, isKey = false) => {
    const avro = new AvroConverter(clients);
    avro.configure({ 'schema.registry.url': registryUrl(), ...props }, isKey);
    return avro;
  };
  return { requests, converter };
}

/** A client of the registry for the tests' own set-up and checks. */
function admin(): SchemaRegistryClient {
  const props = { 'schema.registry.url': registryUrl() };
  const settings = schemaRegistrySettingsOf(SCHEMA_REGISTRY_CONFIG_DEF.parse(props), props);
  return new SchemaRegistryClients({ fetch, clock: { now: () => Date.now() } }).clientFor(settings);
}

async function subjects(): Promise<string[]> {
  const response = await fetch(`${registryUrl()}/subjects`);
  return (await response.json()) as string[];
}

async function written(
  avro: AvroConverter,
  topic: string,
  schema: Schema,
  value: unknown,
): Promise<Uint8Array> {
  const bytes = await avro.fromConnectData(topic, EMPTY_HEADERS, schema, value);
  if (bytes === null) throw new Error('expected bytes');
  return bytes;
}

/** Whether every field of `expected` reads back equal in `actual`. */
function sameFields(actual: unknown, expected: Struct): boolean {
  return expected.schema.fields.every((f) =>
    valuesEqual((actual as Struct).get(f.name), expected.get(f.name)),
  );
}

/** What `act` threw or rejected with; `null` when it succeeded. */
async function failureOf(act: () => unknown): Promise<unknown> {
  try {
    await act();
    return null;
  } catch (error) {
    return error;
  }
}

describe('AvroConverter with the schema registry', () => {
  it('registers under the subject each strategy names, as the registry lists them', async () => {
    const topic = uniqueName('orders');
    const keyName = `com.example.${uniqueName('Key').replaceAll('-', '_')}`;
    const keySchema = SchemaBuilder.struct().name(keyName).field('id', Schemas.INT64).build();
    const { converter } = container();
    const byRecord = converter({ 'key.subject.name.strategy': 'RecordNameStrategy' }, true);
    const byTopicRecord = converter({
      'value.subject.name.strategy':
        'io.confluent.kafka.serializers.subject.TopicRecordNameStrategy',
    });

    await written(converter(), topic, orderSchema('v1'), expectedOrder('v1', 1));
    await written(byRecord, topic, keySchema, new Struct(keySchema).put('id', 1));
    await written(byTopicRecord, topic, orderSchema('v1'), expectedOrder('v1', 1));

    expect(await subjects()).toEqual(
      expect.arrayContaining([`${topic}-value`, keyName, `${topic}-com.example.Order`]),
    );
  });

  it('reads in another container what one wrote: one registry call per new schema per container', async () => {
    const topic = uniqueName('orders');
    const writer = container();
    const reader = container();
    const produced = [1, 2, 3].map((seq) => expectedOrder('v1', seq));
    const values = writer.converter();

    const messages: Uint8Array[] = [];
    for (const order of produced) messages.push(await written(values, topic, order.schema, order));
    const read = [];
    for (const bytes of messages) {
      read.push(await reader.converter().toConnectData(topic, EMPTY_HEADERS, bytes));
    }
    const anotherTask = await reader
      .converter()
      .toConnectData(topic, EMPTY_HEADERS, messages[0] ?? null);

    const id = unframe(messages[0] as Uint8Array).schemaId;
    expect(writer.requests).toEqual([`POST /subjects/${topic}-value/versions`]);
    expect(reader.requests).toEqual([`GET /schemas/ids/${id}`, `POST /subjects/${topic}-value`]);
    expect(read.map((r, i) => sameFields(r.value, produced[i] as Struct))).toEqual([
      true,
      true,
      true,
    ]);
    expect(read[0]?.schema?.name).toBe('com.example.Order');
    expect(read[0]?.schema?.version).toBe(1);
    expect(sameFields(anotherTask.value, produced[0] as Struct)).toBe(true); // no request more
  });

  it('registers a compatible change as a new version and fails an incompatible one under BACKWARD', async () => {
    const topic = uniqueName('orders');
    const subject = `${topic}-value`;
    const { converter } = container();
    const avro = converter();
    const v1 = await written(avro, topic, orderSchema('v1'), expectedOrder('v1', 1));
    await admin().setCompatibility(subject, 'BACKWARD');

    const v2 = await written(avro, topic, orderSchema('v2'), expectedOrder('v2', 2));
    const breaking = avro.fromConnectData(
      topic,
      EMPTY_HEADERS,
      orderSchema('breaking'),
      expectedOrder('breaking', 3),
    );

    await expect(breaking).rejects.toThrow(DataError);
    await expect(breaking).rejects.toThrow(
      new RegExp(`^Failed to serialize Avro data from topic ${topic}: .*error code 409`),
    );
    expect(unframe(v2).schemaId).not.toBe(unframe(v1).schemaId);
    const readBack = await container().converter().toConnectData(topic, EMPTY_HEADERS, v2);
    expect(readBack.schema?.version).toBe(2);
    expect(sameFields(readBack.value, expectedOrder('v2', 2))).toBe(true);
  });

  it('looks the schema up with auto.register.schemas=false, failing on a schema the subject lacks', async () => {
    const topic = uniqueName('orders');
    const { converter } = container();
    const registered = await written(converter(), topic, orderSchema('v1'), expectedOrder('v1', 1));
    const lookup = converter({ 'auto.register.schemas': 'false' });

    const found = await written(lookup, topic, orderSchema('v1'), expectedOrder('v1', 2));
    const missing = lookup.fromConnectData(
      topic,
      EMPTY_HEADERS,
      orderSchema('v2'),
      expectedOrder('v2', 3),
    );

    expect(unframe(found).schemaId).toBe(unframe(registered).schemaId);
    await expect(missing).rejects.toThrow(DataError);
    await expect(missing).rejects.toThrow(/error code 4040[13]/);
  });

  it('writes with the latest version under use.latest.version, refusing one that cannot read the record', async () => {
    const topic = uniqueName('orders');
    const { converter } = container();
    const v2 = await written(converter(), topic, orderSchema('v2'), expectedOrder('v2', 1));
    const latest = converter({ 'auto.register.schemas': 'false', 'use.latest.version': 'true' });
    const other = uniqueName('orders');
    await written(converter(), other, orderSchema('breaking'), expectedOrder('breaking', 1));

    const asV2 = await written(latest, topic, orderSchema('v1'), expectedOrder('v1', 5));
    const refused = await failureOf(() =>
      latest.fromConnectData(other, EMPTY_HEADERS, orderSchema('v1'), expectedOrder('v1', 6)),
    );

    const read = await container().converter().toConnectData(topic, EMPTY_HEADERS, asV2);
    expect(unframe(asV2).schemaId).toBe(unframe(v2).schemaId);
    expect(read.schema?.field('coupon')).not.toBeNull();
    expect((read.value as Struct).get('coupon')).toBeNull();
    expect(sameFields(read.value, expectedOrder('v1', 5))).toBe(true);
    expect(refused).toBeInstanceOf(DataError);
    expect(String(refused)).toMatch(
      /Incompatible schema .*Set latest.compatibility.strict=false to disable this check/,
    );
  });

  it('fails with a RetriableError naming the cause when the registry does not answer', async () => {
    const avro = new AvroConverter(new SchemaRegistryClients({ fetch, clock: { now: () => 0 } }));
    avro.configure({ 'schema.registry.url': await unreachableRegistryUrl() }, false);

    const write = avro.fromConnectData(
      'orders',
      EMPTY_HEADERS,
      orderSchema('v1'),
      expectedOrder('v1', 1),
    );
    const read = avro.toConnectData('orders', EMPTY_HEADERS, new Uint8Array([0, 0, 0, 0, 1, 2]));

    const [wrote, readBack] = await Promise.allSettled([write, read]);
    const reasons = [wrote, readBack].map((r) => (r.status === 'rejected' ? r.reason : null));
    expect(reasons.map((reason) => reason instanceof RetriableError)).toEqual([true, true]);
    expect(String(reasons[0])).toMatch(/ECONNREFUSED/);
  });
});
