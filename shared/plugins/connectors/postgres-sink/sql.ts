import {
  qualifiedName,
  quoteIdentifier,
  type Statement,
  type TableName,
  tableLabel,
} from '../postgres/identifiers.js';

/** A column to create or add: its name, PostgreSQL type and nullability. */
export interface ColumnSpec {
  readonly name: string;
  readonly type: string;
  readonly nullable: boolean;
}

/** PostgreSQL's limit on the parameters of one statement. */
export const MAX_PARAMETERS = 65_535;

function placeholders(rows: number, columns: number): string {
  const tuples: string[] = [];
  for (let r = 0; r < rows; r++) {
    const cells: string[] = [];
    for (let c = 1; c <= columns; c++) cells.push(`$${r * columns + c}`);
    tuples.push(`(${cells.join(',')})`);
  }
  return tuples.join(',');
}

function columnList(columns: readonly string[]): string {
  return columns.map(quoteIdentifier).join(',');
}

/** The most rows of `columns` columns one statement may carry, at most `batchSize`. */
export function rowsPerStatement(batchSize: number, columns: number): number {
  return Math.max(1, Math.min(batchSize, Math.floor(MAX_PARAMETERS / Math.max(1, columns))));
}

/** A multi-row `INSERT`; `rows` hold the values in `columns` order. */
export function insertStatement(
  table: TableName,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Statement {
  return {
    text: `INSERT INTO ${qualifiedName(table)} (${columnList(columns)}) VALUES ${placeholders(rows.length, columns.length)}`,
    values: rows.flat(),
  };
}

/**
 * A multi-row `INSERT … ON CONFLICT (keys) DO UPDATE` of the other columns (`DO NOTHING` when
 * every column is a key). The rows must have distinct keys.
 */
export function upsertStatement(
  table: TableName,
  columns: readonly string[],
  keys: readonly string[],
  rows: readonly (readonly unknown[])[],
): Statement {
  const updates = columns
    .filter((c) => !keys.includes(c))
    .map((c) => `${quoteIdentifier(c)}=EXCLUDED.${quoteIdentifier(c)}`);
  const action = updates.length === 0 ? 'DO NOTHING' : `DO UPDATE SET ${updates.join(',')}`;
  const insert = insertStatement(table, columns, rows);
  return {
    text: `${insert.text} ON CONFLICT (${columnList(keys)}) ${action}`,
    values: insert.values,
  };
}

/** `UPDATE … SET columns WHERE keys`; `values` are the set columns' then the keys'. */
export function updateStatement(
  table: TableName,
  setColumns: readonly string[],
  keys: readonly string[],
  values: readonly unknown[],
): Statement {
  const set = setColumns.map((c, i) => `${quoteIdentifier(c)}=$${i + 1}`).join(',');
  const where = keys
    .map((k, i) => `${quoteIdentifier(k)}=$${setColumns.length + i + 1}`)
    .join(' AND ');
  return { text: `UPDATE ${qualifiedName(table)} SET ${set} WHERE ${where}`, values };
}

/** `DELETE … WHERE (keys) IN (…)` for `rows` of key values. */
export function deleteStatement(
  table: TableName,
  keys: readonly string[],
  rows: readonly (readonly unknown[])[],
): Statement {
  const target = keys.length === 1 ? columnList(keys) : `(${columnList(keys)})`;
  const list =
    keys.length === 1
      ? rows.map((_, i) => `$${i + 1}`).join(',')
      : placeholders(rows.length, keys.length);
  return {
    text: `DELETE FROM ${qualifiedName(table)} WHERE ${target} IN (${list})`,
    values: rows.flat(),
  };
}

function columnDefinition(column: ColumnSpec): string {
  return `${quoteIdentifier(column.name)} ${column.type}${column.nullable ? '' : ' NOT NULL'}`;
}

/** `CREATE TABLE IF NOT EXISTS` with the columns and, when `keys` is not empty, a primary key. */
export function createTableStatement(
  table: TableName,
  columns: readonly ColumnSpec[],
  keys: readonly string[],
): Statement {
  const parts = columns.map(columnDefinition);
  if (keys.length > 0) parts.push(`PRIMARY KEY (${columnList(keys)})`);
  return {
    text: `CREATE TABLE IF NOT EXISTS ${qualifiedName(table)} (${parts.join(',')})`,
    values: [],
  };
}

/** `ALTER TABLE … ADD COLUMN IF NOT EXISTS`, always nullable (existing rows have no value). */
export function addColumnStatement(table: TableName, column: ColumnSpec): Statement {
  return {
    text: `ALTER TABLE ${qualifiedName(table)} ADD COLUMN IF NOT EXISTS ${columnDefinition({ ...column, nullable: true })}`,
    values: [],
  };
}

/** The columns of `table` (none when it does not exist). */
export function tableColumnsStatement(table: TableName): Statement {
  return {
    text:
      'SELECT column_name FROM information_schema.columns ' +
      'WHERE table_schema = COALESCE($1, current_schema()) AND table_name = $2',
    values: [table.schema, table.table],
  };
}

/**
 * A transaction-scoped advisory lock on the table's name, so concurrent tasks creating or
 * altering the same table take turns instead of failing on each other's DDL.
 */
export function tableLockStatement(table: TableName): Statement {
  return {
    text: "SELECT pg_advisory_xact_lock(hashtext('serverless-connect:' || $1))",
    values: [tableLabel(table)],
  };
}
