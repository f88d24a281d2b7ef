import { MAX_ITEM_BYTES } from '../../ports/config-store.js';
import { ItemTooLargeError, StaleVersionError } from '../../ports/errors.js';
import {
  KAFKA_OFFSETS_TASK,
  type KafkaSourceOffsets,
  type OffsetsTopicWatermark,
} from '../../ports/offset-store.js';
import { type Item, itemSize, num, optN } from './attributes.js';
import { connectorKey, decodeJsonAttr, decodeTaskItem, jsonAttr, versionAttr } from './codec.js';
import type { DynamoTable } from './table.js';
import { ATTR, KEYS } from './table-schema.js';

/**
 * The connector's Kafka entry, `TASK#KAFKA` (listed by `listSourceOffsets` as task
 * {@link KAFKA_OFFSETS_TASK}): the source offsets adopted from the offsets topic and how far
 * the topic was read. Written whole, conditioned on its seq.
 */
export async function getKafkaEntry(
  table: DynamoTable,
  connector: string,
): Promise<KafkaSourceOffsets> {
  const item = await table.get(
    connectorKey(connector, KEYS.kafkaOffsetsSk),
    `read the Kafka entry of the source offsets of ${connector}`,
  );
  if (item === undefined) return { seq: 0, offsets: [] };
  const committed = decodeTaskItem(connector, item).committed ?? { seq: 0, offsets: [] };
  const watermark = decodeJsonAttr<OffsetsTopicWatermark | undefined>(
    item,
    ATTR.offsetsTopicRead,
    undefined,
  );
  return { ...committed, ...(watermark === undefined ? {} : { watermark }) };
}

export async function putKafkaEntry(
  table: DynamoTable,
  connector: string,
  next: KafkaSourceOffsets,
  now: number,
): Promise<void> {
  const subject = `source offsets of ${connector} (Kafka)`;
  const item: Item = {
    ...connectorKey(connector, KEYS.kafkaOffsetsSk),
    [ATTR.formatVersion]: versionAttr(),
    [ATTR.task]: num(KAFKA_OFFSETS_TASK),
    [ATTR.committedSeq]: num(next.seq),
    [ATTR.committedOffsets]: jsonAttr(next.offsets),
    ...(next.watermark === undefined ? {} : { [ATTR.offsetsTopicRead]: jsonAttr(next.watermark) }),
    [ATTR.updatedAt]: num(now),
  };
  const size = itemSize(item);
  if (size > MAX_ITEM_BYTES) throw new ItemTooLargeError(subject, size, MAX_ITEM_BYTES);
  const previous = next.seq - 1;
  const result = await table.put(
    item,
    previous === 0
      ? { condition: `attribute_not_exists(#${ATTR.committedSeq})` }
      : {
          condition: `#${ATTR.committedSeq} = :previous`,
          values: { ':previous': num(previous) },
        },
    `write the Kafka entry of the source offsets of ${connector}`,
  );
  if (!result.ok) {
    const found = result.old === undefined ? 0 : (optN(result.old, ATTR.committedSeq) ?? 0);
    throw new StaleVersionError(subject, previous, found);
  }
}
