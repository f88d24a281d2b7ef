/**
 * PostgreSQL names and statements shared by the PostgreSQL connectors: tables as the JDBC
 * connectors read them, identifiers always double-quoted, values always `$n` parameters. Pure.
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
