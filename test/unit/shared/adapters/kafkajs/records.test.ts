import fc from 'fast-check';
import { type Message, Partitioners, type PartitionMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  murmur2,
  positions,
  RecordingPartitioner,
  requestSlices,
  toBatch,
  toMessage,
} from '../../../../../shared/adapters/kafkajs/records.js';
import type { OutgoingRecord } from '../../../../../shared/ports/kafka.js';

const bytes = (text: string) => new TextEncoder().encode(text);

function metadata(count: number): PartitionMetadata[] {
  return Array.from({ length: count }, (_, partitionId) => ({
    partitionErrorCode: 0,
    partitionId,
    leader: 0,
    replicas: [0],
    isr: [0],
  }));
}

describe('murmur2', () => {
  it("partitions every key as kafkajs' default partitioner does (the Java client's)", () => {
    const theirs = Partitioners.DefaultPartitioner();
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 80 }),
        fc.integer({ min: 1, max: 500 }),
        (key, count) => {
          const expected = theirs({
            topic: 't',
            partitionMetadata: metadata(count),
            message: { key: Buffer.from(key), value: null },
          });
          expect((murmur2(key) & 0x7fffffff) % count).toBe(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("matches the Java client's hash of a known key", () => {
    // org.apache.kafka.common.utils.Utils.murmur2("21".getBytes()) = -973932308
    expect(murmur2(bytes('21'))).toBe(-973932308);
  });
});

describe('RecordingPartitioner', () => {
  it('remembers the partition it chose for each message: explicit, by key, or round robin', () => {
    const recording = new RecordingPartitioner();
    const partition = recording.create();
    const explicit: Message = { key: Buffer.from('k'), value: null, partition: 4 };
    const keyed: Message = { key: Buffer.from('order-17'), value: null };
    const keyless: Message = { key: null, value: null };
    const partitionMetadata = metadata(6);

    for (const message of [explicit, keyed, keyless]) {
      partition({ topic: 't', partitionMetadata, message });
    }

    expect(recording.partitionOf(explicit)).toBe(4);
    expect(recording.partitionOf(keyed)).toBe(
      (murmur2(bytes('order-17')) & 0x7fffffff) % partitionMetadata.length,
    );
    expect(recording.partitionOf(keyless)).toBeGreaterThanOrEqual(0);
    expect(recording.partitionOf(keyless)).toBeLessThan(6);
    expect(() => recording.partitionOf({ key: null, value: null })).toThrow(/did not partition/);
  });
});

describe('toMessage', () => {
  it('keeps repeated header keys in order and leaves out what the record does not set', () => {
    const message = toMessage({
      topic: 't',
      key: null,
      value: bytes('v'),
      headers: [
        { key: 'h', value: bytes('1') },
        { key: 'h', value: null },
        { key: 'g', value: bytes('2') },
      ],
      timestamp: 1700000000000,
    });
    const plain = toMessage({ topic: 't', key: bytes('k'), value: null });

    expect(message.headers).toEqual({
      h: [Buffer.from('1'), null],
      g: Buffer.from('2'),
    });
    expect(message.timestamp).toBe('1700000000000');
    expect(message).not.toHaveProperty('partition');
    expect(plain).toEqual({ key: Buffer.from('k'), value: null });
  });
});

describe('positions', () => {
  it('gives each record its offset from the per-partition results, in input order', () => {
    const records: OutgoingRecord[] = [
      { topic: 'a', partition: 1, key: null, value: bytes('a1-0') },
      { topic: 'b', partition: 0, key: null, value: bytes('b0-0') },
      { topic: 'a', partition: 0, key: null, value: bytes('a0-0') },
      { topic: 'a', partition: 1, key: null, value: bytes('a1-1') },
    ];
    const recording = new RecordingPartitioner();
    const partition = recording.create();
    const { messages, topicMessages } = toBatch(records);
    for (const { topic, messages: list } of topicMessages) {
      for (const message of list) partition({ topic, partitionMetadata: metadata(2), message });
    }
    const results = [
      { topicName: 'a', partition: 0, errorCode: 0, baseOffset: '7' },
      { topicName: 'a', partition: 1, errorCode: 0, baseOffset: '40' },
      { topicName: 'b', partition: 0, errorCode: 0, baseOffset: '0' },
    ];

    expect(topicMessages.map((t) => [t.topic, t.messages.length])).toEqual([
      ['a', 3],
      ['b', 1],
    ]);
    expect(positions(records, messages, recording, results)).toEqual([
      { topic: 'a', partition: 1, offset: 40 },
      { topic: 'b', partition: 0, offset: 0 },
      { topic: 'a', partition: 0, offset: 7 },
      { topic: 'a', partition: 1, offset: 41 },
    ]);
  });

  it('refuses a record whose partition has no produce result', () => {
    const records: OutgoingRecord[] = [{ topic: 'a', partition: 3, key: null, value: null }];
    const recording = new RecordingPartitioner();
    const { messages } = toBatch(records);
    recording.create()({
      topic: 'a',
      partitionMetadata: metadata(4),
      message: messages[0] as Message,
    });

    expect(() => positions(records, messages, recording, [])).toThrow(/no produce result for a-3/);
  });
});

describe('requestSlices', () => {
  const record = (size: number, topic = 't'): OutgoingRecord => ({
    topic,
    key: null,
    value: new Uint8Array(size),
  });

  it('keeps a send that fits in one request whole', () => {
    const records = [record(100), record(200)];
    expect(requestSlices(records, 1_000)).toEqual([records]);
  });

  it('cuts a larger send, in order, into runs under the limit, a record too large for any alone', () => {
    const records = [record(400), record(400), record(400), record(5_000), record(10)];
    const slices = requestSlices(records, 1_000);
    expect(slices.map((slice) => slice.map((r) => r.value?.length))).toEqual([
      [400, 400],
      [400],
      [5_000],
      [10],
    ]);
    expect(slices.flat()).toEqual(records);
  });
});
