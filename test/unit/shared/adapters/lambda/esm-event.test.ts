import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type EsmSourceRecord,
  parseEsmEvent,
  toEsmEvent,
} from '../../../../../shared/adapters/lambda/esm-event.js';
import { ConfigError, DataError } from '../../../../../shared/connect/errors.js';

const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array | null) =>
  bytes === null ? null : new TextDecoder().decode(bytes);

/** The MSK example of the AWS docs, with a header of non-ASCII bytes (signed). */
const mskEvent = {
  eventSource: 'aws:kafka',
  eventSourceArn: 'arn:aws:kafka:eu-west-1:111122223333:cluster/demo/abcd-1',
  bootstrapServers: 'b-1.demo:9098,b-2.demo:9098',
  records: {
    'orders.v1-3': [
      {
        topic: 'orders.v1',
        partition: 3,
        offset: 4711,
        timestamp: 1764403200000,
        timestampType: 'CREATE_TIME',
        key: 'b3JkZXItNDI=',
        value: 'eyJpZCI6NDJ9',
        headers: [{ 'trace-id': [97, 98, -61, -85] }],
      },
    ],
  },
};

function withRecord(record: Record<string, unknown>, key = 'orders-0') {
  return {
    eventSource: 'SelfManagedKafka',
    bootstrapServers: 'k:9092',
    records: { [key]: [record] },
  };
}

const base = {
  topic: 'orders',
  partition: 0,
  offset: 1,
  timestamp: 5,
  timestampType: 'CREATE_TIME',
};

