import { randomUUID } from 'node:crypto';
import type { Kafka, KafkaMessage } from 'kafkajs';

/** What a read_committed reader of an output topic found, per source partition. */
export interface DeliveryReport {
  /** Records seen more than once. */
  readonly duplicates: number;
  /** Sequence numbers missing below the highest one expected. */
  readonly losses: number;
  /** Pairs of records of one source partition seen out of order. */
  readonly reordered: number;
  readonly records: number;
  /** The highest sequence number seen per source partition. */
  readonly highest: ReadonlyMap<string, number>;
}

/** A {@link DeliveryReport} of a topic, with where its records end. */
export interface TopicDeliveryReport extends DeliveryReport {
  /** Per Kafka partition, the offset of the last record read (none for an empty partition). */
  readonly lastOffsets: ReadonlyMap<number, number>;
}

export interface CheckOptions {
  readonly kafka: Kafka;
  readonly topic: string;
  /** Extracts (source partition, seq) from a record value. */
  readonly identify: (value: Buffer | null) => { partition: string; seq: number };
  /** Per source partition, the highest seq that must be there (1..n each exactly once). */
  readonly expected: ReadonlyMap<string, number>;
  /** Stop reading after this long without news once `expected` is covered (ms, default 1500). */
  readonly quietMs?: number;
  readonly timeoutMs?: number;
}

/** A record read back, with the Kafka partition it came from. */
export interface CommittedMessage {
  readonly partition: number;
  readonly message: KafkaMessage;
}

export interface ReadCommittedOptions {
  readonly kafka: Kafka;
  readonly topic: string;
  /** Read at least this many records (then until quiet). */
  readonly count: number;
  /** Stop reading after this long without news once `count` records arrived (ms, default 1500). */
  readonly quietMs?: number;
  /** Give up waiting for `count` records after this long (ms, default 60 s). */
  readonly timeoutMs?: number;
}

/**
 * Reads `topic` from the beginning, read_committed (as a consumer of exactly-once output reads
 * it), until `count` records arrived and nothing more came for `quietMs` (so that a record past
 * `count`, a duplicate, shows up too), or `timeoutMs` passed. Records of a partition come in
 * offset order.
 */
export async function readCommitted(options: ReadCommittedOptions): Promise<CommittedMessage[]> {
  const consumer = options.kafka.consumer({
    groupId: `eos-check-${randomUUID()}`,
    readUncommitted: false,
    maxWaitTimeInMs: 100,
  });
  const read: CommittedMessage[] = [];
  let lastNews = Date.now();
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: options.topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        read.push({ partition, message });
        lastNews = Date.now();
      },
    });
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    while (Date.now() < deadline) {
      if (read.length >= options.count && Date.now() - lastNews > (options.quietMs ?? 1500)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await consumer.disconnect();
  }
  return read;
}

/**
 * Reads every record of `topic` read_committed and checks that each source partition's
 * sequence numbers are exactly 1..n, once each, in order: the exactly-once claim as a user sees it.
 */
export async function checkDelivery(options: CheckOptions): Promise<TopicDeliveryReport> {
  const read = await readCommitted({
    kafka: options.kafka,
    topic: options.topic,
    count: [...options.expected.values()].reduce((a, b) => a + b, 0),
    ...(options.quietMs === undefined ? {} : { quietMs: options.quietMs }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const seen = new Map<string, number[]>();
  const lastOffsets = new Map<number, number>();
  for (const { partition: kafkaPartition, message } of read) {
    lastOffsets.set(kafkaPartition, Number(message.offset));
    const { partition, seq } = options.identify(message.value);
    const list = seen.get(partition) ?? [];
    list.push(seq);
    seen.set(partition, list);
  }
  return { ...tallyDelivery(seen, options.expected, read.length), lastOffsets };
}

/**
 * Counts, against `expected` (per source partition, the highest seq that must be there: 1..n
 * each exactly once), the sequence numbers `seen` per source partition in the order they were
 * read: repeated ones, missing ones and pairs out of order.
 */
export function tallyDelivery(
  seen: ReadonlyMap<string, readonly number[]>,
  expected: ReadonlyMap<string, number>,
  records: number,
): DeliveryReport {
  let duplicates = 0;
  let losses = 0;
  let reordered = 0;
  const highest = new Map<string, number>();
  for (const partition of new Set([...expected.keys(), ...seen.keys()])) {
    const seqs = seen.get(partition) ?? [];
    const unique = new Set(seqs);
    duplicates += seqs.length - unique.size;
    const top = expected.get(partition) ?? 0;
    for (let seq = 1; seq <= top; seq += 1) if (!unique.has(seq)) losses += 1;
    for (let i = 1; i < seqs.length; i += 1) {
      if ((seqs[i] as number) < (seqs[i - 1] as number)) reordered += 1;
    }
    highest.set(
      partition,
      seqs.reduce((a, b) => Math.max(a, b), 0),
    );
  }
  return { duplicates, losses, reordered, records, highest };
}
