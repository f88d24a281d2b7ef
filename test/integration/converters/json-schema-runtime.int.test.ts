/**
 * The JsonSchemaConverter through the runtime (real broker, dynalite, the project's registry): a
 * source writes JSON Schema records and a sink reads them back; with `use.latest.version` a
 * user's stricter schema and `json.fail.invalid.schema`, the payloads that fail validation go
 * where `errors.tolerance` says (the DLQ with the validator's words, or a failed task); a record
 * whose schema id the registry does not know is dead-lettered by the sink.
 */
import { describe, expect, inject, it } from 'vitest';
import type { Struct } from '../../../shared/connect/struct.js';
import { JSON_SCHEMA_CONVERTER } from '../../../shared/plugins/converters/descriptors.js';
import { unframe } from '../../../shared/plugins/converters/schema-registry/wire-format.js';
import {
  converterRuntime,
  DLQ,
  expectUnknownSchemaDeadLettered,
  headerText,
} from '../../support/converter-runtime.js';
import { uniqueName } from '../../support/services.js';
import { createTestTopic, readTopicRecords } from '../../support/topic-reader.js';

const registryUrl = () => inject('schemaRegistryUrl');

/** The source's converters: the JsonSchemaConverter by class name and by alias. */
const writerConverters = () => ({
  'key.converter': JSON_SCHEMA_CONVERTER,
  'key.converter.schema.registry.url': registryUrl(),
  'value.converter': 'json-schema',
  'value.converter.schema.registry.url': registryUrl(),
});

/** The sink's converters: the JsonSchemaConverter by simple name and by class name. */
const readerConverters = () => ({
  'key.converter': 'JsonSchemaConverter',
  'key.converter.schema.registry.url': registryUrl(),
  'value.converter': JSON_SCHEMA_CONVERTER,
  'value.converter.schema.registry.url': registryUrl(),
});

describe('JsonSchemaConverter through the runtime (real broker, dynalite, registry)', () => {
  const runtime = converterRuntime();

  /** Runs the order source (`total` v1 orders to `topic`) for one invocation. */
  const runOrderSource = (topic: string, total: number, extra: Record<string, string> = {}) =>
    runtime.runOrderSource(topic, total, { ...writerConverters(), ...extra });

  /** Reads `count` records of `topic` with a recording sink through JsonSchemaConverters. */
  const readWithSink = (topic: string, count: number, extra: Record<string, string> = {}) =>
    runtime.readWithSink(topic, count, { ...readerConverters(), ...extra });

  it('writes JSON Schema from a source and reads the same records back in a sink', async () => {
    const topic = uniqueName('orders');
    await createTestTopic(topic, 1);

    const run = await runOrderSource(topic, 5);
    const { summary, records, committed } = await readWithSink(topic, 5);

    expect(run.outcome).toBe('completed');
    expect(summary).toMatchObject({ written: 5 });
    expect(new Set(records.map((r) => unframe(r.value as Uint8Array).schemaId)).size).toBe(1);
    expect(committed.map((r) => (r.key as Struct).get('id'))).toEqual([1, 2, 3, 4, 5]);
    expect(committed.map((r) => (r.value as Struct).get('customer'))).toEqual(
      [1, 2, 3, 4, 5].map((seq) => `customer-${seq % 7}`),
    );
    expect(committed[0]?.valueSchema).toMatchObject({ name: 'com.example.Order', version: 1 });
  });

  it('sends payloads that fail the latest schema to the DLQ under errors.tolerance=all, and fails the task under none', async () => {
    const topic = uniqueName('orders');
    await createTestTopic(topic, 1);
    // A user's schema for the topic: qty at most 2 (the orders' qty is seq % 5).
    const strict = {
      type: 'object',
      title: 'com.example.Order',
      properties: { qty: { type: 'integer', maximum: 2 } },
    };
    const registered = await fetch(`${registryUrl()}/subjects/${topic}-value/versions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ schemaType: 'JSON', schema: JSON.stringify(strict) }),
    });
    expect(registered.status).toBe(200);
    const latest = {
      'value.converter.auto.register.schemas': 'false',
      'value.converter.use.latest.version': 'true',
      'value.converter.latest.compatibility.strict': 'false',
      'value.converter.json.fail.invalid.schema': 'true',
    };

    const tolerated = await runOrderSource(topic, 5, { ...latest, ...DLQ(topic) });
    const failed = await runOrderSource(topic, 5, latest);
    const dead = await readTopicRecords(`${topic}-dlq`, 2);
    const { committed } = await readWithSink(topic, 3);

    expect(tolerated.outcome).toBe('completed');
    expect(failed.outcome).toBe('failed');
    expect(failed.error?.message).toMatch(/Tolerance exceeded/);
    expect(dead).toHaveLength(2);
    const headers = new Map(dead[0]?.headers.map((h) => [h.key, headerText(h.value)]));
    expect(headers.get('__connect.errors.stage')).toBe('VALUE_CONVERTER');
    expect(headers.get('__connect.errors.exception.message')).toMatch(
      /^Converting Kafka Connect data to byte\[\] failed .*: Validation error in JSON: \$\/qty must be <= 2/,
    );
    // What passed was written with the user's schema, and reads back with it.
    expect(committed.map((r) => (r.value as Struct).get('qty'))).toEqual([1, 2, 0]);
    expect(committed[0]?.valueSchema?.fields.map((f) => f.name)).toEqual(['qty']);
  });

  it('dead-letters a record whose schema id the registry does not know, with its bytes as consumed, and fails the task under errors.tolerance=none', async () => {
    await expectUnknownSchemaDeadLettered(runtime, {
      writer: writerConverters(),
      reader: readerConverters(),
      unknown: new Uint8Array([0, 0x7f, 0xff, 0xff, 0xf0, 0x7b, 0x7d]),
      message: /error code 40403/,
    });
  });
});
