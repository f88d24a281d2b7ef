/**
 * One partition's share of a batch in one PostgreSQL transaction: lock the partition's offsets
 * row, skip the records below its next offset (already written by an earlier invocation, or by
 * a concurrent one that held the lock first), write the rest, move the row to the batch's next
 * offset, commit. Rows and offsets commit together or not at all, so every record is written
 * exactly once whatever the redeliveries.
 */

import type { TableName } from '../postgres/identifiers.js';
import { inTransaction, type PgPool, run } from '../postgres/pg-client.js';
import type { OffsetRowKey } from './offsets-table.js';
import { advanceOffsetRowStatement, lockOffsetRowStatement } from './offsets-table.js';
import type { InsertMode } from './postgres-sink-config.js';
import type { RowWrite } from './record-rows.js';
import { statementsFor } from './row-statements.js';
import type { TableColumns, TableDdl } from './table-ddl.js';

/** A buffered record: its Kafka offset and its row (`null`: a tombstone to skip). */
export interface BufferedRow {
  readonly offset: number;
  readonly row: RowWrite | null;
}

/** What one partition transaction needs. */
export interface PartitionWrite {
  readonly key: OffsetRowKey;
  readonly rows: readonly BufferedRow[];
  /** The offset after the batch (the next to read), stored with the rows. */
  readonly next: number;
}

export interface PartitionWriteEnv {
  readonly pool: PgPool;
  readonly offsetsTable: TableName;
  readonly ddl: TableDdl;
  readonly insertMode: InsertMode;
  readonly batchSize: number;
}

/** How a partition transaction went. */
export interface PartitionOutcome {
  /** Records written (rows inserted, upserted, updated or deleted statements included). */
  readonly written: number;
  /** Records at or above the batch start but below the stored offset: not written again. */
  readonly skipped: number;
  /** The stored next offset found under the lock. */
  readonly stored: number;
}

/**
 * Writes `write` in one transaction. @throws RetriableError for lost connections, deadlocks and
 * serialization failures (nothing committed: the batch is redelivered), ConnectError otherwise.
 */
export async function writePartition(
  env: PartitionWriteEnv,
  write: PartitionWrite,
): Promise<PartitionOutcome> {
  try {
    const { outcome, learned } = await inTransaction(
      env.pool,
      `writing ${write.key.topic}-${write.key.partition}`,
      async (client) => {
        const locked = await run(client, lockOffsetRowStatement(env.offsetsTable, write.key));
        const stored = Number(locked.rows[0]?.next_offset ?? 0);
        const fresh = write.rows.filter((r) => r.offset >= stored);
        const rows = fresh.flatMap((r) => (r.row === null ? [] : [r.row]));
        let learned: TableColumns = new Map();
        if (rows.length > 0) {
          learned = await env.ddl.ensure(client, rows);
          for (const statement of statementsFor(env.insertMode, rows, env.batchSize)) {
            await run(client, statement);
          }
        }
        if (write.next > stored) {
          await run(client, advanceOffsetRowStatement(env.offsetsTable, write.key, write.next));
        }
        const skipped = write.rows.length - fresh.length;
        return { outcome: { written: rows.length, skipped, stored }, learned };
      },
    );
    // Only now does what the transaction created exist for the task's other transactions.
    env.ddl.remember(learned);
    return outcome;
  } catch (error) {
    env.ddl.forget();
    throw error;
  }
}
