/**
 * The statements that read a table or a custom query, as Confluent's
 * `TimestampIncrementingCriteria` builds them (the criteria appended to `SELECT * FROM table`
 * or to the query), with a `LIMIT` so that one poll reads one bounded batch:
 *
 * - incrementing: `WHERE inc > $1 ORDER BY inc ASC`
 * - timestamp: `WHERE ts > $1 AND ts < $2 ORDER BY ts ASC`
 * - timestamp+incrementing: `WHERE ts < $1 AND ((ts = $2 AND inc > $3) OR ts > $2) ORDER BY ts,inc ASC`
 *
 * where `ts` is the timestamp column or `COALESCE(c1,c2,…)` of several, and the upper bound is
 * the database's current time minus `timestamp.delay.interval.ms`. Without a stored position
 * the lower bound is left out (every row is read; Confluent starts above -1 and the epoch).
 * Identifiers are always quoted and values always `$n` parameters. Pure.
 */
import { quoteIdentifier, type Statement } from '../postgres/identifiers.js';
import type { TimestampKind } from './pg-time.js';

/** `mode`. */
export type SourceMode = 'bulk' | 'incrementing' | 'timestamp' | 'timestamp+incrementing';

/** What the criteria are built from. */
export interface CriteriaColumns {
  /** `SELECT * FROM "schema"."table"`, or the custom query. */
  readonly base: string;
  /** The incrementing column, `null` when the mode has none. */
  readonly incrementing: string | null;
  /** The timestamp columns, COALESCEd in order; empty when the mode has none. */
  readonly timestamps: readonly string[];
  /** How the timestamp expression is typed: its parameters are cast to it. */
  readonly timestampKind: TimestampKind;
}

/** Bounds of one incremental query, parameters formatted for the columns' types. */
export interface QueryBounds {
  /** The last delivered timestamp as a parameter, `null` when none is stored. */
  readonly timestamp: string | null;
  /** The last delivered incrementing value, `null` when none is stored. */
  readonly incrementing: string | null;
  /** The upper bound of the timestamp (now − delay) as a parameter. */
  readonly end: string | null;
}

/** `"c"` or `COALESCE("c1","c2")`. */
export function timestampExpression(columns: readonly string[]): string {
  const quoted = columns.map(quoteIdentifier);
  return quoted.length === 1 ? (quoted[0] as string) : `COALESCE(${quoted.join(',')})`;
}

function castOf(kind: TimestampKind): string {
  return kind === 'timestamptz' ? 'timestamptz' : 'timestamp';
}

/** The whole table or query, as bulk mode reads it. */
export function bulkStatement(columns: Pick<CriteriaColumns, 'base'>): Statement {
  return { text: columns.base, values: [] };
}

/** The next batch after `bounds`, at most `limit` rows. */
export function incrementalStatement(
  columns: CriteriaColumns,
  bounds: QueryBounds,
  limit: number,
): Statement {
  const values: unknown[] = [];
  const param = (value: unknown, cast?: string) => {
    values.push(value);
    return `$${values.length}${cast === undefined ? '' : `::${cast}`}`;
  };
  const inc = columns.incrementing === null ? null : quoteIdentifier(columns.incrementing);
  const cast = castOf(columns.timestampKind);
  let where: string[] = [];
  let order: string;
  if (columns.timestamps.length === 0) {
    if (inc === null) throw new Error('incremental criteria need a column');
    if (bounds.incrementing !== null) where = [`${inc} > ${param(bounds.incrementing)}`];
    order = `${inc} ASC`;
  } else {
    const ts = timestampExpression(columns.timestamps);
    const end = bounds.end;
    const before = () => `${ts} < ${param(end, cast)}`;
    if (inc === null) {
      if (bounds.timestamp !== null) where.push(`${ts} > ${param(bounds.timestamp, cast)}`);
      if (end !== null) where.push(before());
      order = `${ts} ASC`;
    } else {
      if (end !== null) where.push(before());
      if (bounds.timestamp !== null) {
        const begin = param(bounds.timestamp, cast);
        where.push(
          bounds.incrementing === null
            ? `${ts} >= ${begin}`
            : `((${ts} = ${begin} AND ${inc} > ${param(bounds.incrementing)}) OR ${ts} > ${begin})`,
        );
      }
      order = `${ts},${inc} ASC`;
    }
  }
  const criteria = where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`;
  return {
    text: `${columns.base}${criteria} ORDER BY ${order} LIMIT ${param(limit)}`,
    values,
  };
}

/**
 * Every row whose timestamp is exactly `timestamp` (timestamp mode: a batch filled with one
 * timestamp is completed with the rest of that timestamp's rows, so that no batch ends inside
 * a run of equal timestamps).
 */
export function equalTimestampStatement(columns: CriteriaColumns, timestamp: string): Statement {
  const ts = timestampExpression(columns.timestamps);
  return {
    text: `${columns.base} WHERE ${ts} = $1::${castOf(columns.timestampKind)} ORDER BY ${ts} ASC`,
    values: [timestamp],
  };
}
