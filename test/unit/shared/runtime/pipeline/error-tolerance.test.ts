import { describe, expect, it } from 'vitest';
import { ConfigError, DataError, IllegalStateError } from '../../../../../shared/connect/errors.js';
import { SourceRecord } from '../../../../../shared/connect/records.js';
import {
  collectingDeadLetterSink,
  createErrorHandler,
  deadLetterTopicSpec,
  type ErrorHandlingSettings,
  errorHandlingConfig,
  errorHandlingMetricValues,
  ProcessingContext,
} from '../../../../../shared/runtime/pipeline/error-tolerance.js';
import { fakeTime, headerText, recordingLogger, single, text } from './error-handling-fakes.js';

const sinkProps = (extra: Record<string, string> = {}) => ({
  name: 'orders-sink',
  'connector.class': 'org.example.S3SinkConnector',
  topics: 'orders',
  ...extra,
});

const sourceProps = (extra: Record<string, string> = {}) => ({
  name: 'pg-source',
  'connector.class': 'org.example.PostgresSource',
  ...extra,
});

describe('errorHandlingConfig', () => {
  it("applies Connect's defaults when no errors.* key is set", () => {
    // Act
    const settings = errorHandlingConfig(sinkProps(), 'sink');

    // Assess
    expect(settings).toEqual({
      retryTimeoutMs: 0,
      retryDelayMaxMs: 60_000,
      tolerance: 'none',
      logEnable: false,
      logIncludeMessages: false,
      deadLetterQueue: { topicName: undefined, replicationFactor: 3, contextHeadersEnable: false },
    });
  });

  it('reads every errors.* key', () => {
    // Act
    const settings = errorHandlingConfig(
      sinkProps({
        'errors.retry.timeout': '-1',
        'errors.retry.delay.max.ms': '5000',
        'errors.tolerance': 'all',
        'errors.log.enable': 'true',
        'errors.log.include.messages': 'true',
        'errors.deadletterqueue.topic.name': 'orders-dlq',
        'errors.deadletterqueue.topic.replication.factor': '1',
        'errors.deadletterqueue.context.headers.enable': 'true',
      }),
      'sink',
    );

    // Assess
    expect(settings).toEqual({
      retryTimeoutMs: -1,
      retryDelayMaxMs: 5000,
      tolerance: 'all',
      logEnable: true,
      logIncludeMessages: true,
      deadLetterQueue: {
        topicName: 'orders-dlq',
        replicationFactor: 1,
        contextHeadersEnable: true,
      },
    });
  });

  it('accepts a dead letter queue for a source connector', () => {
    // Act
    const settings = errorHandlingConfig(
      sourceProps({ 'errors.deadletterqueue.topic.name': 'pg-dlq' }),
      'source',
    );

    // Assess
    expect(settings.deadLetterQueue.topicName).toBe('pg-dlq');
  });

  it('rejects an unknown tolerance with a ConfigError naming the key', () => {
    // Act
    const parse = () => errorHandlingConfig(sinkProps({ 'errors.tolerance': 'some' }), 'sink');

    // Assess
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(expect.objectContaining({ key: 'errors.tolerance' }));
  });
});

describe('deadLetterTopicSpec', () => {
  it('asks for one partition with the configured replication factor', () => {
    // Prepare
    const settings = errorHandlingConfig(
      sinkProps({
        'errors.deadletterqueue.topic.name': 'orders-dlq',
        'errors.deadletterqueue.topic.replication.factor': '2',
      }),
      'sink',
    );

    // Act
    const spec = deadLetterTopicSpec(settings);

    // Assess
    expect(spec).toEqual({ topic: 'orders-dlq', partitions: 1, replicationFactor: 2 });
  });

  it('is undefined when no DLQ topic is set', () => {
    // Act
    const spec = deadLetterTopicSpec(errorHandlingConfig(sinkProps(), 'sink'));

    // Assess
    expect(spec).toBeUndefined();
  });
});

describe('createErrorHandler', () => {
  const withDlq: ErrorHandlingSettings = {
    retryTimeoutMs: 0,
    retryDelayMaxMs: 60_000,
    tolerance: 'all',
    logEnable: true,
    logIncludeMessages: false,
    deadLetterQueue: { topicName: 'pg-dlq', replicationFactor: 3, contextHeadersEnable: true },
  };

  it('refuses a DLQ topic without a dead letter sink', () => {
    // Act
    const create = () =>
      createErrorHandler(withDlq, {
        ...fakeTime(),
        taskId: { connector: 'pg-source', task: 1 },
        logger: recordingLogger(),
      });

    // Assess
    expect(create).toThrow(IllegalStateError);
  });

  it('dead-letters a source record that failed a transformation and counts it', async () => {
    // Prepare
    const sink = collectingDeadLetterSink();
    const logger = recordingLogger();
    const { operator, metrics, deadLetterQueueEnabled } = createErrorHandler(withDlq, {
      ...fakeTime(),
      taskId: { connector: 'pg-source', task: 1 },
      logger,
      deadLetterSink: sink,
    });
    const polled = new SourceRecord({
      sourcePartition: { table: 'users' },
      sourceOffset: { id: 99 },
      topic: 'db.users',
      key: 99,
      value: { name: 'alice' },
    });

    // Act
    const result = await operator.execute(
      'TRANSFORMATION',
      'org.apache.kafka.connect.transforms.Cast$Value',
      () => {
        throw new DataError('Cast to int32 failed');
      },
      ProcessingContext.forSource(polled),
    );

    // Assess
    expect(deadLetterQueueEnabled).toBe(true);
    expect(result.failed).toBe(true);
    const record = single(sink.drain());
    expect(record.topic).toBe('pg-dlq');
    expect(text(record.key)).toBe('99');
    expect(text(record.value)).toBe('{"name":"alice"}');
    expect(headerText(record)).toMatchObject({
      '__connect.errors.topic': 'db.users',
      '__connect.errors.partition': '{"table":"users"}',
      '__connect.errors.offset': '{"id":99}',
      '__connect.errors.connector.name': 'pg-source',
      '__connect.errors.task.id': '1',
      '__connect.errors.stage': 'TRANSFORMATION',
      '__connect.errors.class.name': 'org.apache.kafka.connect.transforms.Cast$Value',
      '__connect.errors.exception.class.name': 'DataError',
      '__connect.errors.exception.message': 'Cast to int32 failed',
    });
    expect(logger.lines).toHaveLength(1);
    expect(errorHandlingMetricValues(metrics)).toMatchObject({
      'total-record-failures': 1,
      'total-record-errors': 1,
      'total-records-skipped': 1,
      'total-retries': 0,
      'total-errors-logged': 1,
      'deadletterqueue-produce-requests': 1,
      'deadletterqueue-produce-failures': 0,
    });
  });

  it('logs nothing when errors.log.enable is false', async () => {
    // Prepare
    const logger = recordingLogger();
    const { operator } = createErrorHandler(
      {
        ...withDlq,
        logEnable: false,
        deadLetterQueue: { ...withDlq.deadLetterQueue, topicName: undefined },
      },
      { ...fakeTime(), taskId: { connector: 'c', task: 0 }, logger },
    );

    // Act
    await operator.execute(
      'VALUE_CONVERTER',
      'Conv',
      () => {
        throw new DataError('x');
      },
      ProcessingContext.forSource(
        new SourceRecord({ sourcePartition: null, sourceOffset: null, topic: 't' }),
      ),
    );

    // Assess
    expect(logger.lines).toEqual([]);
  });
});
