import { describe, expect, it } from 'vitest';
import { parseConnectorConfig } from '../../../../../shared/config/connector-config.js';
import { DataError, RetriableError } from '../../../../../shared/connect/errors.js';
import { SinkRecord } from '../../../../../shared/connect/records.js';
import { Schemas } from '../../../../../shared/connect/schema.js';
import { builtinRegistry } from '../../../../../shared/plugins/registry.js';
import type { ConsumedRecord, OutgoingRecord } from '../../../../../shared/ports/kafka.js';
import { silentLogger } from '../../../../../shared/ports/logger.js';
import { SinkEnvelope } from '../../../../../shared/runtime/pipeline/record-envelope.js';
import {
  buildSinkPipeline,
  type SinkRecordPipeline,
} from '../../../../../shared/runtime/pipeline/sink-pipeline.js';
import {
  FlakyConverter,
  fakeTime,
  recordingSink,
  registerFlakyConverter,
} from './error-handling-fakes.js';

const STRING = 'org.apache.kafka.connect.storage.StringConverter';
const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array | null | undefined) =>
  bytes === null || bytes === undefined ? null : new TextDecoder().decode(bytes);

function pipeline(extra: Record<string, string>, flaky?: FlakyConverter, time = fakeTime()) {
  const config = parseConnectorConfig(
    { name: 'orders-sink', 'connector.class': 'x', topics: 'orders', ...extra },
    'sink',
  );
  const dlq = recordingSink();
  const plugins = builtinRegistry();
  if (flaky !== undefined) registerFlakyConverter(plugins, flaky);
  const built = buildSinkPipeline(config, 2, {
    plugins,
    logger: silentLogger,
    clock: time.clock,
    sleep: time.sleep,
    deadLetters: dlq,
  });
  return { built, dlq };
}

/** A dead letter's context header `key`. */
const headerOf = (record: OutgoingRecord | undefined, key: string) =>
  text(record?.headers?.find((h) => h.key === key)?.value);

/** The records' envelopes once `p` processed them as one batch. */
async function processed(p: SinkRecordPipeline, ...records: ConsumedRecord[]) {
  const envelopes = records.map((record) => new SinkEnvelope(record));
  await p.process(envelopes);
  return envelopes;
}

const consumed = {
  topic: 'orders',
  partition: 1,
  offset: 9,
  timestamp: 1_000,
  timestampType: 'CreateTime' as const,
  key: utf8('k'),
  value: null,
  headers: [{ key: 'h', value: utf8('1') }],
};

