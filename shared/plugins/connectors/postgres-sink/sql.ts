/**
 * The SQL the PostgreSQL sink runs, built as text with quoted identifiers and `$n` parameters:
 * values never enter the text. Pure.
 */
import { ConfigError, DataError } from 'serverless-connect/connect';

/** A table, schema-qualified or not (then the connection's search_path decides). */
export interface TableName {
  readonly schema: string | null;
  readonly table: string;
}

/** A statement and its parameters. */
export interface Statement {
  readonly text: string;
  readonly values: readonly unknown[];
}

/** A column to create or add: its name, PostgreSQL type and nullability. */
export interface ColumnSpec {
  readonly name: string;
  readonly type: string;
  readonly nullable: boolean;
}

/** PostgreSQL's limit on the parameters of one statement. */
export const MAX_PARAMETERS = 65_535;

/** `"name"`, with inner double quotes doubled. @throws DataError for an empty name or a NUL. */
export function quoteIdentifier(name: string): string {
  if (name === '' || name.includes('\u0000')) {
    throw new DataError(`Invalid PostgreSQL identifier: ${JSON.stringify(name)}`);
  }
  return `"${name.replaceAll('"', '""')}"`;
}

/** The table quoted for SQL: `"schema"."table"` or `"table"`. */
export function qualifiedName(name: TableName): string {
  return name.schema === null
    ? quoteIdentifier(name.table)
    : `${quoteIdentifier(name.schema)}.${quoteIdentifier(name.table)}`;
}

/** The table for messages: `schema.table` or `table`. */
export function tableLabel(name: TableName): string {
  return name.schema === null ? name.table : `${name.schema}.${name.table}`;
}

/**
 * Reads `schema.table` or `table` as the JDBC sink does (dots separate the parts; with three,
 * the first is the database, which must be the connection's and is dropped).
 * @throws ConfigError on `key` for an empty part or more than three parts.
 */
export function parseTableName(text: string, key: string): TableName {
  const parts = text.split('.').map((p) => p.trim());
  if (parts.length > 3 || parts.some((p) => p === '')) {
    throw new ConfigError(
      `Invalid value ${text} for configuration ${key}: expected table, schema.table or database.schema.table`,
      key,
    );
  }
  const table = parts[parts.length - 1] as string;
  return { schema: parts.length >= 2 ? (parts[parts.length - 2] as string) : null, table };
}

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
