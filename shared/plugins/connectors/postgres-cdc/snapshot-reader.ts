/**
 * Reads the captured tables for the initial snapshot: inside one REPEATABLE READ transaction (on
 * the slot's exported snapshot, or a fresh one when a snapshot resumes in a later invocation),
 * table by table in `schema.table` order, each in key order by keyset pagination (`WHERE key >
 * last key ORDER BY key LIMIT n`; `ctid` for a table without a primary key). Every value is read
 * as text, the form pgoutput streams.
 */
import { qualifiedName, quoteIdentifier } from '../postgres/identifiers.js';
import { toConnectError } from '../postgres/pg-client.js';
import type { SqlClient } from './catalog.js';
import type { TableShape } from './debezium-schemas.js';
import { tableIdText } from './table-filter.js';

/** A table to read, with its shape. */
export interface SnapshotTable {
  readonly shape: TableShape;
}

/** One row read: its values as text (column order) and its key as text (to resume after). */
export interface SnapshotRow {
  readonly table: SnapshotTable;
  readonly values: readonly (string | null)[];
  readonly key: readonly string[];
  /** The first row read of its table in this invocation. */
  readonly firstOfTable: boolean;
  /** The last row of its table. */
  readonly lastOfTable: boolean;
  /** The last row of the whole snapshot. */
  readonly lastOfSnapshot: boolean;
}

/** A query whose every column comes back as text, in arrays (node-postgres's query config). */
interface TextQueryClient {
  query(config: {
    text: string;
    values?: unknown[];
    rowMode: 'array';
    types: { getTypeParser: () => (value: string) => string };
  }): Promise<{ rows: unknown[][] }>;
}

const AS_TEXT = { getTypeParser: () => (value: string) => value };

/** Where a resumed snapshot starts: the table (`schema.table`) and the key after which to read. */
export interface SnapshotResume {
  readonly table: string;
  readonly key: readonly string[];
}

export class SnapshotReader {
  #index = 0;
  #after: readonly string[] | null;
  #firstOfTable = true;
  #began = false;

  /**
   * `tables` in snapshot order; `resume` skips the tables before its table and the rows up to
   * its key.
   */
  constructor(
    private readonly client: SqlClient,
    private readonly tables: readonly SnapshotTable[],
    resume: SnapshotResume | null,
    private readonly chunk: number,
  ) {
    if (resume === null) {
      this.#after = null;
    } else {
      const at = tables.findIndex((t) => tableIdText(t.shape) >= resume.table);
      this.#index = at < 0 ? tables.length : at;
      this.#after =
        at >= 0 && tableIdText(tables[at]?.shape as TableShape) === resume.table
          ? resume.key
          : null;
    }
  }

  /** Opens the transaction, on `snapshotName` (exported by the slot) or a fresh snapshot. */
  async begin(snapshotName: string | null): Promise<void> {
    try {
      await this.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      if (snapshotName !== null) {
        await this.client.query(`SET TRANSACTION SNAPSHOT '${snapshotName.replaceAll("'", "''")}'`);
      }
      this.#began = true;
    } catch (error) {
      throw toConnectError(error, 'starting the snapshot transaction');
    }
  }

  /** Ends the transaction (it only read). */
  async end(): Promise<void> {
    if (!this.#began) return;
    this.#began = false;
    await this.client.query('ROLLBACK').catch(() => undefined);
  }

  get done(): boolean {
    return this.#index >= this.tables.length;
  }

  /** The next rows (at most one chunk, of one table); empty when the snapshot is complete. */
  async next(): Promise<SnapshotRow[]> {
    while (!this.done) {
      const table = this.tables[this.#index] as SnapshotTable;
      const rows = await this.#read(table);
      const more = rows.length > this.chunk;
      const page = more ? rows.slice(0, this.chunk) : rows;
      const keyWidth = Math.max(1, table.shape.keyIndexes.length);
      const lastOfTable = !more;
      let lastOfSnapshot = false;
      if (lastOfTable) {
        this.#index += 1;
        this.#after = null;
        lastOfSnapshot = !(await this.#rowsAfter());
      }
      if (page.length === 0) {
        this.#firstOfTable = true;
        continue;
      }
      const out = page.map((row, i): SnapshotRow => {
        const key = row.slice(row.length - keyWidth).map((k) => String(k));
        const last = i === page.length - 1;
        return {
          table,
          values: row.slice(0, row.length - keyWidth) as (string | null)[],
          key,
          firstOfTable: this.#firstOfTable && i === 0,
          lastOfTable: lastOfTable && last,
          lastOfSnapshot: lastOfSnapshot && last,
        };
      });
      this.#firstOfTable = lastOfTable;
      if (!lastOfTable) this.#after = out[out.length - 1]?.key ?? null;
      return out;
    }
    return [];
  }

  /** Up to chunk + 1 rows of `table` after the resume key: the values, then the key columns. */
  async #read(table: SnapshotTable): Promise<unknown[][]> {
    const { shape } = table;
    const keys =
      shape.keyIndexes.length > 0
        ? shape.keyIndexes.map((i) => quoteIdentifier(shape.columns[i]?.name ?? ''))
        : ['ctid'];
    // No casts: the text protocol gives each type's output function, the form pgoutput streams.
    const columns = shape.columns.map((c) => quoteIdentifier(c.name));
    const keyList = keys.join(', ');
    const tuple = keys.join(', ');
    const after = this.#after;
    const where =
      after === null
        ? ''
        : shape.keyIndexes.length > 0
          ? `WHERE (${tuple}) > (${after.map((_, i) => `$${i + 1}`).join(', ')})`
          : 'WHERE ctid > $1::tid';
    const text = `SELECT ${[...columns, keyList].join(', ')} FROM ${qualifiedName(shape)} ${where} ORDER BY ${tuple} LIMIT ${this.chunk + 1}`;
    try {
      const result = await (this.client as unknown as TextQueryClient).query({
        text,
        values: after === null ? [] : [...after],
        rowMode: 'array',
        types: AS_TEXT,
      });
      return result.rows;
    } catch (error) {
      throw toConnectError(error, `reading ${tableIdText(shape)} for the snapshot`);
    }
  }

  /** Whether any table after the current one has a row (so the current last row is not the snapshot's last). */
  async #rowsAfter(): Promise<boolean> {
    for (const table of this.tables.slice(this.#index)) {
      const { rows } = await this.client.query(
        `SELECT EXISTS (SELECT 1 FROM ${qualifiedName(table.shape)}) AS any`,
      );
      if (rows[0]?.any === true) return true;
    }
    return false;
  }
}
