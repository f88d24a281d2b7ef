import type { Kafka } from 'kafkajs';
import filterAbortedMessages from 'kafkajs/src/consumer/filterAbortedMessages.js';
import { RetriableError } from '../../connect/errors.js';
import type { CommittedRead, CommittedRecord, TopicPartitionOffset } from '../../ports/kafka.js';
import {
  clusterFactoryOf,
  fetchCommitted,
  type InternalCluster,
  READ_COMMITTED,
} from './record-fate.js';

/** Fetch rounds in a row in which no partition moved before the read gives up. */
const MAX_EMPTY_FETCHES = 3;

/**
 * Reads `topic` as a read_committed consumer would, with no consumer group (kafkajs has no public
 * way to; this uses the cluster connection of its own client, as record-fate.ts does): each
 * partition from `from` (or its first record) up to the last stable offset the first fetch of
 * it answered, so a topic written to meanwhile still ends the read. Records of aborted
 * transactions are left out with kafkajs' own filter, and transaction markers dropped. Errors
 * are kafkajs' own (the admin adapter retries while leadership moves, then maps them).
 */
export async function readCommittedRecords(
  kafka: Kafka,
  topic: string,
  from: readonly TopicPartitionOffset[] = [],
): Promise<CommittedRead> {
  try {
    return await readFrom(kafka, topic, from);
  } catch (error) {
    // A position the log no longer has (the topic was deleted and created again, or its start
    // moved past it): read it from its start instead.
    if (from.length === 0 || (error as { type?: string }).type !== 'OFFSET_OUT_OF_RANGE') {
      throw error;
    }
    return readFrom(kafka, topic, []);
  }
}

async function readFrom(
  kafka: Kafka,
  topic: string,
  from: readonly TopicPartitionOffset[],
): Promise<CommittedRead> {
  const cluster = clusterFactoryOf(kafka)({ isolationLevel: READ_COMMITTED });
  try {
    await cluster.connect();
    await cluster.addTargetTopic(topic);
    const partitions = cluster.findTopicPartitionMetadata(topic).map((p) => p.partitionId);
    const next = await startingOffsets(cluster, topic, partitions, from);
    const stopAt = new Map<number, number>();
    let emptyRounds = 0;
    const records: CommittedRecord[] = [];
    for (;;) {
      const open = partitions.filter((p) => {
        const stop = stopAt.get(p);
        return stop === undefined || (next.get(p) ?? 0) < stop;
      });
      if (open.length === 0) break;
      const fetched = await fetchCommitted(cluster, topic, open, next);
      let progressed = false;
      for (const part of fetched) {
        const { partition } = part;
        const fetchedAt = next.get(partition) ?? 0;
        if (!stopAt.has(partition)) stopAt.set(partition, Number(part.lastStableOffset));
        const stop = stopAt.get(partition) ?? 0;
        // A fetch can answer records below the offset asked (a compressed batch is returned whole).
        const raw = part.messages.filter((m) => Number(m.offset) >= fetchedAt);
        for (const m of filterAbortedMessages({
          messages: raw,
          abortedTransactions: part.abortedTransactions ?? [],
        })) {
          const offset = Number(m.offset);
          if (m.isControlRecord === true || offset >= stop) continue;
          records.push({
            partition,
            offset,
            key: m.key ?? null,
            value: m.value ?? null,
            timestamp: Number(m.timestamp ?? -1),
          });
        }
        const last = raw.at(-1);
        if (last !== undefined) {
          next.set(partition, Number(last.offset) + 1);
          progressed = true;
        } else if (fetchedAt >= stop) {
          progressed = true; // nothing to read there: done
        }
      }
      // A response fills its byte limit with the first partitions and may leave the others
      // empty; only a round in which no partition moved is a stall.
      emptyRounds = progressed ? 0 : emptyRounds + 1;
      if (emptyRounds >= MAX_EMPTY_FETCHES) {
        throw new RetriableError(
          `${topic}: fetches answer nothing below the stable end of partitions ${open.join(', ')}`,
        );
      }
    }
    return {
      records,
      next: partitions.map((partition) => ({ topic, partition, offset: next.get(partition) ?? 0 })),
    };
  } finally {
    await cluster.disconnect().catch(() => undefined);
  }
}

/** Where each partition's read starts: `from`, else the partition's first offset. */
async function startingOffsets(
  cluster: InternalCluster,
  topic: string,
  partitions: readonly number[],
  from: readonly TopicPartitionOffset[],
): Promise<Map<number, number>> {
  const next = new Map<number, number>();
  for (const position of from) {
    if (position.topic === topic && partitions.includes(position.partition)) {
      next.set(position.partition, position.offset);
    }
  }
  const unknown = partitions.filter((p) => !next.has(p));
  if (unknown.length > 0) {
    const [earliest] = await cluster.fetchTopicsOffset([
      { topic, fromBeginning: true, partitions: unknown.map((partition) => ({ partition })) },
    ]);
    for (const { partition, offset } of earliest?.partitions ?? []) {
      next.set(partition, Number(offset));
    }
  }
  return next;
}
