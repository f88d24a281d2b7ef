/**
 * `auto.create` and `auto.evolve`: before a batch's statements run (in its transaction), every
 * table they write has every column they name, or the batch fails with the JDBC sink's message.
 * Tables and columns seen are cached per task; DDL runs under a per-table advisory lock, so
 * tasks creating the same table take turns.
 */
import { ConnectError, DataError } from 'serverless-connect/connect';
import { type TableName, tableLabel } from '../postgres/identifiers.js';
import { type PgClient, run } from '../postgres/pg-client.js';
import type { ColumnValue, RowWrite } from './record-rows.js';
import {
  addColumnStatement,
  type ColumnSpec,
  createTableStatement,
  tableColumnsStatement,
  tableLockStatement,
} from './sql.js';

/** What a table must hold for a batch: its name, its key columns and every column named. */
interface TableNeeds {
  readonly table: TableName;
  readonly keys: readonly string[];
  readonly columns: Map<string, ColumnValue>;
}

function needsOf(rows: readonly RowWrite[]): Map<string, TableNeeds> {
  const needs = new Map<string, TableNeeds>();
  for (const row of rows) {
    const label = tableLabel(row.table);
    let need = needs.get(label);
    if (need === undefined) {
      need = { table: row.table, keys: row.keys.map((k) => k.name), columns: new Map() };
      needs.set(label, need);
    }
    for (const column of [...row.keys, ...row.fields]) {
      const known = need.columns.get(column.name);
      // A column some row says is optional is created nullable.
      if (known === undefined || (column.nullable && !known.nullable))
        need.columns.set(column.name, column);
    }
  }
  return needs;
}

function specOf(table: TableName, column: ColumnValue): ColumnSpec {
  if (column.type === null) {
    throw new DataError(
      `Cannot create column '${column.name}' of table ${tableLabel(table)}: the record has no schema (schemaless values need an existing column)`,
    );
  }
  return { name: column.name, type: column.type, nullable: column.nullable };
}

export interface TableDdlOptions {
  readonly autoCreate: boolean;
  readonly autoEvolve: boolean;
}

/** The columns of tables, by table label. */
export type TableColumns = Map<string, Set<string>>;

/**
 * A task's view of the tables it writes. What a transaction learns is remembered only once it
 * committed ({@link TableDdl.remember}): a table created by a transaction still open (another
 * partition's, at the same time) does not exist for anyone else yet.
 */
export class TableDdl {
  readonly #known: TableColumns = new Map();

  constructor(private readonly options: TableDdlOptions) {}

  /** Remembers the columns a committed transaction saw or made. */
  remember(learned: TableColumns): void {
    for (const [label, columns] of learned) this.#known.set(label, columns);
  }

  /** Forgets everything (after a failed transaction: a table may have been dropped meanwhile). */
  forget(): void {
    this.#known.clear();
  }

  /**
   * Creates missing tables and adds missing columns on `client` (in its open transaction), as
   * `auto.create` and `auto.evolve` allow; resolves with what it learned, for
   * {@link TableDdl.remember} once the transaction committed. @throws ConnectError naming the
   * table (and columns) when they are missing and may not be created.
   */
  async ensure(client: PgClient, rows: readonly RowWrite[]): Promise<TableColumns> {
    const learned: TableColumns = new Map();
    for (const [label, need] of needsOf(rows)) {
      const known = this.#known.get(label);
      if (known !== undefined && [...need.columns.keys()].every((c) => known.has(c))) continue;
      let columns = await this.#columns(client, need.table);
      if (columns.size === 0) {
        if (!this.options.autoCreate) {
          throw new ConnectError(`Table "${label}" is missing and auto-creation is disabled`);
        }
        await run(client, tableLockStatement(need.table));
        const specs = [...need.columns.values()].map((c) => specOf(need.table, c));
        await run(client, createTableStatement(need.table, specs, need.keys));
        columns = await this.#columns(client, need.table);
      }
      const missing = [...need.columns.values()].filter((c) => !columns.has(c.name));
      if (missing.length > 0) {
        if (!this.options.autoEvolve) {
          throw new ConnectError(
            `Table "${label}" is missing fields (${missing.map((c) => c.name).join(', ')}) and auto-evolution is disabled`,
          );
        }
        await run(client, tableLockStatement(need.table));
        for (const column of missing) {
          await run(client, addColumnStatement(need.table, specOf(need.table, column)));
          columns.add(column.name);
        }
      }
      learned.set(label, columns);
    }
    return learned;
  }

  async #columns(client: PgClient, table: TableName): Promise<Set<string>> {
    const result = await run(client, tableColumnsStatement(table));
    return new Set(result.rows.map((r) => String(r.column_name)));
  }
}
