import { describe, expect, it } from 'vitest';
import { parseConnectorConfig } from '../../../../../shared/config/connector-config.js';
import { DataError } from '../../../../../shared/connect/errors.js';
import { SourceRecord } from '../../../../../shared/connect/records.js';
import { SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import { builtinRegistry } from '../../../../../shared/plugins/registry.js';
import { silentLogger } from '../../../../../shared/ports/logger.js';
import { SourceEnvelope } from '../../../../../shared/runtime/pipeline/record-envelope.js';
import {
  buildSourcePipeline,
  type SourceRecordPipeline,
} from '../../../../../shared/runtime/pipeline/source-pipeline.js';
import { FlakyConverter, registerFlakyConverter } from './error-handling-fakes.js';

const text = (bytes: Uint8Array | null) =>
  bytes === null ? null : new TextDecoder().decode(bytes);

function pipeline(extra: Record<string, string>, flaky?: FlakyConverter) {
  const config = parseConnectorConfig(
    { name: 'orders', 'connector.class': 'datagen', 'kafka.topic': 'orders', ...extra },
    'source',
  );
  const plugins = builtinRegistry();
  if (flaky !== undefined) registerFlakyConverter(plugins, flaky);
  return buildSourcePipeline(config, 0, {
    plugins,
    logger: silentLogger,
    clock: { now: () => 0 },
    sleep: async () => {},
  });
}

/** The records' envelopes once `p` processed them as one batch. */
async function processed(p: SourceRecordPipeline, ...records: SourceRecord[]) {
  const envelopes = records.map((record, index) => new SourceEnvelope(record, index));
  await p.process(envelopes);
  return envelopes;
}

const schema = new SchemaBuilder('struct')
  .name('order')
  .field('id', Schemas.INT32)
  .field('qty', Schemas.STRING)
  .build();

function order(qty: string) {
  return new SourceRecord({
    sourcePartition: { p: 0 },
    sourceOffset: { seq: 1 },
    topic: 'orders',
    kafkaPartition: null,
    keySchema: Schemas.STRING,
    key: 'o-1',
    valueSchema: schema,
    value: new Struct(schema).put('id', 1).put('qty', qty),
  });
}

describe('buildSourcePipeline', () => {
  it('transforms, then converts key, value and headers with the configured converters', async () => {
    const p = pipeline({
      transforms: 'route,tag',
      'transforms.route.type': 'org.apache.kafka.connect.transforms.RegexRouter',
      'transforms.route.regex': 'orders',
      'transforms.route.replacement': 'orders-v2',
      'transforms.tag.type': 'org.apache.kafka.connect.transforms.InsertHeader',
      'transforms.tag.header': 'origin',
      'transforms.tag.value.literal': 'datagen',
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter.schemas.enable': 'false',
    });

    const [envelope] = await processed(p, order('3'));

    const out = envelope?.outgoing;
    expect(out?.topic).toBe('orders-v2');
    expect(text(out?.key ?? null)).toBe('o-1');
    expect(text(out?.value ?? null)).toBe('{"id":1,"qty":"3"}');
    expect(out?.headers?.map((h) => [h.key, text(h.value)])).toEqual([['origin', 'datagen']]);
    expect(envelope?.deadLetters).toEqual([]);
  });

  it('skips a record a transformation drops, with nothing for the dead letter queue', async () => {
    const p = pipeline({
      transforms: 'drop',
      'transforms.drop.type': 'org.apache.kafka.connect.transforms.Filter',
    });
    const [envelope] = await processed(p, order('1'));

    expect([envelope?.outgoing, envelope?.deadLetters]).toEqual([null, []]);
  });

  it('sends a failed record to the dead letter queue with Connect context headers when tolerated', async () => {
    const p = pipeline({
      transforms: 'cast',
      'transforms.cast.type': 'org.apache.kafka.connect.transforms.Cast$Value',
      'transforms.cast.spec': 'qty:int32',
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': 'orders-dlq',
      'errors.deadletterqueue.context.headers.enable': 'true',
    });

    const [envelope] = await processed(p, order('not a number'));

    expect(envelope?.outgoing).toBeNull();
    expect(envelope?.deadLetters).toHaveLength(1);
    const [dead] = envelope?.deadLetters ?? [];
    expect(dead?.topic).toBe('orders-dlq');
    const headers = new Map(dead?.headers?.map((h) => [h.key, text(h.value)]));
    expect(headers.get('__connect.errors.stage')).toBe('TRANSFORMATION');
    expect(headers.get('__connect.errors.connector.name')).toBe('orders');
    expect(headers.get('__connect.errors.task.id')).toBe('0');
    expect(headers.get('__connect.errors.class.name')).toContain('Cast');
  });

  it('fails when errors.tolerance is none', async () => {
    const p = pipeline({
      transforms: 'cast',
      'transforms.cast.type': 'org.apache.kafka.connect.transforms.Cast$Value',
      'transforms.cast.spec': 'qty:int32',
    });
    await expect(processed(p, order('not a number'))).rejects.toThrow(/Tolerance exceeded/);
  });

  it('gives a whole batch the results of processing its records one by one, each with its own dead letters', async () => {
    const extra = {
      transforms: 'cast',
      'transforms.cast.type': 'org.apache.kafka.connect.transforms.Cast$Value',
      'transforms.cast.spec': 'qty:int32',
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': 'orders-dlq',
      'value.converter.schemas.enable': 'false',
    };
    const batch = [order('1'), order('not a number'), order('3'), order('x')];
    const one = pipeline(extra);
    const expected = [];
    for (const record of batch) expected.push(...(await processed(one, record)));

    const envelopes = await processed(pipeline(extra), ...batch);

    const summary = (list: SourceEnvelope[]) =>
      list.map((e) => [e.original, text(e.outgoing?.value ?? null), e.deadLetters.length]);
    expect(summary(envelopes)).toEqual(summary(expected));
    expect(envelopes.map((e) => e.original)).toEqual(batch);
    expect(envelopes.map((e) => e.outgoing !== null)).toEqual([true, false, true, false]);
    // Each failed record carries its own dead letter, not its neighbour's.
    expect(envelopes.map((e) => e.deadLetters.length)).toEqual([0, 1, 0, 1]);
  });

  it('retries a retriable converter failure, counting its first attempt, and produces the record', async () => {
    const flaky = new FlakyConverter(2);
    const p = pipeline(
      {
        'value.converter': 'test.FlakyConverter',
        'errors.retry.timeout': '60000',
        'errors.retry.delay.max.ms': '0',
      },
      flaky,
    );

    const [envelope] = await processed(p, order('3'));

    expect(envelope?.outgoing).not.toBeNull();
    expect(flaky.calls).toBe(3); // two failed attempts, then the one that worked
  });

  it('awaits an asynchronous converter, retrying its retriable rejections, and produces the record', async () => {
    const flaky = new FlakyConverter(2, { async: true });
    const p = pipeline(
      {
        'value.converter': 'test.FlakyConverter',
        'errors.retry.timeout': '60000',
        'errors.retry.delay.max.ms': '0',
      },
      flaky,
    );

    const [envelope] = await processed(p, order('3'));

    expect(envelope?.outgoing?.topic).toBe('orders');
    expect(envelope?.outgoing?.value).not.toBeNull();
    expect(flaky.calls).toBe(3);
  });

  it('gives the dead letter queue a record an asynchronous converter rejects with a DataError', async () => {
    const flaky = new FlakyConverter(1, {
      async: true,
      error: () => new DataError('Schema being registered is incompatible (error code 409)'),
    });
    const p = pipeline(
      {
        'value.converter': 'test.FlakyConverter',
        'errors.tolerance': 'all',
        'errors.deadletterqueue.topic.name': 'orders-dlq',
        'errors.deadletterqueue.context.headers.enable': 'true',
      },
      flaky,
    );

    const envelopes = await processed(p, order('1'), order('2'));

    expect(envelopes.map((e) => [e.outgoing !== null, e.deadLetters.length])).toEqual([
      [false, 1],
      [true, 0],
    ]);
    const headers = new Map(
      envelopes[0]?.deadLetters[0]?.headers?.map((h) => [h.key, text(h.value)]),
    );
    expect(headers.get('__connect.errors.stage')).toBe('VALUE_CONVERTER');
    expect(headers.get('__connect.errors.exception.message')).toBe(
      'Schema being registered is incompatible (error code 409)',
    );
  });

  it('fails a record on its first failed attempt when errors.retry.timeout is 0', async () => {
    const flaky = new FlakyConverter(1);
    const p = pipeline({ 'value.converter': 'test.FlakyConverter' }, flaky);

    await expect(processed(p, order('3'))).rejects.toThrow(/Tolerance exceeded/);
    expect(flaky.calls).toBe(1); // no second attempt, which would have worked
  });
});
