/**
 * Which tables a task captures: Debezium's include/exclude lists (comma-separated regular
 * expressions, matched case-insensitively against the whole `schema` or `schema.table`), system
 * schemas never, and with several tasks only the tables whose name hashes to the task. Pure.
 */

/** A table by schema and name. */
export interface TableId {
  readonly schema: string;
  readonly table: string;
}

export interface TableFilterConfig {
  readonly tableInclude: readonly string[];
  readonly tableExclude: readonly string[];
  readonly schemaInclude: readonly string[];
  readonly schemaExclude: readonly string[];
}

const SYSTEM_SCHEMA = /^(pg_catalog|information_schema|pg_toast|pg_temp_\d+|pg_toast_temp_\d+)$/;

/** A Debezium filter regex: the whole name must match, case-insensitively. */
export function compileFilter(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, 'i');
}

/** `schema.table`, the name the filters (and offsets) use. */
export function tableIdText(id: TableId): string {
  return `${id.schema}.${id.table}`;
}

/** The filter of a config: a predicate on tables. */
export function tableFilterOf(config: TableFilterConfig): (id: TableId) => boolean {
  const compile = (patterns: readonly string[]) => patterns.map(compileFilter);
  const [tin, tex, sin, sex] = [
    compile(config.tableInclude),
    compile(config.tableExclude),
    compile(config.schemaInclude),
    compile(config.schemaExclude),
  ];
  return (id) => {
    if (SYSTEM_SCHEMA.test(id.schema)) return false;
    if (sin.length > 0 && !sin.some((r) => r.test(id.schema))) return false;
    if (sex.some((r) => r.test(id.schema))) return false;
    const name = tableIdText(id);
    if (tin.length > 0 && !tin.some((r) => r.test(name))) return false;
    return !tex.some((r) => r.test(name));
  };
}

/** FNV-1a of `text`: a stable hash for spreading tables over tasks. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The task (of `taskCount`) that captures `id`. */
export function taskOfTable(id: TableId, taskCount: number): number {
  return taskCount <= 1 ? 0 : fnv1a(tableIdText(id)) % taskCount;
}

/** Tables in snapshot order: by schema, then name (code-point order, stable across runs). */
export function compareTables(a: TableId, b: TableId): number {
  const x = tableIdText(a);
  const y = tableIdText(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
