import type { Kafka } from 'kafkajs';
import { RetriableError } from '../../connect/errors.js';
import type { TopicPartitionOffset, TransactionalRecordFate } from '../../ports/kafka.js';
import { mapKafkaError } from './errors.js';

/** Kafka's isolation level for a read_committed Fetch. */
export const READ_COMMITTED = 1;
/** A fetch returns at least the first record batch at the offset, whatever this says (KIP-74). */
export const FETCH_MAX_BYTES = 1_048_576;

/** The parts of kafkajs' internal Cluster and Broker this module uses (kafkajs 2.2.4). */
export interface FetchedRecord {
  readonly offset: string;
  readonly key?: Buffer | null;
  readonly value?: Buffer | null;
  readonly timestamp?: string;
  readonly isControlRecord?: boolean;
  readonly batchContext?: { readonly producerId?: string; readonly inTransaction?: boolean };
}
export interface FetchedPartition {
  readonly partition: number;
  readonly lastStableOffset: string;
  readonly abortedTransactions?: readonly { producerId: string; firstOffset: string }[];
  readonly messages: readonly FetchedRecord[];
}
export interface FetchingBroker {
  fetch(request: {
    replicaId: number;
    isolationLevel: number;
    maxWaitTime: number;
    minBytes: number;
    maxBytes: number;
    topics: {
      topic: string;
      partitions: { partition: number; fetchOffset: string; maxBytes: number }[];
    }[];
  }): Promise<{ responses: { topicName: string; partitions: FetchedPartition[] }[] }>;
}
export interface InternalCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  findTopicPartitionMetadata(topic: string): readonly { readonly partitionId: number }[];
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(node: { nodeId: string }): Promise<FetchingBroker>;
  fetchTopicsOffset(
    topics: { topic: string; fromBeginning: boolean; partitions: { partition: number }[] }[],
  ): Promise<{ topic: string; partitions: { partition: number; offset: string }[] }[]>;
}
type CreateCluster = (options: { isolationLevel?: number }) => InternalCluster;

/**
 * The function a kafkajs client keeps to build the cluster connections of its producers,
 * consumers and admins (with the client's brokers, TLS, SASL and retry settings). kafkajs has no
 * public way to fetch a partition without a consumer group; this reaches for its own factory.
 */
export function clusterFactoryOf(kafka: Kafka): CreateCluster {
  const key = Object.getOwnPropertySymbols(kafka).find(
    (symbol) => symbol.description === 'private:Kafka:createCluster',
  );
  // biome-ignore lint/suspicious/noExplicitAny: kafkajs keeps its cluster factory under a private symbol (kafkajs 2.2.4, checked by the integration tests)
  const create = key === undefined ? undefined : (kafka as any)[key];
  if (typeof create !== 'function') {
    throw new Error('this kafkajs version does not keep its cluster factory where 2.2.4 does');
  }
  return create as CreateCluster;
}

/**
 * The fate of the record a producer wrote at `position`, as read_committed readers see it, from
 * one read_committed Fetch at that offset (no consumer group):
 * - `open` while the partition's last stable offset is not past it (its transaction is undecided);
 * - `aborted` when its producer has an aborted transaction starting at or before it: the broker
 *   lists, with a fetch, the aborted transactions that end at or after the fetch offset, and a
 *   producer's transactions do not overlap, so such a transaction is the one holding the record;
 *   also when no record is left at the offset (it was never there, or compaction removed it);
 * - `committed` otherwise.
 */
export async function readRecordFate(
  kafka: Kafka,
  position: TopicPartitionOffset,
): Promise<TransactionalRecordFate> {
  const cluster = clusterFactoryOf(kafka)({ isolationLevel: READ_COMMITTED });
  const { topic, partition, offset } = position;
  try {
    await cluster.connect();
    await cluster.addTargetTopic(topic);
    const fetched = (
      await fetchCommitted(cluster, topic, [partition], new Map([[partition, offset]]))
    ).find((p) => p.partition === partition);
    if (fetched === undefined) {
      throw new RetriableError(`the fetch of ${topic}-${partition} answered nothing`);
    }
    return fateIn(fetched, offset);
  } catch (error) {
    throw mapKafkaError(error, `reading ${topic}-${partition} at ${offset}`);
  } finally {
    await cluster.disconnect().catch(() => undefined);
  }
}

/** The fate of the record at `offset` in a read_committed fetch from that offset. */
export function fateIn(fetched: FetchedPartition, offset: number): TransactionalRecordFate {
  if (Number(fetched.lastStableOffset) <= offset) return 'open';
  const record = fetched.messages.find((m) => Number(m.offset) === offset && !m.isControlRecord);
  if (record === undefined) return 'aborted';
  const producerId = record.batchContext?.producerId;
  if (record.batchContext?.inTransaction !== true || producerId === undefined) return 'committed';
  const aborted = (fetched.abortedTransactions ?? []).some(
    (t) => t.producerId === producerId && Number(t.firstOffset) <= offset,
  );
  return aborted ? 'aborted' : 'committed';
}

/**
 * One read_committed Fetch per leader of `partitions`, each at its offset in `next` (no consumer
 * group): what the broker answered for them (a partition without a leader is left out).
 */
export async function fetchCommitted(
  cluster: InternalCluster,
  topic: string,
  partitions: number[],
  next: ReadonlyMap<number, number>,
): Promise<FetchedPartition[]> {
  const byLeader = cluster.findLeaderForPartitions(topic, partitions);
  const answers = await Promise.all(
    Object.entries(byLeader).map(async ([nodeId, led]) => {
      const broker = await cluster.findBroker({ nodeId });
      const { responses } = await broker.fetch({
        replicaId: -1,
        isolationLevel: READ_COMMITTED,
        maxWaitTime: 0,
        minBytes: 0,
        maxBytes: FETCH_MAX_BYTES,
        topics: [
          {
            topic,
            partitions: led.map((partition) => ({
              partition,
              fetchOffset: String(next.get(partition) ?? 0),
              maxBytes: FETCH_MAX_BYTES,
            })),
          },
        ],
      });
      return responses.find((r) => r.topicName === topic)?.partitions ?? [];
    }),
  );
  const fetched = answers.flat();
  if (fetched.length === 0) throw new RetriableError(`the fetch of ${topic} answered nothing`);
  return fetched;
}
