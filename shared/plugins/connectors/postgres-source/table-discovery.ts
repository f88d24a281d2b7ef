/**
 * Which tables the connector copies and which task copies each, as Confluent's JDBC source
 * decides (`TableMonitorThread`, `JdbcSourceConnector.taskConfigs`): the relations of
 * `table.types` (in schemas matching `schema.pattern`), filtered by `table.whitelist`,
 * `table.blacklist` or `table.include.list`/`table.exclude.list`, split into contiguous groups
 * (Kafka's `ConnectorUtils.groupPartitions`). Tables travel to tasks in the `tables` task key,
 * quoted and comma-separated as Confluent writes them (`"public"."orders","public"."items"`).
 */
import { ConfigError, ConnectError, compileFullMatch } from 'serverless-connect/connect';
import { quoteIdentifier } from '../postgres/identifiers.js';
import type { PgClient } from '../postgres/pg-client.js';
import type { SourceTable } from './source-offsets.js';

/** Task config only: the tables of the task (set by the connector). */
export const TABLES_TASK_CONFIG = 'tables';

/** The `table.types` this connector lists (pgjdbc's names for PostgreSQL's relation kinds). */
export const TABLE_TYPES: readonly string[] = Object.freeze([
  'TABLE',
  'VIEW',
  'MATERIALIZED VIEW',
  'FOREIGN TABLE',
  'PARTITIONED TABLE',
  'SYSTEM TABLE',
  'SYSTEM VIEW',
]);

/** `table.whitelist`, `table.blacklist` or the regular expressions of the include and exclude lists. */
export type TableFilter =
  | { readonly kind: 'all' }
  | { readonly kind: 'whitelist' | 'blacklist'; readonly names: ReadonlySet<string> }
  | {
      readonly kind: 'regex';
      readonly include: readonly RegExp[];
      readonly exclude: readonly RegExp[];
    };

function conflict(key: string, value: readonly string[], why: string): ConfigError {
  return new ConfigError(`Invalid value ${value.join(',')} for configuration ${key}: ${why}`, key);
}

function regexes(key: string, patterns: readonly string[]): RegExp[] {
  return patterns.map((pattern) => {
    try {
      return compileFullMatch(pattern);
    } catch (error) {
      throw conflict(
        key,
        patterns,
        `invalid regular expression ${pattern}: ${(error as Error).message}`,
      );
    }
  });
}

/** The filter of the four list keys. @throws ConfigError when they are combined as not allowed. */
export function tableFilterOf(lists: {
  readonly whitelist: readonly string[];
  readonly blacklist: readonly string[];
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}): TableFilter {
  const { whitelist, blacklist, include, exclude } = lists;
  const legacy = whitelist.length > 0 || blacklist.length > 0;
  if (legacy && (include.length > 0 || exclude.length > 0)) {
    const key = include.length > 0 ? 'table.include.list' : 'table.exclude.list';
    throw conflict(
      key,
      include.length > 0 ? include : exclude,
      'cannot be combined with table.whitelist or table.blacklist',
    );
  }
  if (whitelist.length > 0 && blacklist.length > 0) {
    throw conflict(
      'table.blacklist',
      blacklist,
      'table.whitelist and table.blacklist cannot both be set',
    );
  }
  if (exclude.length > 0 && include.length === 0) {
    throw conflict('table.exclude.list', exclude, 'table.exclude.list needs table.include.list');
  }
  if (whitelist.length > 0) return { kind: 'whitelist', names: new Set(whitelist) };
  if (blacklist.length > 0) return { kind: 'blacklist', names: new Set(blacklist) };
  if (include.length > 0) {
    return {
      kind: 'regex',
      include: regexes('table.include.list', include),
      exclude: regexes('table.exclude.list', exclude),
    };
  }
  return { kind: 'all' };
}

/** `"schema"."table"`. */
export function quotedName(table: SourceTable): string {
  return `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.table)}`;
}

function listed(names: ReadonlySet<string>, table: SourceTable, database: string): boolean {
  return (
    names.has(`${table.schema}.${table.table}`) ||
    names.has(quotedName(table)) ||
    names.has(table.table) ||
    names.has(`${database}.${table.schema}.${table.table}`)
  );
}

