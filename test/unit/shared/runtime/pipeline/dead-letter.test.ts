import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../shared/connect/errors.js';
import { Headers } from '../../../../../shared/connect/headers.js';
import { SourceRecord } from '../../../../../shared/connect/records.js';
import { SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import type { ConsumedRecord } from '../../../../../shared/ports/kafka.js';
import {
  buildDeadLetterRecord,
  collectingDeadLetterSink,
  DeadLetterHeaders,
  DeadLetterQueueReporter,
} from '../../../../../shared/runtime/pipeline/dead-letter.js';
import {
  createErrorHandlingMetrics,
  ProcessingContext,
  type Stage,
} from '../../../../../shared/runtime/pipeline/error-stage.js';
import { headerText, present, recordingSink, single, text } from './error-handling-fakes.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

const consumed: ConsumedRecord = {
  topic: 'orders',
  partition: 3,
  offset: 1042,
  timestamp: 1_700_000_000_000,
  timestampType: 'CreateTime',
  key: new Uint8Array([0x00, 0xff, 0x10]),
  value: utf8('{"id": 7, broken'),
  headers: [
    { key: 'trace', value: utf8('abc') },
    { key: 'trace', value: utf8('def') },
    { key: 'empty', value: null },
  ],
};

const taskId = { connector: 'orders-sink', task: 2 };

function failedContext(
  context: ProcessingContext,
  stage: Stage,
  className: string,
  error: unknown,
): ProcessingContext {
  context.currentContext(stage, className);
  context.fail(error);
  return context;
}

function syntaxFailure(): DataError {
  const cause = new SyntaxError('Unexpected token b in JSON at position 10');
  return new DataError(
    'Converting byte[] to Kafka Connect data failed due to serialization error',
    {
      cause,
    },
  );
}

describe('buildDeadLetterRecord for a consumed record', () => {
  it('carries the original key, value, headers and timestamp to the DLQ topic', () => {
    // Prepare
    const context = failedContext(
      ProcessingContext.forConsumed(consumed),
      'VALUE_CONVERTER',
      'org.apache.kafka.connect.json.JsonConverter',
      syntaxFailure(),
    );

    // Act
    const record = present(
      buildDeadLetterRecord(context, {
        topic: 'orders-dlq',
        contextHeadersEnable: false,
        taskId,
      }),
    );

    // Assess
    expect(record).toEqual({
      topic: 'orders-dlq',
      key: consumed.key,
      value: consumed.value,
      headers: consumed.headers,
      timestamp: 1_700_000_000_000,
    });
    expect(record).not.toHaveProperty('partition');
  });

  it('appends every context header, as UTF-8 text, when context headers are enabled', () => {
    // Prepare
    const error = syntaxFailure();
    const context = failedContext(
      ProcessingContext.forConsumed(consumed),
      'VALUE_CONVERTER',
      'org.apache.kafka.connect.json.JsonConverter',
      error,
    );

    // Act
    const record = present(
      buildDeadLetterRecord(context, {
        topic: 'orders-dlq',
        contextHeadersEnable: true,
        taskId,
      }),
    );

    // Assess
    const headers = record.headers ?? [];
    expect(headers.slice(0, 3)).toEqual(consumed.headers);
    expect(headers.slice(3).map((h) => h.key)).toEqual([
      '__connect.errors.topic',
      '__connect.errors.partition',
      '__connect.errors.offset',
      '__connect.errors.connector.name',
      '__connect.errors.task.id',
      '__connect.errors.stage',
      '__connect.errors.class.name',
      '__connect.errors.exception.class.name',
      '__connect.errors.exception.message',
      '__connect.errors.exception.stacktrace',
    ]);
    const values = Object.fromEntries(headers.slice(3).map((h) => [h.key, text(h.value)]));
    expect(values).toMatchObject({
      '__connect.errors.topic': 'orders',
      '__connect.errors.partition': '3',
      '__connect.errors.offset': '1042',
      '__connect.errors.connector.name': 'orders-sink',
      '__connect.errors.task.id': '2',
      '__connect.errors.stage': 'VALUE_CONVERTER',
      '__connect.errors.class.name': 'org.apache.kafka.connect.json.JsonConverter',
      '__connect.errors.exception.class.name': 'DataError',
      '__connect.errors.exception.message':
        'Converting byte[] to Kafka Connect data failed due to serialization error',
    });
    const trace = values['__connect.errors.exception.stacktrace'] ?? '';
    expect(trace.split('\n')[0]).toBe(
      'DataError: Converting byte[] to Kafka Connect data failed due to serialization error',
    );
    expect(trace).toMatch(/\n\s+at /);
    expect(trace).toContain(
      '\nCaused by: SyntaxError: Unexpected token b in JSON at position 10\n',
    );
  });

  it('leaves the timestamp to the producer when the consumed record has none', () => {
    // Prepare
    const context = failedContext(
      ProcessingContext.forConsumed({ ...consumed, timestamp: -1 }),
      'KEY_CONVERTER',
      'Conv',
      new DataError('x'),
    );

    // Act
    const record = present(
      buildDeadLetterRecord(context, {
        topic: 'dlq',
        contextHeadersEnable: false,
        taskId,
      }),
    );

    // Assess
    expect(record).not.toHaveProperty('timestamp');
  });

  it('renders a thrown non-error value in the exception headers', () => {
    // Prepare
    const context = failedContext(
      ProcessingContext.forConsumed(consumed),
      'TRANSFORMATION',
      'Custom',
      'plain string failure',
    );

    // Act
    const record = present(
      buildDeadLetterRecord(context, {
        topic: 'dlq',
        contextHeadersEnable: true,
        taskId,
      }),
    );

    // Assess
    expect(headerText(record)).toMatchObject({
      [DeadLetterHeaders.EXCEPTION]: 'string',
      [DeadLetterHeaders.EXCEPTION_MESSAGE]: 'plain string failure',
      [DeadLetterHeaders.EXCEPTION_STACK_TRACE]: 'string: plain string failure',
    });
  });
});

describe('buildDeadLetterRecord for a source record', () => {
  const schema = SchemaBuilder.struct()
    .name('com.example.Order')
    .field('id', Schemas.INT32)
    .field('note', Schemas.OPTIONAL_STRING)
    .build();
  const headers = new Headers();
  headers.add('origin', 'db1');
  const polled = new SourceRecord({
    sourcePartition: { table: 'orders' },
    sourceOffset: { lsn: 9007199254740993n, seq: 4 },
    topic: 'db.orders',
    keySchema: Schemas.STRING,
    key: 'order-7',
    valueSchema: schema,
    value: new Struct(schema).put('id', 7).put('note', null),
    timestamp: 1_600_000_000_000,
    headers,
  });

  it('writes the key, value and headers as UTF-8 JSON and keeps the timestamp', () => {
    // Prepare
    const context = failedContext(
      ProcessingContext.forSource(polled),
      'TRANSFORMATION',
      'org.apache.kafka.connect.transforms.Cast$Value',
      new DataError('Unknown field'),
    );

    // Act
    const record = present(
      buildDeadLetterRecord(context, {
        topic: 'db-dlq',
        contextHeadersEnable: false,
        taskId,
      }),
    );

    // Assess
    expect(record.topic).toBe('db-dlq');
    expect(text(record.key)).toBe('"order-7"');
    expect(JSON.parse(text(record.value) ?? '')).toEqual({ id: 7, note: null });
    expect(record.headers?.map((h) => [h.key, text(h.value)])).toEqual([['origin', '"db1"']]);
    expect(record.timestamp).toBe(1_600_000_000_000);
  });

  it('writes a null value as no bytes (a tombstone), not the text null', () => {
    // Prepare
    const tombstone = polled.newRecord({ value: null, valueSchema: null });
    const context = failedContext(
      ProcessingContext.forSource(tombstone),
      'VALUE_CONVERTER',
      'Conv',
      new DataError('x'),
    );

    // Act
    const record = present(
      buildDeadLetterRecord(context, {
        topic: 'db-dlq',
        contextHeadersEnable: false,
        taskId,
      }),
    );

    // Assess
    expect(record.value).toBeNull();
  });

  it('describes the source partition and offset as JSON in the context headers', () => {
    // Prepare
    const context = failedContext(
      ProcessingContext.forSource(polled),
      'KEY_CONVERTER',
      'org.apache.kafka.connect.storage.StringConverter',
      new DataError('bad key'),
    );

    // Act
    const record = present(
      buildDeadLetterRecord(context, {
        topic: 'db-dlq',
        contextHeadersEnable: true,
        taskId: { connector: 'pg-source', task: 0 },
      }),
    );

    // Assess
    expect(headerText(record)).toMatchObject({
      '__connect.errors.topic': 'db.orders',
      '__connect.errors.partition': '{"table":"orders"}',
      '__connect.errors.offset': '{"lsn":"9007199254740993","seq":4}',
      '__connect.errors.connector.name': 'pg-source',
      '__connect.errors.task.id': '0',
      '__connect.errors.stage': 'KEY_CONVERTER',
      '__connect.errors.class.name': 'org.apache.kafka.connect.storage.StringConverter',
      '__connect.errors.exception.class.name': 'DataError',
      '__connect.errors.exception.message': 'bad key',
    });
  });

  it('leaves out the partition and offset headers when the record has none', () => {
    // Prepare
    const untracked = new SourceRecord({
      sourcePartition: null,
      sourceOffset: null,
      topic: 'ticks',
      value: 1,
    });
    const context = failedContext(
      ProcessingContext.forSource(untracked),
      'VALUE_CONVERTER',
      'Conv',
      new DataError('x'),
    );

    // Act
    const record = present(
      buildDeadLetterRecord(context, {
        topic: 'dlq',
        contextHeadersEnable: true,
        taskId,
      }),
    );

    // Assess
    const keys = (record.headers ?? []).map((h) => h.key);
    expect(keys).toContain('__connect.errors.topic');
    expect(keys).not.toContain('__connect.errors.partition');
    expect(keys).not.toContain('__connect.errors.offset');
  });
});

describe('DeadLetterQueueReporter', () => {
  it('sends one record to the trimmed DLQ topic and counts the request', async () => {
    // Prepare
    const sink = recordingSink();
    const metrics = createErrorHandlingMetrics();
    const reporter = new DeadLetterQueueReporter({
      topic: '  orders-dlq ',
      contextHeadersEnable: false,
      taskId,
      sink,
      metrics,
    });
    const context = failedContext(
      ProcessingContext.forConsumed(consumed),
      'VALUE_CONVERTER',
      'Conv',
      new DataError('x'),
    );

    // Act
    await reporter.report(context);

    // Assess
    expect(single(sink.sent).topic).toBe('orders-dlq');
    expect(metrics.deadLetterQueueProduceRequests).toBe(1);
    expect(metrics.deadLetterQueueProduceFailures).toBe(0);
  });

  it('sends nothing and counts a failure when the context holds no original record', async () => {
    // Prepare
    const sink = recordingSink();
    const metrics = createErrorHandlingMetrics();
    const reporter = new DeadLetterQueueReporter({
      topic: 'dlq',
      contextHeadersEnable: true,
      taskId,
      sink,
      metrics,
    });
    const context = failedContext(new ProcessingContext(null), 'TASK_PUT', 'Task', new Error('x'));

    // Act
    await reporter.report(context);

    // Assess
    expect(sink.sent).toEqual([]);
    expect(metrics.deadLetterQueueProduceFailures).toBe(1);
  });

  it('hands records to a collecting sink until they are drained', async () => {
    // Prepare
    const sink = collectingDeadLetterSink();
    const reporter = new DeadLetterQueueReporter({
      topic: 'dlq',
      contextHeadersEnable: false,
      taskId,
      sink,
      metrics: createErrorHandlingMetrics(),
    });
    await reporter.report(
      failedContext(ProcessingContext.forConsumed(consumed), 'KEY_CONVERTER', 'C', new Error('a')),
    );

    // Act
    const first = sink.drain();
    const second = sink.drain();

    // Assess
    expect(first.map((r) => r.value)).toEqual([consumed.value]);
    expect(second).toEqual([]);
  });
});
