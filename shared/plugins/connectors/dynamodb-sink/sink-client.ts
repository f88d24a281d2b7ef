/**
 * What the DynamoDB sink needs from DynamoDB, as a narrow port: the key schema of a table and
 * single-item conditional writes. `sdk-sink-client.ts` implements it over the AWS SDK; unit
 * tests use an in-memory table with the same semantics.
 */
import type { AttributeMap, ScalarAttributeType } from './attribute-value.js';
import type { KafkaAttributeNames } from './dynamodb-sink-config.js';

/** One key attribute of a table. */
export interface KeyAttribute {
  readonly name: string;
  readonly type: ScalarAttributeType;
}

/** A table's primary key, from DescribeTable. */
export interface TableKeySchema {
  readonly table: string;
  readonly partitionKey: KeyAttribute;
  /** `null` when the table has a partition key only. */
  readonly sortKey: KeyAttribute | null;
}

/**
 * The Kafka coordinates a write is conditioned on. A write applies only when the stored item
 * does not exist, or has no `names.offset` attribute, or was written from another topic or
 * partition, or holds a lower offset:
 * `attribute_not_exists(offset) OR topic <> :t OR partition <> :p OR offset < :o`.
 * A write that does not apply is {@link WriteOutcome} `'stale'`: already applied, or
 * superseded by a newer record of the same partition.
 */
export interface WriteGuard {
  readonly names: KafkaAttributeNames;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

/** A conditional single-item write. */
export type ItemWrite =
  | {
      /** PutItem of `item` (which holds the key attributes and the coordinates). */
      readonly kind: 'put';
      readonly table: string;
      readonly item: AttributeMap;
      readonly guard: WriteGuard;
    }
  | {
      /** DeleteItem of the item with `key`. */
      readonly kind: 'delete';
      readonly table: string;
      readonly key: AttributeMap;
      readonly guard: WriteGuard;
    };

/** `applied`: the write took effect. `stale`: its condition failed (see {@link WriteGuard}). */
export type WriteOutcome = 'applied' | 'stale';

/**
 * DynamoDB as the sink uses it. Methods reject with the service's errors as they are (an
 * object with the exception `name` and `$metadata.httpStatusCode`, or a network error), for
 * `write-errors.ts` to classify; a failed condition is not an error but `'stale'`.
 */
export interface DynamoDbSinkClient {
  /** The key schema of `table` (DescribeTable). */
  describeTable(table: string): Promise<TableKeySchema>;
  /** Performs `write` if its guard allows. */
  write(write: ItemWrite): Promise<WriteOutcome>;
  /** Releases the connections. */
  destroy(): void;
}
