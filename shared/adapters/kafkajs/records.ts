import {
  type ICustomPartitioner,
  type IHeaders,
  type Message,
  Partitioners,
  type RecordMetadata,
} from 'kafkajs';
import type { OutgoingRecord, TopicPartitionOffset } from '../../ports/kafka.js';

/**
 * The retry policy of every kafkajs client built here. kafkajs retries CONCURRENT_TRANSACTIONS
 * (the previous commit's markers are still being written) with its client retry backoff; at
 * kafkajs' default 300 ms initial retry time, back-to-back transactions crawl (6.4k vs 41k
 * records/s measured, docs/adr/0001).
 *
 * It also bounds how long a coordinator that is loading or moving (a fresh broker's
 * `__transaction_state` and `__consumer_offsets` partitions) is waited for inside one call: 10
 * retries waiting 10, 20, 40 … 1,280, then 2,000 and 2,000 ms, about 6.5 s in all
 * (patches/kafkajs+2.2.4.patch, docs/adr/0004). `factor` and `multiplier` are kafkajs' own
 * defaults, spelled out because kafkajs swaps in others (1.5×) when NODE_ENV=test, as under
 * vitest, which would cut that wait to about 1 s in tests only.
 */
export const retry = {
  initialRetryTime: 10,
  maxRetryTime: 2_000,
  retries: 10,
  factor: 0.2,
  multiplier: 2,
};

