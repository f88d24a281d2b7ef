import { describe, expect, it } from 'vitest';
import { Headers } from '../../../../shared/connect/headers.js';
import {
  parseTopicPartitionKey,
  SinkRecord,
  SourceRecord,
  topicPartitionKey,
} from '../../../../shared/connect/records.js';
import { Schemas } from '../../../../shared/connect/schema.js';

const source = (): SourceRecord =>
  new SourceRecord({
    sourcePartition: { file: 'a.txt' },
    sourceOffset: { line: 3 },
    topic: 'lines',
    valueSchema: Schemas.STRING,
    value: 'hello',
    headers: new Headers().add('h', 1),
  });

const sink = (): SinkRecord =>
  new SinkRecord({
    topic: 'orders',
    kafkaPartition: 2,
    kafkaOffset: 41,
    key: 'k',
    value: 'v',
    timestamp: 1000,
    timestampType: 'CreateTime',
  });

describe('SourceRecord', () => {
  it('fills defaults for omitted fields', () => {
    // Act
    const record = new SourceRecord({ sourcePartition: null, sourceOffset: null, topic: 't' });

    // Assess
    expect(record).toMatchObject({
      topic: 't',
      kafkaPartition: null,
      keySchema: null,
      key: null,
      valueSchema: null,
      value: null,
      timestamp: null,
    });
    expect(record.headers.size).toBe(0);
  });

  it('is frozen, and so are its source partition, offset and headers', () => {
    // Prepare
    const record = source();

    // Act + Assess
    expect(Object.isFrozen(record)).toBe(true);
    expect(Object.isFrozen(record.sourcePartition)).toBe(true);
    expect(Object.isFrozen(record.sourceOffset)).toBe(true);
    expect(() => (record.headers as Headers).add('x', 1)).toThrow(/read-only/);
  });

  it('does not share the headers it was built from', () => {
    // Prepare
    const headers = new Headers().add('a', 1);
    const record = new SourceRecord({
      sourcePartition: null,
      sourceOffset: null,
      topic: 't',
      headers,
    });

    // Act
    headers.add('b', 2);

    // Assess
    expect(record.headers.size).toBe(1);
  });

  it('copies with newRecord keeping its source partition and offset, leaving the input as is', () => {
    // Prepare
    const original = source();

    // Act
    const copy = original.newRecord({ topic: 'other', value: null, valueSchema: null });

    // Assess
    expect(copy).toBeInstanceOf(SourceRecord);
    expect(copy).not.toBe(original);
    expect(copy).toMatchObject({
      topic: 'other',
      value: null,
      valueSchema: null,
      sourcePartition: { file: 'a.txt' },
      sourceOffset: { line: 3 },
    });
    expect(copy.headers.lastWithName('h')?.value).toBe(1);
    expect(original.equals(source())).toBe(true);
  });

  it('replaces headers given to newRecord', () => {
    // Prepare
    const original = source();

    // Act
    const copy = original.newRecord({ headers: original.headers.duplicate().add('n', 2) });

    // Assess
    expect(copy.headers.size).toBe(2);
    expect(original.headers.size).toBe(1);
  });

  it('compares deeply with equals', () => {
    // Act + Assess
    expect(source().equals(source())).toBe(true);
    expect(source().equals(source().newRecord({ value: 'bye' }))).toBe(false);
    expect(source().equals(sink())).toBe(false);
  });
});

describe('SinkRecord', () => {
  it('defaults the timestamp type and originals', () => {
    // Act
    const record = new SinkRecord({ topic: 't', kafkaPartition: 0, kafkaOffset: 5 });

    // Assess
    expect(record).toMatchObject({
      timestampType: 'NoTimestampType',
      originalTopic: 't',
      originalKafkaPartition: 0,
      originalKafkaOffset: 5,
    });
  });

  it('copies with newRecord keeping offset, timestamp type and original coordinates', () => {
    // Act
    const copy = sink().newRecord({ topic: 'renamed', kafkaPartition: 7, key: null });

    // Assess
    expect(copy).toBeInstanceOf(SinkRecord);
    expect(copy).toMatchObject({
      topic: 'renamed',
      kafkaPartition: 7,
      key: null,
      value: 'v',
      timestamp: 1000,
      kafkaOffset: 41,
      timestampType: 'CreateTime',
      originalTopic: 'orders',
      originalKafkaPartition: 2,
      originalKafkaOffset: 41,
    });
    expect(Object.isFrozen(copy)).toBe(true);
  });
});

describe('topicPartitionKey', () => {
  it('round-trips topics that contain dashes', () => {
    // Act
    const key = topicPartitionKey({ topic: 'my-topic-1', partition: 12 });

    // Assess
    expect(key).toBe('my-topic-1-12');
    expect(parseTopicPartitionKey(key)).toEqual({ topic: 'my-topic-1', partition: 12 });
    expect(() => parseTopicPartitionKey('nodash')).toThrow();
  });
});