/** The tables `filter` keeps, in order (`database`: the connection's, for three-part names). */
export function filterTables(
  tables: readonly SourceTable[],
  filter: TableFilter,
  database: string,
): SourceTable[] {
  switch (filter.kind) {
    case 'all':
      return [...tables];
    case 'whitelist':
      return tables.filter((t) => listed(filter.names, t, database));
    case 'blacklist':
      return tables.filter((t) => !listed(filter.names, t, database));
    case 'regex':
      return tables.filter((t) => {
        const name = `${t.schema}.${t.table}`;
        return (
          filter.include.some((r) => r.test(name)) && !filter.exclude.some((r) => r.test(name))
        );
      });
  }
}

/**
 * Refuses tables of equal names in different schemas: their topics would be the same (the
 * topic is the prefix and the unqualified name), as Confluent's connector refuses them.
 */
export function checkDistinctNames(tables: readonly SourceTable[]): void {
  const bySchema = new Map<string, string[]>();
  for (const t of tables) bySchema.set(t.table, [...(bySchema.get(t.table) ?? []), t.schema]);
  const duplicates = [...bySchema].filter(([, schemas]) => schemas.length > 1);
  if (duplicates.length > 0) {
    throw new ConnectError(
      'The topic of a table is its unqualified name, and several selected tables share one: ' +
        `${duplicates.map(([name, schemas]) => schemas.map((s) => `${s}.${name}`).join(' and ')).join('; ')}. ` +
        'Narrow table.whitelist, table.include.list or schema.pattern so that each name is selected once.',
    );
  }
}

/** Kafka's `ConnectorUtils.groupPartitions`: `count` contiguous groups, the first ones one longer. */
export function groupTables<T>(items: readonly T[], count: number): T[][] {
  const groups: T[][] = [];
  const perGroup = Math.floor(items.length / count);
  const leftover = items.length % count;
  let next = 0;
  for (let group = 0; group < count; group++) {
    const size = perGroup + (group < leftover ? 1 : 0);
    groups.push(items.slice(next, next + size));
    next += size;
  }
  return groups;
}

/** The `tables` task value of `tables`. */
export function encodeTables(tables: readonly SourceTable[]): string {
  return tables.map(quotedName).join(',');
}

const QUOTED_TABLE = /"((?:[^"]|"")*)"\."((?:[^"]|"")*)"(,|$)/gy;

/** The tables of a `tables` task value. @throws ConfigError when it is not one. */
export function decodeTables(value: string): SourceTable[] {
  if (value === '') return [];
  const tables: SourceTable[] = [];
  QUOTED_TABLE.lastIndex = 0;
  let match: RegExpExecArray | null = QUOTED_TABLE.exec(value);
  while (match !== null) {
    tables.push({
      schema: (match[1] ?? '').replaceAll('""', '"'),
      table: (match[2] ?? '').replaceAll('""', '"'),
    });
    if (match[3] === '') return tables;
    match = QUOTED_TABLE.exec(value);
  }
  throw new ConfigError(
    `Invalid value ${value} for configuration ${TABLES_TASK_CONFIG}: expected "schema"."table" names separated by commas`,
    TABLES_TASK_CONFIG,
  );
}

const SYSTEM_SCHEMAS = new Set(['pg_catalog', 'information_schema']);
const KIND_TYPES: Readonly<Record<string, string>> = {
  r: 'TABLE',
  v: 'VIEW',
  m: 'MATERIALIZED VIEW',
  f: 'FOREIGN TABLE',
  p: 'PARTITIONED TABLE',
};

/** The `table.types` name of a relation (pgjdbc's), `null` for temporary and toast relations. */
export function tableTypeOf(schema: string, relkind: string): string | null {
  if (schema.startsWith('pg_toast') || schema.startsWith('pg_temp_')) return null;
  if (SYSTEM_SCHEMAS.has(schema)) {
    return relkind === 'r' ? 'SYSTEM TABLE' : relkind === 'v' ? 'SYSTEM VIEW' : null;
  }
  return KIND_TYPES[relkind] ?? null;
}

/** The relations of `tableTypes` in schemas matching `schemaPattern`, by schema then name. */
export async function listTables(
  client: PgClient,
  tableTypes: readonly string[],
  schemaPattern: string | null,
): Promise<SourceTable[]> {
  const { rows } = await client.query(
    "SELECT n.nspname AS schema, c.relname AS name, c.relkind::text AS kind FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p') AND ($1::text IS NULL OR n.nspname LIKE $1::text) ORDER BY n.nspname, c.relname",
    [schemaPattern],
  );
  const wanted = new Set(tableTypes);
  return rows
    .filter((row) => {
      const type = tableTypeOf(String(row.schema), String(row.kind));
      return type !== null && wanted.has(type);
    })
    .map((row) => ({ schema: String(row.schema), table: String(row.name) }));
}
