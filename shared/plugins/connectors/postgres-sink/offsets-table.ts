/**
 * The offsets table the sink owns: per connector, topic and partition, the next Kafka offset to
 * write (Kafka's convention), updated in the same transaction as the rows. Locking its row
 * (`INSERT … ON CONFLICT DO UPDATE`, which locks as `SELECT … FOR UPDATE` does) makes a second
 * invocation of the same partition wait for the first and then skip what the first committed.
 * Statements only; pure.
 */
import { qualifiedName, type Statement, type TableName } from '../postgres/identifiers.js';

/** Identifies one offsets row. */
export interface OffsetRowKey {
  readonly connector: string;
  readonly topic: string;
  readonly partition: number;
}

const KEY_WHERE = 'connector = $1 AND topic = $2 AND kafka_partition = $3';

function keyValues(key: OffsetRowKey): unknown[] {
  return [key.connector, key.topic, key.partition];
}

export function createOffsetsTableStatement(table: TableName): Statement {
  return {
    text:
      `CREATE TABLE IF NOT EXISTS ${qualifiedName(table)} (` +
      'connector TEXT NOT NULL, topic TEXT NOT NULL, kafka_partition INTEGER NOT NULL, ' +
      'next_offset BIGINT NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now(), ' +
      'PRIMARY KEY (connector, topic, kafka_partition))',
    values: [],
  };
}

/**
 * Creates the row (at 0: nothing written) or, when it exists, locks it, in one statement: the
 * conflict's `DO UPDATE` takes the row lock (waiting for a concurrent holder, then seeing its
 * committed value) until the transaction ends. Returns `next_offset`.
 */
export function lockOffsetRowStatement(table: TableName, key: OffsetRowKey): Statement {
  const name = qualifiedName(table);
  return {
    text:
      `INSERT INTO ${name} AS o (connector, topic, kafka_partition, next_offset) ` +
      'VALUES ($1, $2, $3, 0) ON CONFLICT (connector, topic, kafka_partition) ' +
      'DO UPDATE SET next_offset = o.next_offset RETURNING next_offset',
    values: keyValues(key),
  };
}

/** Moves the row to `next` (the caller holds its lock and never moves it back). */
export function advanceOffsetRowStatement(
  table: TableName,
  key: OffsetRowKey,
  next: number,
): Statement {
  return {
    text: `UPDATE ${qualifiedName(table)} SET next_offset = $4, updated_at = now() WHERE ${KEY_WHERE}`,
    values: [...keyValues(key), next],
  };
}

/** Sets the row to `next`, creating it, whatever it held (altering offsets while STOPPED). */
export function setOffsetRowStatement(
  table: TableName,
  key: OffsetRowKey,
  next: number,
): Statement {
  return {
    text:
      `INSERT INTO ${qualifiedName(table)} (connector, topic, kafka_partition, next_offset) ` +
      'VALUES ($1, $2, $3, $4) ON CONFLICT (connector, topic, kafka_partition) ' +
      'DO UPDATE SET next_offset = EXCLUDED.next_offset, updated_at = now()',
    values: [...keyValues(key), next],
  };
}

/** Deletes the row (a reset: nothing is skipped any more). */
export function deleteOffsetRowStatement(table: TableName, key: OffsetRowKey): Statement {
  return { text: `DELETE FROM ${qualifiedName(table)} WHERE ${KEY_WHERE}`, values: keyValues(key) };
}

/** Deletes every row of the connector. */
export function deleteConnectorOffsetsStatement(table: TableName, connector: string): Statement {
  return { text: `DELETE FROM ${qualifiedName(table)} WHERE connector = $1`, values: [connector] };
}

/** Every row of the connector: topic, kafka_partition, next_offset. */
export function connectorOffsetsStatement(table: TableName, connector: string): Statement {
  return {
    text: `SELECT topic, kafka_partition, next_offset FROM ${qualifiedName(table)} WHERE connector = $1 ORDER BY topic, kafka_partition`,
    values: [connector],
  };
}
