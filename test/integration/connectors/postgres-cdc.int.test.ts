import type pg from 'pg';
import { afterAll, beforeAll, expect, it, describe as suite } from 'vitest';
import {
  adminClient,
  CdcHarness,
  cdcConfig,
  cdcNames,
  describe,
  dropCdcObjects,
  plain,
} from '../../support/postgres-cdc-harness.js';

let db: pg.Client;

beforeAll(async () => {
  db = await adminClient();
});

afterAll(async () => {
  await db?.end();
});

suite('postgres-cdc against the real server', { timeout: 60_000 }, () => {
  it('snapshots the table, then streams inserts, updates and deletes as Debezium events', async () => {
    const n = cdcNames();
    await db.query(`CREATE TABLE ${n.table} (id int PRIMARY KEY, name text NOT NULL, qty int)`);
    await db.query(`INSERT INTO ${n.table} VALUES (1, 'a', 1), (2, 'b', 2)`);
    const props = cdcConfig({
      'topic.prefix': n.prefix,
      'slot.name': n.slot,
      'publication.name': n.publication,
      'table.include.list': `public.${n.table}`,
    });
    const harness = new CdcHarness();
    const task = await harness.open(props);
    try {
      const snapshot = await harness.pollUntil(task, (r) => r.length >= 2);
      await harness.commit(task, snapshot);
      await db.query(`INSERT INTO ${n.table} VALUES (3, 'c', 3)`);
      await db.query(`UPDATE ${n.table} SET qty = 20 WHERE id = 2`);
      await db.query(`DELETE FROM ${n.table} WHERE id = 1`);
      const streamed = await harness.pollUntil(task, (r) => r.length >= 4);

      expect(snapshot.map(describe)).toEqual(['r:{"id":1}', 'r:{"id":2}']);
      expect(streamed.map(describe)).toEqual([
        'c:{"id":3}',
        'u:{"id":2}',
        'd:{"id":1}',
        'tombstone:{"id":1}',
      ]);
      const insert = streamed[0];
      expect(insert?.topic).toBe(`${n.prefix}.public.${n.table}`);
      expect(insert?.keySchema?.name).toBe(`${n.prefix}.public.${n.table}.Key`);
      expect(insert?.valueSchema?.name).toBe(`${n.prefix}.public.${n.table}.Envelope`);
      const value = plain(insert?.value) as Record<string, unknown>;
      expect(value).toMatchObject({
        before: null,
        after: { id: 3, name: 'c', qty: 3 },
        op: 'c',
        source: {
          connector: 'postgresql',
          name: n.prefix,
          db: 'postgres',
          schema: 'public',
          table: n.table,
        },
      });
      expect((plain(streamed[2]?.value) as { before: unknown }).before).toEqual({
        id: 1,
        name: '',
        qty: null,
      });
      expect((plain(snapshot[1]?.value) as { source: { snapshot: string } }).source.snapshot).toBe(
        'last',
      );
    } finally {
      await task.stop();
      await dropCdcObjects(db, { slot: n.slot, publication: n.publication, tables: [n.table] });
    }
  });
});
