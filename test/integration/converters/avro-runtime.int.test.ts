/**
 * The AvroConverter through the runtime: a source task writes Avro records through the exactly-
 * once source runner (real broker, dynalite, the project's registry), a sink task reads them back
 * through the sink runner; schema evolution and a registry that is down go through
 * `errors.retry.*`, `errors.tolerance` and the dead letter queue as Connect's converter errors do.
 * Each container's registry client counts its requests.
 */
import { describe, expect, inject, it } from 'vitest';
import type { AnyPluginDescriptor } from '../../../shared/connect/plugin.js';
import { valuesEqual } from '../../../shared/connect/schema.js';
import type { Struct } from '../../../shared/connect/struct.js';
import { AvroConverter } from '../../../shared/plugins/converters/avro/avro-converter.js';
import { AVRO_CONVERTER } from '../../../shared/plugins/converters/descriptors.js';
import { unframe } from '../../../shared/plugins/converters/schema-registry/wire-format.js';
import {
  converterRuntime,
  expectUnknownSchemaDeadLettered,
  headerText,
} from '../../support/converter-runtime.js';
import { expectedOrder, type OrderShape } from '../../support/order-source.js';
import { uniqueName } from '../../support/services.js';
import { createTestTopic, readTopicRecords } from '../../support/topic-reader.js';
import { readWithJavaAvro } from './avro-java-reader.js';
import { countingRegistryClients, unreachableRegistryUrl } from './registry-support.js';

const registryUrl = () => inject('schemaRegistryUrl');

/** An AvroConverter plugin `className` whose registry client lists its requests. */
function countedAvro(className: string) {
  const { clients, requests } = countingRegistryClients(registryUrl);
  const descriptor: AnyPluginDescriptor = {
    className,
    aliases: [],
    type: 'converter',
    version: 'test',
    create: () => new AvroConverter(clients),
  };
  return { requests, descriptor };
}

const writerAvro = countedAvro('test.WriterAvroConverter');
const readerAvro = countedAvro('test.ReaderAvroConverter');

/** The source's converters: Confluent's AvroConverter, the values' counting its requests. */
const writerConverters = () => ({
  'key.converter': AVRO_CONVERTER,
  'key.converter.schema.registry.url': registryUrl(),
  'value.converter': 'test.WriterAvroConverter',
  'value.converter.schema.registry.url': registryUrl(),
});

/** The sink's converters: the AvroConverter by alias, the values' counting its requests. */
const readerConverters = () => ({
  'key.converter': 'avro',
  'key.converter.schema.registry.url': registryUrl(),
  'value.converter': 'test.ReaderAvroConverter',
  'value.converter.schema.registry.url': registryUrl(),
});

const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

const text = headerText;

