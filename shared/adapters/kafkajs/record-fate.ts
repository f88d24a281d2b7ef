import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import type { TopicPartitionOffset, TransactionalRecordFate } from '../../ports/kafka.js';
import { mapKafkaError } from './errors.js';
import { retry } from './records.js';

export interface RecordFateOptions {
  /** Give up (answer `open`) after this long (default 20 s). */
  readonly timeoutMs?: number;
  /** Fetch responses to wait for after the seek before concluding `aborted` (default 3). */
  readonly fetchesAfterSeek?: number;
}

/**
 * Decides whether the record at `position` is visible to read_committed readers. Precondition
 * checked by the caller: the partition's last stable offset is past `position`, so its
 * transaction is decided and a read_committed fetch from `position` returns every committed
 * record of [position, LSO) in order. The first record seen in that range settles it: at
 * `position` means committed, later means the record was aborted. When fetches after the seek
 * return nothing in the range, every record there was aborted.
 *
 * A throwaway consumer group reads the partition (kafkajs has no manual assignment); it never
 * commits offsets.
 */
export async function readRecordFate(
  kafka: Kafka,
  position: TopicPartitionOffset,
  lastStableOffset: number,
  options: RecordFateOptions = {},
): Promise<TransactionalRecordFate> {
  const consumer = kafka.consumer({
    groupId: `serverless-connect-fate-${randomUUID()}`,
    readUncommitted: false,
    maxWaitTimeInMs: 100,
    retry,
  });
  const timeoutMs = options.timeoutMs ?? 20_000;
  const fetchesNeeded = options.fetchesAfterSeek ?? 3;
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [position.topic] });
    return await new Promise<TransactionalRecordFate>((resolve, reject) => {
      let sought = false;
      let fetchesAfterSeek = 0;
      const timer = setTimeout(() => resolve('open'), timeoutMs);
      const settle = (fate: TransactionalRecordFate) => {
        clearTimeout(timer);
        resolve(fate);
      };
      consumer.on(consumer.events.GROUP_JOIN, () => {
        consumer.seek({
          topic: position.topic,
          partition: position.partition,
          offset: String(position.offset),
        });
        sought = true;
      });
      consumer.on(consumer.events.FETCH, () => {
        if (!sought) return;
        fetchesAfterSeek += 1;
        if (fetchesAfterSeek > fetchesNeeded) settle('aborted');
      });
      consumer
        .run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            if (!sought || batch.partition !== position.partition) return;
            for (const message of batch.messages) {
              const offset = Number(message.offset);
              if (offset < position.offset || offset >= lastStableOffset) continue;
              settle(offset === position.offset ? 'committed' : 'aborted');
              return;
            }
          },
        })
        .catch((error: unknown) => {
          clearTimeout(timer);
          reject(mapKafkaError(error, `reading ${position.topic}-${position.partition}`));
        });
    });
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
}