describe('buildSinkPipeline', () => {
  it('converts key, value and headers into a SinkRecord; a null value stays a tombstone', async () => {
    const { built } = pipeline({ 'key.converter': STRING, 'value.converter': STRING });

    const [envelope] = await processed(built, consumed);

    expect(envelope?.outcome).toBe('put');
    const record = envelope?.record;
    expect(record?.key).toBe('k');
    expect(record?.value).toBeNull();
    expect(record?.timestamp).toBe(1_000);
    expect(record?.headers.lastWithName('h')?.value).toBe(1);
    expect(record?.consumed).toBe(consumed);
  });

  it('offers errant reporting when errors are tolerated, logged or dead-lettered', () => {
    expect(pipeline({}).built.errantReporting).toBe(false);
    expect(pipeline({ 'errors.tolerance': 'all' }).built.errantReporting).toBe(true);
    expect(pipeline({ 'errors.log.enable': 'true' }).built.errantReporting).toBe(true);
    expect(pipeline({ 'errors.deadletterqueue.topic.name': 'dlq' }).built.errantReporting).toBe(
      true,
    );
  });

  it('serialises a reported record the task built itself with the connector converters', async () => {
    const { built, dlq } = pipeline({
      'key.converter': STRING,
      'value.converter': STRING,
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': 'dlq',
    });
    const record = new SinkRecord({
      topic: 'orders',
      kafkaPartition: 0,
      kafkaOffset: 4,
      keySchema: Schemas.STRING,
      key: 'id-4',
      valueSchema: Schemas.STRING,
      value: 'payload',
    });

    const deadLettered = await built.reportErrant(record, new Error('no'), 'MyTask');

    expect(deadLettered).toBe(true);
    expect([dlq.sent[0]?.topic, text(dlq.sent[0]?.key), text(dlq.sent[0]?.value)]).toEqual([
      'dlq',
      'id-4',
      'payload',
    ]);
  });

  it('reports a record it gave to put, or a copy the task made of it, with its consumed bytes', async () => {
    const { built, dlq } = pipeline({
      'key.converter': STRING,
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': 'dlq',
      'errors.deadletterqueue.context.headers.enable': 'true',
    });
    const raw = { ...consumed, value: utf8('{ "id" : 7 }') }; // not as the converter writes it
    const [envelope] = await processed(built, raw);
    const record = envelope?.record as SinkRecord;

    await built.reportErrant(record, new Error('no'), 'MyTask');
    await built.reportErrant(record.newRecord({ value: { id: 8 } }), new Error('no'), 'MyTask');

    expect(dlq.sent.map((r) => text(r.value))).toEqual(['{ "id" : 7 }', '{ "id" : 7 }']);
    expect(dlq.sent.map((r) => r.headers?.slice(0, 1))).toEqual([raw.headers, raw.headers]);
    const stage = dlq.sent[0]?.headers?.find((h) => h.key === '__connect.errors.stage');
    expect(text(stage?.value)).toBe('TASK_PUT');
  });

  it('rejects a reported record under errors.tolerance=none', async () => {
    const { built } = pipeline({ 'errors.log.enable': 'true' });
    const record = new SinkRecord({ topic: 'orders', kafkaPartition: 1, kafkaOffset: 9 });
    await expect(built.reportErrant(record, new Error('no'), 'MyTask')).rejects.toThrow(
      'Tolerance exceeded',
    );
  });

  it('gives a batch the results of its records one by one: a bad value is dead-lettered in place', async () => {
    const { built, dlq } = pipeline({
      'key.converter': STRING,
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': 'dlq',
      'errors.deadletterqueue.context.headers.enable': 'true',
    });
    const at = (offset: number, value: string) => ({ ...consumed, offset, value: utf8(value) });

    const envelopes = await processed(
      built,
      at(1, '{"id":1}'),
      at(2, '{not json'),
      at(3, '{"id":3}'),
    );

    expect(envelopes.map((e) => e.outcome)).toEqual(['put', 'failed', 'put']);
    expect(envelopes.map((e) => e.record?.kafkaOffset ?? -1)).toEqual([1, -1, 3]);
    expect(envelopes.map((e) => e.deadLettered)).toEqual([false, true, false]);
    expect(dlq.sent.map((r) => text(r.value))).toEqual(['{not json']);
    const stage = dlq.sent[0]?.headers?.find((h) => h.key === '__connect.errors.stage');
    expect(text(stage?.value)).toBe('VALUE_CONVERTER');
    expect(built.metrics.totalRecordErrors).toBe(1);
  });

  it('retries a retriable converter failure under errors.retry.timeout, counting its first attempt', async () => {
    const flaky = new FlakyConverter(2);
    const { built } = pipeline(
      {
        'key.converter': STRING,
        'value.converter': 'test.FlakyConverter',
        'errors.retry.timeout': '60000',
        'errors.retry.delay.max.ms': '0',
      },
      flaky,
    );

    const [envelope] = await processed(built, { ...consumed, value: utf8('v') });

    expect(envelope?.record?.value).toBe('v');
    expect(flaky.calls).toBe(3); // two failed attempts, then the one that worked
    expect(built.metrics.totalRetries).toBe(2);
  });

  it('fails on the first failed attempt when errors.retry.timeout is 0 and nothing is tolerated', async () => {
    const flaky = new FlakyConverter(1);
    const { built } = pipeline({ 'key.converter': 'test.FlakyConverter' }, flaky);

    await expect(processed(built, consumed)).rejects.toThrow(/Tolerance exceeded/);
    expect(flaky.calls).toBe(1); // no second attempt, which would have worked
  });

  it('awaits an asynchronous converter and retries its retriable rejections, keeping the batch in order', async () => {
    const flaky = new FlakyConverter(2, { async: true });
    const { built } = pipeline(
      {
        'key.converter': STRING,
        'value.converter': 'test.FlakyConverter',
        'errors.retry.timeout': '60000',
        'errors.retry.delay.max.ms': '0',
      },
      flaky,
    );

    const envelopes = await processed(
      built,
      { ...consumed, offset: 1, value: utf8('a') },
      { ...consumed, offset: 2, value: utf8('b') },
    );

    expect(envelopes.map((e) => [e.outcome, e.record?.value])).toEqual([
      ['put', 'a'],
      ['put', 'b'],
    ]);
    expect(flaky.calls).toBe(4); // two rejected attempts, then one per record
    expect(built.metrics.totalRetries).toBe(2);
  });

  it('retries an asynchronous converter until errors.retry.timeout, then dead-letters the record with its message', async () => {
    const time = fakeTime();
    const flaky = new FlakyConverter(Number.POSITIVE_INFINITY, {
      async: true,
      error: () => new RetriableError('Schema registry gave no answer: ECONNREFUSED'),
    });
    const { built, dlq } = pipeline(
      {
        'key.converter': STRING,
        'value.converter': 'test.FlakyConverter',
        'errors.retry.timeout': '5000',
        'errors.retry.delay.max.ms': '1000',
        'errors.tolerance': 'all',
        'errors.deadletterqueue.topic.name': 'dlq',
        'errors.deadletterqueue.context.headers.enable': 'true',
      },
      flaky,
      time,
    );

    const [envelope] = await processed(built, { ...consumed, value: utf8('v') });

    expect(envelope?.outcome).toBe('failed');
    expect(flaky.calls).toBeGreaterThan(2);
    expect(time.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeGreaterThanOrEqual(5000);
    expect(text(dlq.sent[0]?.value ?? null)).toBe('v');
    expect(headerOf(dlq.sent[0], '__connect.errors.exception.message')).toBe(
      'Schema registry gave no answer: ECONNREFUSED',
    );
  });

  it('dead-letters a record an asynchronous converter rejects with a DataError, without retrying it', async () => {
    const flaky = new FlakyConverter(1, {
      async: true,
      error: () => new DataError('Schema 7 not found (error code 40403)'),
    });
    const { built, dlq } = pipeline(
      {
        'key.converter': STRING,
        'value.converter': 'test.FlakyConverter',
        'errors.retry.timeout': '60000',
        'errors.tolerance': 'all',
        'errors.deadletterqueue.topic.name': 'dlq',
        'errors.deadletterqueue.context.headers.enable': 'true',
      },
      flaky,
    );

    const envelopes = await processed(
      built,
      { ...consumed, offset: 1, value: utf8('a') },
      { ...consumed, offset: 2, value: utf8('b') },
    );

    expect(envelopes.map((e) => e.outcome)).toEqual(['failed', 'put']);
    expect(flaky.calls).toBe(2);
    expect(headerOf(dlq.sent[0], '__connect.errors.exception.message')).toBe(
      'Schema 7 not found (error code 40403)',
    );
    expect(headerOf(dlq.sent[0], '__connect.errors.stage')).toBe('VALUE_CONVERTER');
  });

  it('serialises a reported record with asynchronous converters', async () => {
    const flaky = new FlakyConverter(0, { async: true });
    const { built, dlq } = pipeline(
      {
        'key.converter': 'test.FlakyConverter',
        'value.converter': 'test.FlakyConverter',
        'errors.tolerance': 'all',
        'errors.deadletterqueue.topic.name': 'dlq',
      },
      flaky,
    );
    const record = new SinkRecord({
      topic: 'orders',
      kafkaPartition: 0,
      kafkaOffset: 4,
      keySchema: Schemas.STRING,
      key: 'id-4',
      valueSchema: Schemas.STRING,
      value: 'payload',
    });

    await built.reportErrant(record, new Error('no'), 'MyTask');

    expect([text(dlq.sent[0]?.key ?? null), text(dlq.sent[0]?.value ?? null)]).toEqual([
      'id-4',
      'payload',
    ]);
  });

  it('skips a record a transformation drops, and one whose transformation fails when tolerated', async () => {
    const { built } = pipeline({
      'key.converter': STRING,
      'value.converter': STRING,
      'errors.tolerance': 'all',
      transforms: 'drop,cast',
      'transforms.drop.type': 'org.apache.kafka.connect.transforms.Filter',
      'transforms.drop.predicate': 'isTombstone',
      predicates: 'isTombstone',
      'predicates.isTombstone.type':
        'org.apache.kafka.connect.transforms.predicates.RecordIsTombstone',
      'transforms.cast.type': 'org.apache.kafka.connect.transforms.Cast$Value',
      'transforms.cast.spec': 'int32',
    });

    const envelopes = await processed(
      built,
      { ...consumed, offset: 1, value: null },
      { ...consumed, offset: 2, value: utf8('not a number') },
      { ...consumed, offset: 3, value: utf8('42') },
    );

    expect(envelopes.map((e) => e.outcome)).toEqual(['filtered', 'failed', 'put']);
    expect(envelopes[2]?.record?.value).toBe(42);
    // A transformed record still carries the record as consumed.
    expect(envelopes[2]?.record?.consumed).toBe(envelopes[2]?.original);
    expect(built.metrics.totalRecordErrors).toBe(1);
  });
});