describe('AvroConverter through the runtime (real broker, dynalite, registry)', () => {
  const runtime = converterRuntime([writerAvro.descriptor, readerAvro.descriptor]);

  /** Runs order source `shape` (`total` records to `topic`) for one invocation. */
  const runOrderSource = (
    topic: string,
    shape: OrderShape,
    total: number,
    extra: Record<string, string> = {},
  ) => runtime.runOrderSource(topic, total, { ...writerConverters(), ...extra }, shape);

  /** Reads `count` records of `topic` with a recording sink whose values the reader converter reads. */
  const readWithSink = (topic: string, count: number, extra: Record<string, string> = {}) =>
    runtime.readWithSink(topic, count, { ...readerConverters(), ...extra });

  it('writes Avro from a source and reads the same records back in a sink, calling the registry once per schema', async () => {
    const topic = uniqueName('orders');
    await createTestTopic(topic, 1);
    writerAvro.requests.length = 0;
    readerAvro.requests.length = 0;

    const run = await runOrderSource(topic, 'v1', 30);
    const { summary, records, committed } = await readWithSink(topic, 30);

    expect(run.outcome).toBe('completed');
    expect(summary).toMatchObject({ written: 30 });
    const ids = new Set(records.map((r) => unframe(r.value as Uint8Array).schemaId));
    expect(ids.size).toBe(1);
    expect(writerAvro.requests).toEqual([`POST /subjects/${topic}-value/versions`]);
    expect(readerAvro.requests).toEqual([
      `GET /schemas/ids/${[...ids][0]}`,
      `POST /subjects/${topic}-value`,
    ]);
    const seqs = committed.map((r) => (r.key as Struct).get('id'));
    expect(seqs).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    const same = committed.map((r, i) => {
      const expected = expectedOrder('v1', i + 1);
      return expected.schema.fields.every((f) =>
        valuesEqual((r.value as Struct).get(f.name), expected.get(f.name)),
      );
    });
    expect(same.every(Boolean)).toBe(true);
    expect(committed[0]?.valueSchema?.name).toBe('com.example.Order');
    expect(committed[0]?.valueSchema?.version).toBe(1);
  });

  it('evolves the schema: a compatible change is a new version, an incompatible one goes to the DLQ with the registry’s message', async () => {
    const topic = uniqueName('orders');
    const dlq = `${topic}-dlq`;
    await createTestTopic(topic, 1);
    await runOrderSource(topic, 'v1', 2);
    const compatibility = await fetch(`${registryUrl()}/config/${topic}-value`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ compatibility: 'BACKWARD' }),
    });
    expect(compatibility.status).toBe(200);

    await runOrderSource(topic, 'v2', 2);
    const breaking = await runOrderSource(topic, 'breaking', 2, {
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': dlq,
      'errors.deadletterqueue.topic.replication.factor': '1',
      'errors.deadletterqueue.context.headers.enable': 'true',
    });
    const { committed } = await readWithSink(topic, 4);
    const dead = await readTopicRecords(dlq, 2);

    expect(breaking.outcome).toBe('completed');
    expect(committed.map((r) => r.valueSchema?.version)).toEqual([1, 1, 2, 2]);
    expect(committed.map((r) => (r.value as Struct).schema.field('coupon') !== null)).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(dead).toHaveLength(2);
    const headers = new Map(dead[0]?.headers.map((h) => [h.key, text(h.value)]));
    expect(headers.get('__connect.errors.stage')).toBe('VALUE_CONVERTER');
    expect(headers.get('__connect.errors.exception.message')).toMatch(
      new RegExp(`^Failed to serialize Avro data from topic ${topic}: .*error code 409`),
    );
  });

  it('retries while the registry is down, then follows errors.tolerance: the DLQ under all, a failed task under none', async () => {
    const topic = uniqueName('orders');
    const dlq = `${topic}-dlq`;
    await createTestTopic(topic, 1);
    const down = await unreachableRegistryUrl();
    const unreachable = {
      'key.converter': 'test.WriterAvroConverter',
      'key.converter.schema.registry.url': down,
      'value.converter.schema.registry.url': down,
      'errors.retry.timeout': '1000',
      'errors.retry.delay.max.ms': '200',
    };
    writerAvro.requests.length = 0;

    const tolerated = await runOrderSource(topic, 'v1', 2, {
      ...unreachable,
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': dlq,
      'errors.deadletterqueue.topic.replication.factor': '1',
      'errors.deadletterqueue.context.headers.enable': 'true',
    });
    const attempts = writerAvro.requests.length;
    const failed = await runOrderSource(topic, 'v1', 2, unreachable);
    const dead = await readTopicRecords(dlq, 2);

    expect(tolerated.outcome).toBe('completed');
    expect(failed.outcome).toBe('failed');
    expect(failed.error?.message).toMatch(/Tolerance exceeded/);
    expect(dead).toHaveLength(2);
    const headers = new Map(dead[0]?.headers.map((h) => [h.key, text(h.value)]));
    expect(headers.get('__connect.errors.stage')).toBe('KEY_CONVERTER');
    expect(headers.get('__connect.errors.exception.message')).toMatch(/ECONNREFUSED/);
    // Each record's key conversion was tried again within errors.retry.timeout.
    expect(attempts).toBeGreaterThanOrEqual(4);
  });

  it('dead-letters a record whose schema id the registry does not know, with its bytes as consumed, and fails the task under errors.tolerance=none', async () => {
    await expectUnknownSchemaDeadLettered(runtime, {
      writer: writerConverters(),
      reader: readerConverters(),
      unknown: new Uint8Array([0, 0x7f, 0xff, 0xff, 0xf0, 2]),
      message: /^Failed to deserialize data for topic .* to Avro: .*error code 40403/,
    });
  });

  it('writes records Apache Avro’s Java library reads with the registry’s schema', async () => {
    const topic = uniqueName('orders');
    await createTestTopic(topic, 1);
    await runOrderSource(topic, 'v2', 3);
    const records = await readTopicRecords(topic, 3);
    const payloads = records.map((r) => new Uint8Array(r.value as Uint8Array));

    const read = await readWithJavaAvro(registryUrl(), payloads);

    expect(read.map((r) => r.schemaId)).toEqual(payloads.map((p) => unframe(p).schemaId));
    // Java wrote back the very bytes it read: it decoded every field as we encoded it.
    expect(read.map((r) => r.hex)).toEqual(payloads.map((p) => hexOf(unframe(p).payload)));
    expect(read.map((r) => r.json)).toMatchObject([
      { id: 1, customer: 'customer-1', note: { string: 'note 1' }, coupon: null, qty: 1 },
      { id: 2, customer: 'customer-2', coupon: { string: 'C2' }, tags: ['even'] },
      { id: 3, note: null, attributes: { seq: 3 } },
    ]);
  });
});
