import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { chunksOf, headersOf, toEsmSourceRecord } from '../../../../local/esm/kafkajs-records.js';

const bytes = (text: string) => new TextEncoder().encode(text);

function message(overrides: Partial<KafkaMessage> = {}): KafkaMessage {
  return {
    key: Buffer.from('k'),
    value: Buffer.from('v'),
    timestamp: '1764403200000',
    attributes: 0,
    offset: '4711',
    headers: {},
    ...overrides,
  } as KafkaMessage;
}

describe('toEsmSourceRecord', () => {
  it('turns string offsets and timestamps into numbers and buffers into bytes', () => {
    // Act
    const record = toEsmSourceRecord('orders.v1', 3, message());

    // Assess
    expect(record).toEqual({
      topic: 'orders.v1',
      partition: 3,
      offset: 4711,
      timestamp: 1764403200000,
      timestampType: 'CREATE_TIME',
      key: bytes('k'),
      value: bytes('v'),
      headers: [],
    });
  });

  it('keeps a null key and a null value (tombstone) as null', () => {
    // Act
    const record = toEsmSourceRecord('t', 0, message({ key: null, value: null }));

    // Assess
    expect(record.key).toBeNull();
    expect(record.value).toBeNull();
  });

  it('reports LOG_APPEND_TIME when the record batch says so', () => {
    // Prepare
    const appended = {
      ...message(),
      batchContext: { timestampType: 1 },
    } as unknown as KafkaMessage;

    // Act
    const record = toEsmSourceRecord('t', 0, appended);

    // Assess
    expect(record.timestampType).toBe('LOG_APPEND_TIME');
  });
});

describe('headersOf', () => {
  it('flattens repeated names in order and encodes string values as UTF-8', () => {
    // Act
    const headers = headersOf({
      trace: Buffer.from([0xc3, 0xab]),
      tag: ['a', Buffer.from('b')],
      text: 'é',
    });

    // Assess
    expect(headers).toEqual([
      { key: 'trace', value: new Uint8Array([0xc3, 0xab]) },
      { key: 'tag', value: bytes('a') },
      { key: 'tag', value: bytes('b') },
      { key: 'text', value: bytes('é') },
    ]);
  });

  it('keeps a header without a value as null', () => {
    // Act
    const headers = headersOf({ empty: undefined });

    // Assess
    expect(headers).toEqual([{ key: 'empty', value: null }]);
  });
});

describe('chunksOf', () => {
  it('cuts a fetch into invocations of at most the batch size, in order', () => {
    // Act
    const chunks = chunksOf([1, 2, 3, 4, 5], 2);

    // Assess
    expect(chunks).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('returns no chunk for no records', () => {
    // Act
    const chunks = chunksOf([], 10);

    // Assess
    expect(chunks).toEqual([]);
  });
});