describe('parseEsmEvent', () => {
  it('decodes an MSK event: base64 key and value, signed header bytes, timestamps', () => {
    const parsed = parseEsmEvent(mskEvent);

    expect(parsed.eventSource).toBe('aws:kafka');
    expect(parsed.recordCount).toBe(1);
    const [partition] = parsed.partitions;
    expect(partition?.topic).toBe('orders.v1');
    expect(partition?.partition).toBe(3);
    const record = partition?.records[0];
    expect(record?.offset).toBe(4711);
    expect(text(record?.key ?? null)).toBe('order-42');
    expect(text(record?.value ?? null)).toBe('{"id":42}');
    expect(record?.timestamp).toBe(1764403200000);
    expect(record?.timestampType).toBe('CreateTime');
    expect(record?.headers.map((h) => [h.key, text(h.value)])).toEqual([['trace-id', 'abë']]);
  });

  it('accepts self-managed events, including the old aws:SelfManagedKafka spelling', () => {
    const event = withRecord({ ...base, timestampType: 'LOG_APPEND_TIME' });
    expect(parseEsmEvent(event).eventSource).toBe('SelfManagedKafka');
    expect(parseEsmEvent({ ...event, eventSource: 'aws:SelfManagedKafka' }).eventSource).toBe(
      'SelfManagedKafka',
    );
    expect(parseEsmEvent(event).partitions[0]?.records[0]?.timestampType).toBe('LogAppendTime');
  });

  it('splits the records key on its last dash, so topics may contain dashes', () => {
    const event = withRecord({ ...base, topic: 'eu-orders-v2', partition: 12 }, 'eu-orders-v2-12');
    const [partition] = parseEsmEvent(event).partitions;
    expect([partition?.topic, partition?.partition]).toEqual(['eu-orders-v2', 12]);
  });

  it('reads a partition given as a numeric string', () => {
    const [partition] = parseEsmEvent(withRecord({ ...base, partition: '0' })).partitions;
    expect(partition?.records[0]?.partition).toBe(0);
  });

  it('treats a missing key as keyless and a missing or null value as a tombstone', () => {
    const { key: _k, ...noKey } = { ...base, key: 'eA==' };
    const missing = parseEsmEvent(withRecord(noKey)).partitions[0]?.records[0];
    const nullValue = parseEsmEvent(withRecord({ ...base, key: 'eA==', value: null })).partitions[0]
      ?.records[0];
    expect(missing?.key).toBeNull();
    expect(missing?.value).toBeNull();
    expect(text(nullValue?.key ?? null)).toBe('x');
    expect(nullValue?.value).toBeNull();
  });

  it('keeps repeated header names in order and decodes negative bytes with & 0xff', () => {
    const record = parseEsmEvent(
      withRecord({ ...base, headers: [{ h: [-1, -128, 0, 127] }, { g: [] }, { h: [1] }] }),
    ).partitions[0]?.records[0];
    expect(record?.headers.map((h) => [h.key, [...(h.value ?? [])]])).toEqual([
      ['h', [255, 128, 0, 127]],
      ['g', []],
      ['h', [1]],
    ]);
  });

  it('sorts each partition by offset and tolerates absent headers and timestamps', () => {
    const event = {
      eventSource: 'aws:kafka',
      records: { 'a-0': [{ offset: 9 }, { offset: 3 }] },
    };
    const records = parseEsmEvent(event).partitions[0]?.records ?? [];
    expect(records.map((r) => r.offset)).toEqual([3, 9]);
    expect(records[0]?.headers).toEqual([]);
    expect(records[0]?.timestamp).toBeNull();
    expect(records[0]?.timestampType).toBe('NoTimestampType');
  });

  it('rejects events that are not Kafka batches with a ConfigError naming what came', () => {
    expect(() => parseEsmEvent(null)).toThrow(ConfigError);
    expect(() => parseEsmEvent({ Records: [] })).toThrow(
      /eventSource aws:kafka or SelfManagedKafka/,
    );
    expect(() => parseEsmEvent({ eventSource: 'aws:sqs', records: {} })).toThrow(/"aws:sqs"/);
  });

  it.each([
    [
      'records not an object',
      { eventSource: 'aws:kafka', records: [] },
      /records must be an object/,
    ],
    ['a key without partition', withRecord(base, 'orders'), /"<topic>-<partition>"/],
    [
      'a negative offset',
      withRecord({ ...base, offset: -1 }),
      /offset must be a non-negative integer/,
    ],
    ['a text offset', withRecord({ ...base, offset: 'x' }), /offset/],
    ['a non-base64 value', withRecord({ ...base, value: 'not base64!' }), /value must be a base64/],
    ['a numeric key', withRecord({ ...base, key: 42 }), /key must be a base64/],
    ['a header byte out of range', withRecord({ ...base, headers: [{ h: [300] }] }), /byte/],
    [
      'headers not an array',
      withRecord({ ...base, headers: { h: [1] } }),
      /headers must be an array/,
    ],
    ['a record of another partition', withRecord({ ...base, partition: 2 }), /partition must be 0/],
    ['a record of another topic', withRecord({ ...base, topic: 'x' }), /topic must be 'orders'/],
    ['an unknown timestamp type', withRecord({ ...base, timestampType: 'X' }), /timestampType/],
    [
      'a record that is no object',
      withRecord('x' as unknown as Record<string, unknown>),
      /an object/,
    ],
  ])('rejects %s with a DataError saying where', (_name, event, message) => {
    expect(() => parseEsmEvent(event)).toThrow(DataError);
    expect(() => parseEsmEvent(event)).toThrow(message);
  });
});

describe('parseEsmEvent base64', () => {
  /** Standard padded base64, as the mapping (Java's encoder) writes it. */
  const STANDARD = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
  const parsedWith = (value: string) => parseEsmEvent(withRecord({ ...base, value })).partitions[0];

  it.each([
    ['URL-safe letters', 'ab-_'],
    ['a line break', 'eyJp\nZCI6'],
    ['a space', 'eyJp ZCI6'],
    ['padding in the middle', 'eQ==eQ=='],
    ['a missing pad', 'eQ='],
    ['three pads', 'e==='],
    ['non-ASCII letters', 'ëyJp'],
  ])('refuses %s', (_name, value) => {
    expect(() => parsedWith(value)).toThrow(/value must be a base64 string/);
  });

  it('accepts exactly standard padded base64, decoding it as Node does', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const char = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...alphabet) },
      { weight: 2, arbitrary: fc.constantFrom('=', '-', '_', ' ', '\n', '!', 'é', '\u0000') },
    );
    fc.assert(
      fc.property(fc.array(char, { maxLength: 16 }), (chars) => {
        const value = chars.join('');
        if (STANDARD.test(value)) {
          expect([...(parsedWith(value)?.records[0]?.value ?? [])]).toEqual([
            ...Buffer.from(value, 'base64'),
          ]);
        } else expect(() => parsedWith(value)).toThrow(DataError);
      }),
      { numRuns: 5_000 },
    );
  });
});

