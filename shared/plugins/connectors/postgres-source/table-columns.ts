/**
 * The columns the criteria use, checked when a task starts, as Confluent's JdbcSourceTask
 * checks them: the incrementing column (named, or the table's first serial or identity column,
 * found in `pg_attribute`), the timestamp columns, that they exist (the exact name, else the
 * one equal ignoring case) and, with `validate.non.null`, that they are NOT NULL. For a custom
 * query, the timestamp expression's type is read from the query's result columns.
 */
import { ConfigError } from 'serverless-connect/connect';
import type { PgClient } from '../postgres/pg-client.js';
import type { CriteriaColumns, SourceMode } from './criteria.js';
import type { TimestampKind } from './pg-time.js';
import { INCREMENTING_COLUMN_CONFIG, TIMESTAMP_COLUMN_CONFIG } from './postgres-source-config.js';
import { columnIndex, textQuery } from './row-schemas.js';
import type { SourceTable } from './source-offsets.js';

/** The columns of the criteria, resolved (the base statement aside). */
export type ResolvedColumns = Omit<CriteriaColumns, 'base'>;

/** What is resolved from the config. */
export interface ColumnSettings {
  readonly mode: SourceMode;
  readonly incrementingColumn: string | null;
  readonly timestampColumns: readonly string[];
  readonly validateNonNull: boolean;
}

interface TableColumn {
  readonly name: string;
  readonly notNull: boolean;
  readonly type: number;
  readonly auto: boolean;
}

const TIMESTAMPTZ_OID = 1184;
const DATE_OID = 1082;

/** How a COALESCE of columns of these types is typed (PostgreSQL prefers timestamptz). */
export function timestampKindOf(types: readonly (number | undefined)[]): TimestampKind {
  if (types.some((t) => t === TIMESTAMPTZ_OID || t === undefined)) return 'timestamptz';
  return types.length > 0 && types.every((t) => t === DATE_OID) ? 'date' : 'timestamp';
}

function label(table: SourceTable): string {
  return `${table.schema}.${table.table}`;
}

function find(columns: readonly TableColumn[], name: string): TableColumn | undefined {
  const index = columnIndex(columns, name);
  return index === undefined ? undefined : columns[index];
}

function resolveOne(
  table: SourceTable,
  columns: readonly TableColumn[],
  settings: ColumnSettings,
): ResolvedColumns {
  let incrementing: string | null = null;
  if (settings.mode === 'incrementing' || settings.mode === 'timestamp+incrementing') {
    const named = settings.incrementingColumn;
    const column = named === null ? columns.find((c) => c.auto) : find(columns, named);
    if (column === undefined) {
      throw new ConfigError(
        named === null
          ? `Invalid value  for configuration ${INCREMENTING_COLUMN_CONFIG}: table ${label(table)} has no serial or identity column to detect; name the incrementing column`
          : `Invalid value ${named} for configuration ${INCREMENTING_COLUMN_CONFIG}: table ${label(table)} has no column ${named}`,
        INCREMENTING_COLUMN_CONFIG,
      );
    }
    if (settings.validateNonNull && !column.notNull) {
      throw new ConfigError(
        `Invalid value ${column.name} for configuration ${INCREMENTING_COLUMN_CONFIG}: column ${column.name} of ${label(table)} is nullable; make it NOT NULL or set validate.non.null=false`,
        INCREMENTING_COLUMN_CONFIG,
      );
    }
    incrementing = column.name;
  }
  const timestamps: TableColumn[] = [];
  for (const name of settings.timestampColumns) {
    const column = find(columns, name);
    if (column === undefined) {
      throw new ConfigError(
        `Invalid value ${settings.timestampColumns.join(',')} for configuration ${TIMESTAMP_COLUMN_CONFIG}: table ${label(table)} has no column ${name}`,
        TIMESTAMP_COLUMN_CONFIG,
      );
    }
    timestamps.push(column);
  }
  if (settings.validateNonNull && timestamps.length > 0 && !timestamps.some((c) => c.notNull)) {
    throw new ConfigError(
      `Invalid value ${settings.timestampColumns.join(',')} for configuration ${TIMESTAMP_COLUMN_CONFIG}: every timestamp column of ${label(table)} is nullable; make one NOT NULL or set validate.non.null=false`,
      TIMESTAMP_COLUMN_CONFIG,
    );
  }
  return {
    incrementing,
    timestamps: timestamps.map((c) => c.name),
    timestampKind: timestampKindOf(timestamps.map((c) => c.type)),
  };
}

/**
 * The criteria columns of each table (keyed `schema.table`); a table that no longer exists is
 * left out. @throws ConfigError on the column key when a column is missing or nullable.
 */
export async function resolveTableColumns(
  client: PgClient,
  tables: readonly SourceTable[],
  settings: ColumnSettings,
): Promise<Map<string, ResolvedColumns>> {
  const { rows } = await client.query(
    "SELECT n.nspname AS schema, c.relname AS table, a.attname AS name, a.attnotnull AS not_null, COALESCE(NULLIF(t.typbasetype, 0), a.atttypid)::int8 AS type, (a.attidentity <> '' OR COALESCE(pg_catalog.pg_get_expr(d.adbin, d.adrelid), '') LIKE 'nextval(%') AS auto FROM unnest($1::text[], $2::text[]) AS w(schema, name) JOIN pg_catalog.pg_namespace n ON n.nspname = w.schema JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = w.name JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped JOIN pg_catalog.pg_type t ON t.oid = a.atttypid LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum ORDER BY n.nspname, c.relname, a.attnum",
    [tables.map((t) => t.schema), tables.map((t) => t.table)],
  );
  const byTable = new Map<string, TableColumn[]>();
  for (const row of rows) {
    const key = `${row.schema}.${row.table}`;
    const column: TableColumn = {
      name: String(row.name),
      notNull: row.not_null === true,
      type: Number(row.type),
      auto: row.auto === true,
    };
    byTable.set(key, [...(byTable.get(key) ?? []), column]);
  }
  const resolved = new Map<string, ResolvedColumns>();
  for (const table of tables) {
    const columns = byTable.get(label(table));
    if (columns !== undefined) resolved.set(label(table), resolveOne(table, columns, settings));
  }
  return resolved;
}

/**
 * The criteria columns of a custom query: the names as configured, the timestamp type from
 * the query's result columns (timestamptz when a column is not among them).
 */
export async function resolveQueryColumns(
  client: PgClient,
  query: string,
  settings: ColumnSettings,
): Promise<ResolvedColumns> {
  const usesIncrementing =
    settings.mode === 'incrementing' || settings.mode === 'timestamp+incrementing';
  let timestampKind: TimestampKind = 'timestamptz';
  if (settings.timestampColumns.length > 0) {
    const { fields } = await textQuery(client, {
      text: `SELECT * FROM (${query}) AS described LIMIT 0`,
      values: [],
    });
    timestampKind = timestampKindOf(
      settings.timestampColumns.map((name) => {
        const index = columnIndex(fields, name);
        return index === undefined ? undefined : fields[index]?.dataTypeID;
      }),
    );
  }
  return {
    incrementing: usesIncrementing ? settings.incrementingColumn : null,
    timestamps: [...settings.timestampColumns],
    timestampKind,
  };
}
