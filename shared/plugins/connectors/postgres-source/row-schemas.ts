/**
 * The Connect struct schema of a query's result columns, as Confluent's `SchemaMapping` builds
 * it from `ResultSetMetaData`: one field per column, named by the column's label, optional
 * unless the column is a table column declared NOT NULL; the struct named after the table
 * (unnamed for a custom query). Types of extensions, domains and enums are looked up in
 * `pg_type` once per task; nullability in `pg_attribute` once per result shape.
 */
import { DataError, type Schema, SchemaBuilder, Struct } from 'serverless-connect/connect';
import type { Statement } from '../postgres/identifiers.js';
import type { PgClient, PgField, PgTextResult } from '../postgres/pg-client.js';
import {
  BUILTIN_ARRAYS,
  builtinKind,
  type ColumnKind,
  type ColumnMapping,
  columnMapping,
  isBuiltinType,
  type MappingSettings,
} from './column-types.js';

/** A result shape mapped: the struct schema and one reader per column. */
export interface RowSchema {
  readonly schema: Schema;
  readonly columns: readonly ColumnMapping[];
  readonly names: readonly string[];
}

interface PgType {
  readonly typtype: string;
  readonly typcategory: string;
  readonly typbasetype: number;
  readonly typtypmod: number;
  readonly typelem: number;
}

const STRING: ColumnKind = { kind: 'string' };
/** Domains over domains, arrays of domains: how deep `pg_type` is followed. */
const MAX_LOOKUPS = 6;

/** The struct value of a row (text values, as a {@link RowSchema} reads them). */
export function rowStruct(rowSchema: RowSchema, row: readonly (string | null)[]): Struct {
  const struct = new Struct(rowSchema.schema);
  for (let i = 0; i < rowSchema.columns.length; i++) {
    const text = row[i] ?? null;
    const name = rowSchema.names[i] as string;
    try {
      struct.put(name, text === null ? null : (rowSchema.columns[i] as ColumnMapping).read(text));
    } catch (error) {
      if (error instanceof DataError) {
        throw new DataError(`Column ${name}: ${error.message}`, { cause: error });
      }
      throw error;
    }
  }
  return struct;
}

/** Maps result shapes to struct schemas, caching what it looked up. */
export class RowSchemas {
  readonly #settings: MappingSettings;
  readonly #types = new Map<number, PgType>();
  readonly #notNull = new Map<string, boolean>();
  readonly #shapes = new Map<string, RowSchema>();

  constructor(settings: MappingSettings) {
    this.#settings = settings;
  }