const recordArb = fc.record({
  topic: fc.constantFrom('t', 'a-b', 'orders.v1-x'),
  partition: fc.integer({ min: 0, max: 3 }),
  offset: fc.integer({ min: 0, max: 2 ** 40 }),
  timestamp: fc.integer({ min: 0, max: 2 ** 42 }),
  timestampType: fc.constantFrom('CREATE_TIME' as const, 'LOG_APPEND_TIME' as const),
  key: fc.option(fc.uint8Array({ maxLength: 20 }), { nil: null }),
  value: fc.option(fc.uint8Array({ maxLength: 40 }), { nil: null }),
  headers: fc.array(
    fc.record({
      key: fc.string({ maxLength: 5 }),
      value: fc.option(fc.uint8Array({ maxLength: 8 }), { nil: null }),
    }),
    { maxLength: 3 },
  ),
});

describe('toEsmEvent', () => {
  it('builds the AWS shape: map keyed topic-partition, base64, signed header bytes', () => {
    const event = toEsmEvent(
      [
        {
          topic: 'orders.v1',
          partition: 3,
          offset: 4711,
          timestamp: 1764403200000,
          key: utf8('order-42'),
          value: utf8('{"id":42}'),
          headers: [{ key: 'trace-id', value: utf8('abë') }],
        },
      ],
      { eventSource: 'aws:kafka', eventSourceArn: mskEvent.eventSourceArn },
    );
    expect(JSON.parse(JSON.stringify(event))).toEqual({
      ...mskEvent,
      bootstrapServers: '',
    });
  });

  it('leaves out null keys and values', () => {
    const event = toEsmEvent([
      { ...base, key: null, value: null, headers: [] },
    ] as EsmSourceRecord[]);
    expect(event.records['orders-0']?.[0]).not.toHaveProperty('key');
    expect(event.records['orders-0']?.[0]).not.toHaveProperty('value');
  });

  it('round-trips through JSON and parseEsmEvent to the same records', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { maxLength: 12 }), (input) => {
        const unique = [
          ...new Map(input.map((r) => [`${r.topic}-${r.partition}@${r.offset}`, r])).values(),
        ];
        const parsed = parseEsmEvent(JSON.parse(JSON.stringify(toEsmEvent(unique))));
        const back = parsed.partitions.flatMap((p) => p.records);
        const expected = [...unique].sort((a, b) => a.offset - b.offset);
        expect(parsed.recordCount).toBe(unique.length);
        for (const r of expected) {
          const found = back.find(
            (b) => b.topic === r.topic && b.partition === r.partition && b.offset === r.offset,
          );
          expect(found?.key === null ? null : [...(found?.key ?? [])]).toEqual(
            r.key === null ? null : [...r.key],
          );
          expect(found?.value === null ? null : [...(found?.value ?? [])]).toEqual(
            r.value === null ? null : [...r.value],
          );
          expect(found?.timestamp).toBe(r.timestamp);
          expect(found?.timestampType).toBe(
            r.timestampType === 'CREATE_TIME' ? 'CreateTime' : 'LogAppendTime',
          );
          expect(
            found?.headers.map((h) => [h.key, h.value === null ? null : [...h.value]]),
          ).toEqual(r.headers.map((h) => [h.key, h.value === null ? null : [...h.value]]));
        }
      }),
    );
  });
});
