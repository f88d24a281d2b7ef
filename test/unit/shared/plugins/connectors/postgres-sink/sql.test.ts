import { describe, expect, it } from 'vitest';
import {
  addColumnStatement,
  createTableStatement,
  deleteStatement,
  insertStatement,
  rowsPerStatement,
  updateStatement,
  upsertStatement,
} from '../../../../../../shared/plugins/connectors/postgres-sink/sql.js';

const orders = { schema: null, table: 'orders' };

describe('postgres-sink SQL', () => {
  it('builds a multi-row INSERT with parameters only, values never in the text', () => {
    const statement = insertStatement(
      { schema: 'sales', table: 'orders' },
      ['id', 'note'],
      [
        [1, "x'); DROP TABLE orders; --"],
        [2, null],
      ],
    );
    expect(statement.text).toBe(
      'INSERT INTO "sales"."orders" ("id","note") VALUES ($1,$2),($3,$4)',
    );
    expect(statement.values).toEqual([1, "x'); DROP TABLE orders; --", 2, null]);
  });

  it('builds an upsert on the key columns, DO NOTHING when every column is a key', () => {
    expect(upsertStatement(orders, ['id', 'qty'], ['id'], [[1, 2]]).text).toBe(
      'INSERT INTO "orders" ("id","qty") VALUES ($1,$2) ON CONFLICT ("id") DO UPDATE SET "qty"=EXCLUDED."qty"',
    );
    expect(upsertStatement(orders, ['id'], ['id'], [[1]]).text).toBe(
      'INSERT INTO "orders" ("id") VALUES ($1) ON CONFLICT ("id") DO NOTHING',
    );
  });

  it('builds UPDATE and DELETE by single and composite keys', () => {
    expect(updateStatement(orders, ['qty', 'note'], ['id', 'line'], [5, 'n', 1, 2]).text).toBe(
      'UPDATE "orders" SET "qty"=$1,"note"=$2 WHERE "id"=$3 AND "line"=$4',
    );
    expect(deleteStatement(orders, ['id'], [[1], [2]]).text).toBe(
      'DELETE FROM "orders" WHERE "id" IN ($1,$2)',
    );
    const composite = deleteStatement(
      orders,
      ['id', 'line'],
      [
        [1, 1],
        [1, 2],
      ],
    );
    expect(composite.text).toBe('DELETE FROM "orders" WHERE ("id","line") IN (($1,$2),($3,$4))');
    expect(composite.values).toEqual([1, 1, 1, 2]);
  });

  it('builds CREATE TABLE with nullability and the primary key, ADD COLUMN always nullable', () => {
    const columns = [
      { name: 'id', type: 'BIGINT', nullable: false },
      { name: 'note', type: 'TEXT', nullable: true },
    ];
    expect(createTableStatement(orders, columns, ['id']).text).toBe(
      'CREATE TABLE IF NOT EXISTS "orders" ("id" BIGINT NOT NULL,"note" TEXT,PRIMARY KEY ("id"))',
    );
    expect(addColumnStatement(orders, { name: 'qty', type: 'INTEGER', nullable: false }).text).toBe(
      'ALTER TABLE "orders" ADD COLUMN IF NOT EXISTS "qty" INTEGER',
    );
  });

  it("keeps a statement's parameters within PostgreSQL's 65535", () => {
    expect(rowsPerStatement(3000, 10)).toBe(3000);
    expect(rowsPerStatement(100_000, 10)).toBe(6553);
    expect(rowsPerStatement(10, 100_000)).toBe(1);
  });
});