  /** The row schema of `fields`, the struct named `name` (`null`: unnamed). */
  async of(client: PgClient, fields: readonly PgField[], name: string | null): Promise<RowSchema> {
    const key = JSON.stringify([
      name,
      fields.map((f) => [f.name, f.dataTypeID, f.dataTypeModifier, f.tableID, f.columnID]),
    ]);
    const known = this.#shapes.get(key);
    if (known !== undefined) return known;
    await this.#lookUpTypes(
      client,
      fields.map((f) => f.dataTypeID),
    );
    await this.#lookUpNullability(client, fields);
    const builder = SchemaBuilder.struct().name(name);
    const columns: ColumnMapping[] = [];
    for (const field of fields) {
      if (builder.fields.some((f) => f.name === field.name)) {
        throw new DataError(
          `The query returns two columns named ${field.name}: give them distinct names (AS)`,
        );
      }
      const required = this.#notNull.get(`${field.tableID}.${field.columnID}`) === true;
      const mapping = columnMapping(
        this.#kindOf(field.dataTypeID, field.dataTypeModifier, 0),
        !required,
        this.#settings,
      );
      builder.field(field.name, mapping.schema);
      columns.push(mapping);
    }
    const rowSchema = { schema: builder.build(), columns, names: fields.map((f) => f.name) };
    this.#shapes.set(key, rowSchema);
    return rowSchema;
  }

  #kindOf(oid: number, typmod: number, depth: number): ColumnKind {
    if (depth > MAX_LOOKUPS) return STRING;
    if (isBuiltinType(oid)) {
      const element = BUILTIN_ARRAYS.get(oid);
      return element === undefined
        ? builtinKind(oid, typmod)
        : { kind: 'array', element: builtinKind(element, typmod) };
    }
    const type = this.#types.get(oid);
    if (type === undefined) return STRING;
    if (type.typtype === 'd') {
      return this.#kindOf(type.typbasetype, typmod === -1 ? type.typtypmod : typmod, depth + 1);
    }
    if (type.typcategory === 'A' && type.typelem !== 0) {
      const element = this.#kindOf(type.typelem, typmod, depth + 1);
      return element.kind === 'array' ? STRING : { kind: 'array', element };
    }
    return STRING;
  }

  /** Loads the pg_type rows of the non-built-in types among `oids`, following domains and arrays. */
  async #lookUpTypes(client: PgClient, oids: readonly number[]): Promise<void> {
    let wanted = [...new Set(oids)].filter((o) => !isBuiltinType(o) && !this.#types.has(o));
    for (let round = 0; wanted.length > 0 && round < MAX_LOOKUPS; round++) {
      const { rows } = await client.query(
        'SELECT oid::int8 AS oid, typtype::text, typcategory::text, typbasetype::int8 AS typbasetype, typtypmod, typelem::int8 AS typelem FROM pg_catalog.pg_type WHERE oid = ANY($1::oid[])',
        [wanted],
      );
      const next: number[] = [];
      for (const row of rows) {
        const type: PgType = {
          typtype: String(row.typtype),
          typcategory: String(row.typcategory),
          typbasetype: Number(row.typbasetype),
          typtypmod: Number(row.typtypmod),
          typelem: Number(row.typelem),
        };
        this.#types.set(Number(row.oid), type);
        for (const more of [type.typbasetype, type.typelem]) {
          if (more !== 0 && !isBuiltinType(more) && !this.#types.has(more)) next.push(more);
        }
      }
      wanted = [...new Set(next)];
    }
  }

  /** Loads `attnotnull` of the table columns among `fields`. */
  async #lookUpNullability(client: PgClient, fields: readonly PgField[]): Promise<void> {
    const columns = fields.filter(
      (f) => f.tableID !== 0 && !this.#notNull.has(`${f.tableID}.${f.columnID}`),
    );
    if (columns.length === 0) return;
    const { rows } = await client.query(
      'SELECT a.attrelid::int8 AS rel, a.attnum::int4 AS num, a.attnotnull FROM pg_catalog.pg_attribute a JOIN unnest($1::oid[], $2::int2[]) AS c(rel, num) ON a.attrelid = c.rel AND a.attnum = c.num',
      [columns.map((f) => f.tableID), columns.map((f) => f.columnID)],
    );
    for (const f of columns) this.#notNull.set(`${f.tableID}.${f.columnID}`, false);
    for (const row of rows) this.#notNull.set(`${row.rel}.${row.num}`, row.attnotnull === true);
  }
}

const TEXT_PARSERS = { getTypeParser: () => (text: string) => text };

/** Runs `statement` with every value left as PostgreSQL's text, rows as arrays. */
export function textQuery(client: PgClient, statement: Statement): Promise<PgTextResult> {
  return client.query({
    text: statement.text,
    values: [...statement.values],
    rowMode: 'array',
    types: TEXT_PARSERS,
  });
}

/**
 * The index of column `name` among `fields`: the exact name, else the one name equal ignoring
 * case (as Confluent finds timestamp columns). `undefined` when none or several match.
 */
export function columnIndex(
  fields: readonly { readonly name: string }[],
  name: string,
): number | undefined {
  const exact = fields.findIndex((f) => f.name === name);
  if (exact !== -1) return exact;
  const lower = name.toLowerCase();
  const matches = fields.flatMap((f, i) => (f.name.toLowerCase() === lower ? [i] : []));
  return matches.length === 1 ? matches[0] : undefined;
}
