/**
 * Rows in record order as few statements as keep that order: consecutive rows of the same table,
 * operation and columns share a multi-row statement (up to `batch.size` rows and PostgreSQL's
 * parameter limit); an upsert statement never carries one key twice (PostgreSQL refuses to
 * update a row twice in one statement). Pure.
 */

import { type Statement, tableLabel } from '../postgres/identifiers.js';
import type { InsertMode } from './postgres-sink-config.js';
import type { RowWrite } from './record-rows.js';
import {
  deleteStatement,
  insertStatement,
  rowsPerStatement,
  updateStatement,
  upsertStatement,
} from './sql.js';

interface Group {
  readonly signature: string;
  readonly first: RowWrite;
  readonly rows: RowWrite[];
  readonly keys: Set<string>;
}

function columnsOf(row: RowWrite): string[] {
  return [...row.keys.map((c) => c.name), ...row.fields.map((c) => c.name)];
}

function signatureOf(row: RowWrite): string {
  return JSON.stringify([tableLabel(row.table), row.op, columnsOf(row)]);
}

function keyOf(row: RowWrite): string {
  return JSON.stringify(
    row.keys.map((k) => (Buffer.isBuffer(k.value) ? k.value.toString('hex') : k.value)),
  );
}

function statementOf(mode: InsertMode, group: Group): Statement[] {
  const { first, rows } = group;
  const keyNames = first.keys.map((k) => k.name);
  if (first.op === 'delete') {
    return [
      deleteStatement(
        first.table,
        keyNames,
        rows.map((r) => r.keys.map((k) => k.value)),
      ),
    ];
  }
  if (mode === 'update') {
    const set = first.fields.map((f) => f.name);
    if (set.length === 0) return [];
    return rows.map((r) =>
      updateStatement(first.table, set, keyNames, [
        ...r.fields.map((f) => f.value),
        ...r.keys.map((k) => k.value),
      ]),
    );
  }
  const columns = columnsOf(first);
  const values = rows.map((r) => [...r.keys.map((k) => k.value), ...r.fields.map((f) => f.value)]);
  return [
    mode === 'upsert'
      ? upsertStatement(first.table, columns, keyNames, values)
      : insertStatement(first.table, columns, values),
  ];
}

/** The statements writing `rows` in order under `insert.mode` `mode`. */
export function statementsFor(
  mode: InsertMode,
  rows: readonly RowWrite[],
  batchSize: number,
): Statement[] {
  const groups: Group[] = [];
  let current: Group | undefined;
  for (const row of rows) {
    const signature = signatureOf(row);
    const limit = rowsPerStatement(batchSize, row.keys.length + row.fields.length);
    const key = keyOf(row);
    const distinctKeys = mode === 'upsert' || row.op === 'delete';
    if (
      current === undefined ||
      current.signature !== signature ||
      current.rows.length >= limit ||
      (distinctKeys && current.keys.has(key))
    ) {
      current = { signature, first: row, rows: [], keys: new Set() };
      groups.push(current);
    }
    current.rows.push(row);
    current.keys.add(key);
  }
  return groups.flatMap((g) => statementOf(mode, g));
}
