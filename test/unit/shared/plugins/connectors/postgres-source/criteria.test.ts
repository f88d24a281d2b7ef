import { describe, expect, it } from 'vitest';
import {
  bulkStatement,
  type CriteriaColumns,
  equalTimestampStatement,
  incrementalStatement,
} from '../../../../../../shared/plugins/connectors/postgres-source/criteria.js';

const base = 'SELECT * FROM "public"."orders"';
const incrementing: CriteriaColumns = {
  base,
  incrementing: 'id',
  timestamps: [],
  timestampKind: 'timestamptz',
};
const timestamp: CriteriaColumns = {
  base,
  incrementing: null,
  timestamps: ['updated_at'],
  timestampKind: 'timestamp',
};
const both: CriteriaColumns = {
  base,
  incrementing: 'id',
  timestamps: ['modified', 'created'],
  timestampKind: 'timestamptz',
};
const none = { timestamp: null, incrementing: null, end: null };

describe('incrementalStatement', () => {
  it("builds Confluent's incrementing criteria, and reads from the first row without an offset", () => {
    expect(incrementalStatement(incrementing, { ...none, incrementing: '41' }, 100)).toEqual({
      text: `${base} WHERE "id" > $1 ORDER BY "id" ASC LIMIT $2`,
      values: ['41', 100],
    });
    expect(incrementalStatement(incrementing, none, 5)).toEqual({
      text: `${base} ORDER BY "id" ASC LIMIT $1`,
      values: [5],
    });
  });

  it("builds Confluent's timestamp criteria: after the offset, before now minus the delay", () => {
    const bounds = {
      timestamp: '2024-01-01 00:00:00.000000',
      incrementing: null,
      end: '2024-01-02 00:00:00.000000',
    };
    expect(incrementalStatement(timestamp, bounds, 10)).toEqual({
      text: `${base} WHERE "updated_at" > $1::timestamp AND "updated_at" < $2::timestamp ORDER BY "updated_at" ASC LIMIT $3`,
      values: ['2024-01-01 00:00:00.000000', '2024-01-02 00:00:00.000000', 10],
    });
    expect(incrementalStatement(timestamp, { ...bounds, timestamp: null }, 10).text).toBe(
      `${base} WHERE "updated_at" < $1::timestamp ORDER BY "updated_at" ASC LIMIT $2`,
    );
  });

  it("builds Confluent's timestamp+incrementing tie-break over the COALESCE of the timestamp columns", () => {
    const bounds = { timestamp: 'T', incrementing: '7', end: 'E' };
    expect(incrementalStatement(both, bounds, 3)).toEqual({
      text:
        `${base} WHERE COALESCE("modified","created") < $1::timestamptz AND ` +
        '((COALESCE("modified","created") = $2::timestamptz AND "id" > $3) OR COALESCE("modified","created") > $2::timestamptz) ' +
        'ORDER BY COALESCE("modified","created"),"id" ASC LIMIT $4',
      values: ['E', 'T', '7', 3],
    });
    expect(incrementalStatement(both, { ...bounds, incrementing: null }, 3).text).toBe(
      `${base} WHERE COALESCE("modified","created") < $1::timestamptz AND COALESCE("modified","created") >= $2::timestamptz ORDER BY COALESCE("modified","created"),"id" ASC LIMIT $3`,
    );
  });

  it('appends the criteria to a custom query and quotes column names', () => {
    const query = {
      ...incrementing,
      base: 'SELECT o.id AS "my ""id""" FROM o',
      incrementing: 'my "id"',
    };
    expect(incrementalStatement(query, { ...none, incrementing: '1' }, 2).text).toBe(
      'SELECT o.id AS "my ""id""" FROM o WHERE "my ""id""" > $1 ORDER BY "my ""id""" ASC LIMIT $2',
    );
  });
});

describe('equalTimestampStatement and bulkStatement', () => {
  it('selects every row of one timestamp, and the whole table', () => {
    expect(equalTimestampStatement(timestamp, 'T')).toEqual({
      text: `${base} WHERE "updated_at" = $1::timestamp ORDER BY "updated_at" ASC`,
      values: ['T'],
    });
    expect(bulkStatement({ base })).toEqual({ text: base, values: [] });
  });
});