/** A Buffer view of the same memory (no copy); a Buffer is returned as is. */
function view(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

export function toMessage(record: OutgoingRecord): Message {
  const message: Message = {
    key: record.key === null ? null : view(record.key),
    value: record.value === null ? null : view(record.value),
  };
  const headers = record.headers;
  if (headers !== undefined && headers.length > 0) {
    const map: IHeaders = {};
    for (const header of headers) {
      // kafkajs takes repeated keys as arrays, keeping their order.
      const value = header.value === null ? null : view(header.value);
      const existing = map[header.key];
      if (existing === undefined) map[header.key] = value as Buffer;
      else
        map[header.key] = [...(Array.isArray(existing) ? existing : [existing]), value] as Buffer[];
    }
    message.headers = map;
  }
  if (record.partition !== undefined) message.partition = record.partition;
  if (record.timestamp !== undefined) message.timestamp = String(record.timestamp);
  return message;
}

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/**
 * Kafka's murmur2 (the Java client's `Utils.murmur2`) in 32-bit arithmetic: the same hash as
 * kafkajs' default partitioner, which computes it with 64-bit Long objects (several allocations
 * per byte quadruple, a large share of a produce request's CPU time).
 */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = (SEED ^ length) | 0;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i += 1) {
    const i4 = i * 4;
    let k =
      (data[i4] as number) |
      ((data[i4 + 1] as number) << 8) |
      ((data[i4 + 2] as number) << 16) |
      ((data[i4 + 3] as number) << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = length & ~3;
  const rest = length & 3;
  if (rest === 3) h ^= (data[tail + 2] as number) << 16;
  if (rest >= 2) h ^= (data[tail + 1] as number) << 8;
  if (rest >= 1) h = Math.imul(h ^ (data[tail] as number), M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/**
 * kafkajs' default partitioner (murmur2 of the key, as the Java client; round robin without a
 * key), remembering the partition it chose for each message object, so the caller learns every
 * record's position from the per-partition produce results. Keys given as bytes are hashed
 * here with the same result, faster; everything else goes to kafkajs' own. The producer's own
 * metadata is used, so a missing topic is auto-created when the broker allows it, as Kafka
 * Connect's producer does.
 */
export class RecordingPartitioner {
  readonly #chosen = new WeakMap<Message, number>();

  readonly create: ICustomPartitioner = () => {
    const inner = Partitioners.DefaultPartitioner();
    return (args) => {
      const { message } = args;
      const key = message.key;
      let partition: number;
      if (message.partition !== undefined && message.partition !== null) {
        partition = message.partition;
      } else if (key instanceof Uint8Array && args.partitionMetadata.length > 0) {
        partition = (murmur2(key) & 0x7fffffff) % args.partitionMetadata.length;
      } else partition = inner(args);
      this.#chosen.set(message, partition);
      return partition;
    };
  };

  partitionOf(message: Message): number {
    const partition = this.#chosen.get(message);
    if (partition === undefined) throw new Error('kafkajs did not partition a sent message');
    return partition;
  }
}

/**
 * The most bytes of records (keys, values, headers and a per-record allowance) one produce
 * request carries, a little under the Java producer's `max.request.size` (1 MiB): kafkajs puts
 * all the records of a send for one partition into one record batch, and the broker refuses a
 * batch over its `message.max.bytes` (1 MiB + 12 bytes by default) with MESSAGE_TOO_LARGE.
 */
export const MAX_REQUEST_BYTES = 1_000_000;
/** Bytes a record takes besides its key, value and headers' bytes (length varints, deltas…), at most. */
const RECORD_OVERHEAD = 32;

function sizeOf(record: OutgoingRecord): number {
  let bytes = RECORD_OVERHEAD + (record.key?.length ?? 0) + (record.value?.length ?? 0);
  for (const header of record.headers ?? []) {
    bytes += 8 + header.key.length * 3 + (header.value?.length ?? 0);
  }
  return bytes;
}

/**
 * `records` cut, in order, into runs of at most `maxBytes` (a record larger than that alone), one
 * produce request each; `records` itself when it fits in one.
 */
export function requestSlices(
  records: readonly OutgoingRecord[],
  maxBytes = MAX_REQUEST_BYTES,
): (readonly OutgoingRecord[])[] {
  const slices: (readonly OutgoingRecord[])[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < records.length; i += 1) {
    const size = sizeOf(records[i] as OutgoingRecord);
    if (i > start && bytes + size > maxBytes) {
      slices.push(records.slice(start, i));
      start = i;
      bytes = 0;
    }
    bytes += size;
  }
  slices.push(start === 0 ? records : records.slice(start));
  return slices;
}

/**
 * Sends `records` through `sendOne`, one request per {@link requestSlices} slice, one after the
 * other (the producers keep one request in flight, so a partition's records stay in order);
 * their positions in input order.
 */
export async function sendInRequests(
  records: readonly OutgoingRecord[],
  sendOne: (slice: readonly OutgoingRecord[]) => Promise<TopicPartitionOffset[]>,
): Promise<TopicPartitionOffset[]> {
  const slices = requestSlices(records);
  if (slices.length === 1) return sendOne(records);
  const out: TopicPartitionOffset[] = [];
  for (const slice of slices) out.push(...(await sendOne(slice)));
  return out;
}

/** The kafkajs batch for `records`, and their messages in input order. */
export function toBatch(records: readonly OutgoingRecord[]) {
  const messages: Message[] = new Array(records.length);
  const byTopic = new Map<string, Message[]>();
  let lastTopic: string | undefined;
  let lastList: Message[] = [];
  for (let i = 0; i < records.length; i += 1) {
    const record = records[i] as OutgoingRecord;
    const message = toMessage(record);
    messages[i] = message;
    if (record.topic !== lastTopic) {
      lastTopic = record.topic;
      const list = byTopic.get(record.topic);
      if (list === undefined) {
        lastList = [];
        byTopic.set(record.topic, lastList);
      } else lastList = list;
    }
    lastList.push(message);
  }
  return {
    messages,
    topicMessages: [...byTopic].map(([topic, list]) => ({ topic, messages: list })),
  };
}

/** Per-record positions from kafkajs' per-partition results, in input order. */
export function positions(
  records: readonly OutgoingRecord[],
  messages: readonly Message[],
  partitioner: RecordingPartitioner,
  results: readonly RecordMetadata[],
): TopicPartitionOffset[] {
  // Next offset per topic, indexed by partition.
  const next = new Map<string, number[]>();
  for (const result of results) {
    const list = next.get(result.topicName) ?? [];
    list[result.partition] = Number(result.baseOffset);
    next.set(result.topicName, list);
  }
  const out: TopicPartitionOffset[] = new Array(records.length);
  let lastTopic: string | undefined;
  let offsets: number[] | undefined;
  for (let i = 0; i < records.length; i += 1) {
    const topic = (records[i] as OutgoingRecord).topic;
    const partition = partitioner.partitionOf(messages[i] as Message);
    if (topic !== lastTopic) {
      lastTopic = topic;
      offsets = next.get(topic);
    }
    const offset = offsets?.[partition];
    if (offsets === undefined || offset === undefined) {
      throw new Error(`no produce result for ${topic}-${partition}`);
    }
    offsets[partition] = offset + 1;
    out[i] = { topic, partition, offset };
  }
  return out;
}
