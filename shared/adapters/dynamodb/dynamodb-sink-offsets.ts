import { type TopicPartition, topicPartitionKey } from '../../connect/records.js';
import type { SinkOffset } from '../../ports/offset-store.js';
import type { Item } from './attributes.js';
import { decodeSinkOffset, sinkOffsetKey } from './codec.js';
import type { DynamoTable } from './table.js';
import { ATTR, KEYS, SINK_OFFSET_SHARDS } from './table-schema.js';

/**
 * Reading a connector's `SINKOFFSET#…` items: in their shards' partitions (v4) and, still, in
 * the connector's own (v3, codec.ts), the further of the two per topic-partition.
 */

/**
 * Every sink-offset item of a connector: one Query per shard (v4) and one of its own partition
 * (v3 items), in parallel; `projection` limits the attributes read.
 */
export async function sinkOffsetItems(
  table: DynamoTable,
  connector: string,
  operation: string,
  projection?: readonly string[],
): Promise<Item[]> {
  const shards = Array.from({ length: SINK_OFFSET_SHARDS }, (_, shard) =>
    table.query(KEYS.sinkOffsetShardPk(connector, shard), undefined, operation, projection),
  );
  const legacy = table.query(
    KEYS.connectorPk(connector),
    KEYS.sinkOffsetPrefix,
    operation,
    projection,
  );
  return (await Promise.all([legacy, ...shards])).flat();
}

/** The v4 sink-offset items of `partitions` (strongly consistent, 100 keys per request). */
export async function sinkOffsetItemsOf(
  table: DynamoTable,
  connector: string,
  partitions: readonly TopicPartition[],
  operation: string,
): Promise<Item[]> {
  const keys = partitions.map((p) => sinkOffsetKey(connector, p.topic, p.partition));
  const chunks: Item[][] = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_MAX) {
    chunks.push(keys.slice(start, start + BATCH_GET_MAX));
  }
  const found = await Promise.all(chunks.map((chunk) => table.getMany(chunk, operation)));
  return found.flat().filter((item): item is Item => item !== undefined);
}

const BATCH_GET_MAX = 100;

/**
 * The sink offsets of `SINKOFFSET#…` items, one per topic-partition (the further of its v3 and
 * v4 items, codec.ts), sorted by topic then partition (the sort keys hold the partition
 * unpadded, so the Query's order is not that one). With `only`, just those partitions.
 */
export function sinkOffsetsOf(
  items: readonly Item[],
  only?: readonly TopicPartition[],
): SinkOffset[] {
  const wanted = only === undefined ? undefined : new Set(only.map(topicPartitionKey));
  const best = new Map<string, SinkOffset>();
  for (const item of items) {
    const offset = decodeSinkOffset(item);
    const id = topicPartitionKey(offset);
    if (wanted !== undefined && !wanted.has(id)) continue;
    const seen = best.get(id);
    if (seen === undefined || offset.nextOffset > seen.nextOffset) best.set(id, offset);
  }
  return [...best.values()].sort((a, b) =>
    a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition,
  );
}

/** The attributes {@link sinkOffsetsOf} reads. */
export const SINK_OFFSET_ATTRS = [ATTR.formatVersion, ATTR.topic, ATTR.partition, ATTR.offset];
