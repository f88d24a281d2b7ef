/**
 * The CDC source's snapshot against the real server: the hand-over to streaming under concurrent
 * writes, a snapshot resumed in a later invocation, the snapshot modes, and the errors a server
 * that cannot stream changes gets.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, it, describe as suite } from 'vitest';
import type { SourceRecord } from '../../../shared/connect/records.js';
import type { Struct } from '../../../shared/connect/struct.js';
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

interface Row {
  id: number;
  version: number;
}

/** Applies change events in order; reports each version sequence that skips or repeats. */
function replay(records: readonly SourceRecord[]) {
  const state = new Map<number, number>();
  const problems: string[] = [];
  for (const record of records) {
    if (record.value === null) continue;
    const value = record.value as Struct;
    const op = value.get('op');
    const after = plain(value.get('after')) as Row | null;
    const before = plain(value.get('before')) as Row | null;
    const id = (after ?? before)?.id as number;
    const known = state.get(id);
    if (op === 'r' || op === 'c') {
      if (known !== undefined) problems.push(`${op} of id ${id} already at version ${known}`);
      state.set(id, after?.version as number);
    } else if (op === 'u') {
      if (known === undefined || after?.version !== known + 1) {
        problems.push(`update of id ${id} to ${after?.version} after ${known}`);
      }
      state.set(id, after?.version as number);
    } else if (op === 'd') {
      if (known === undefined) problems.push(`delete of unknown id ${id}`);
      state.delete(id);
    }
  }
  return { state, problems };
}

suite('postgres-cdc snapshot (real server)', { timeout: 120_000 }, () => {
  it('hands the snapshot over to the stream under concurrent writes, losing and repeating nothing', async () => {
    const n = cdcNames();
    await db.query(`CREATE TABLE ${n.table} (id int PRIMARY KEY, version int NOT NULL)`);
    await db.query(`INSERT INTO ${n.table} SELECT i, 1 FROM generate_series(1, 3000) i`);
    const props = cdcConfig({
      'topic.prefix': n.prefix,
      'slot.name': n.slot,
      'publication.name': n.publication,
      'table.include.list': `public.${n.table}`,
      'max.batch.size': '100',
    });
    const writer = new pg.Client({ connectionString: inject('postgresUrl') });
    await writer.connect();
    const harness = new CdcHarness();
    const task = await harness.open(props);
    const delivered: SourceRecord[] = [];
    try {
      let writing = true;
      let nextId = 3001;
      let written = 0;
      let writtenDuringSnapshot = -1;
      const writes = (async () => {
        for (let i = 0; writing && i < 400; i++) {
          const pick = 1 + ((i * 7919) % (nextId - 1));
          if (i % 5 === 0) await writer.query(`INSERT INTO ${n.table} VALUES ($1, 1)`, [nextId++]);
          else if (i % 11 === 0) await writer.query(`DELETE FROM ${n.table} WHERE id = $1`, [pick]);
          else
            await writer.query(`UPDATE ${n.table} SET version = version + 1 WHERE id = $1`, [pick]);
          written += 1;
        }
      })();
      const sawStream = () => delivered.some((r) => (r.value as Struct | null)?.get('op') !== 'r');
      while (
        !sawStream() ||
        delivered.filter((r) => (r.value as Struct | null)?.get('op') === 'r').length < 100
      ) {
        const batch = (await task.poll()) ?? [];
        const last = batch.some(
          (r) =>
            (plain((r.value as Struct | null)?.get('source')) as { snapshot?: string } | null)
              ?.snapshot === 'last',
        );
        if (last) writtenDuringSnapshot = written;
        await harness.commit(task, batch);
        delivered.push(...batch);
      }
      writing = false;
      await writes;
      await writer.query(`INSERT INTO ${n.table} VALUES (-1, 1)`);
      const tail = await harness.pollUntil(
        task,
        (r) => r.some((x) => describe(x) === 'c:{"id":-1}'),
        30_000,
      );
      await harness.commit(task, tail);
      delivered.push(...tail);
      const final = await db.query(`SELECT id, version FROM ${n.table}`);
      const { state, problems } = replay(delivered);
      const snapshotted = delivered.filter(
        (r) => (r.value as Struct | null)?.get('op') === 'r',
      ).length;

      expect(problems).toEqual([]);
      expect(new Map(final.rows.map((r) => [r.id as number, r.version as number]))).toEqual(state);
      expect(snapshotted).toBeGreaterThan(2_900);
      // The writer was busy while the snapshot was read (its changes came through the stream).
      expect(writtenDuringSnapshot).toBeGreaterThan(10);
      expect(delivered.some((r) => describe(r).startsWith('u:'))).toBe(true);
    } finally {
      await writer.end();
      await task.stop();
      await dropCdcObjects(db, { slot: n.slot, publication: n.publication, tables: [n.table] });
    }
  });

  it('resumes a snapshot cut by the end of an invocation on a fresh snapshot, then streams what changed', async () => {
    const n = cdcNames();
    await db.query(`CREATE TABLE ${n.table} (id int PRIMARY KEY, version int NOT NULL)`);
    await db.query(`INSERT INTO ${n.table} SELECT i, 1 FROM generate_series(1, 10) i`);
    const props = cdcConfig({
      'topic.prefix': n.prefix,
      'slot.name': n.slot,
      'publication.name': n.publication,
      'table.include.list': `public.${n.table}`,
      'max.batch.size': '3',
    });
    const harness = new CdcHarness();
    const first = await harness.open(props);
    try {
      const part = [...((await first.poll()) ?? []), ...((await first.poll()) ?? [])];
      await harness.commit(first, part);
      await first.stop();
      await db.query(`UPDATE ${n.table} SET version = 2 WHERE id IN (2, 8)`);
      await db.query(`INSERT INTO ${n.table} VALUES (11, 1)`);
      await db.query(`DELETE FROM ${n.table} WHERE id = 9`);
      const second = await harness.open(props);
      const rest = await harness.pollUntil(second, (r) =>
        r.some((x) => describe(x) === 'd:{"id":9}'),
      );
      await second.stop();
      const markers = part.map(
        (r) => plain((r.value as Struct).get('source')) as { snapshot: string },
      );

      expect(part.map(describe)).toEqual([
        'r:{"id":1}',
        'r:{"id":2}',
        'r:{"id":3}',
        'r:{"id":4}',
        'r:{"id":5}',
        'r:{"id":6}',
      ]);
      expect(markers.map((m) => m.snapshot)).toEqual([
        'first',
        'true',
        'true',
        'true',
        'true',
        'true',
      ]);
      expect(rest.map(describe)).toEqual([
        'r:{"id":7}',
        'r:{"id":8}',
        'r:{"id":10}',
        'r:{"id":11}',
        'u:{"id":2}',
        'u:{"id":8}',
        'c:{"id":11}',
        'd:{"id":9}',
        'tombstone:{"id":9}',
      ]);
      expect((plain(rest[1]?.value) as { after: unknown }).after).toEqual({ id: 8, version: 2 });
    } finally {
      await first.stop();
      await dropCdcObjects(db, { slot: n.slot, publication: n.publication, tables: [n.table] });
    }
  });

  it('snapshots without a slot in initial_only mode, and streams without a snapshot in no_data mode', async () => {
    const n = cdcNames();
    await db.query(
      `CREATE TABLE ${n.table} (id int PRIMARY KEY); INSERT INTO ${n.table} VALUES (1), (2)`,
    );
    const base = {
      'topic.prefix': n.prefix,
      'slot.name': n.slot,
      'publication.name': n.publication,
      'table.include.list': `public.${n.table}`,
    };
    const harness = new CdcHarness();
    const only = await harness.open(cdcConfig({ ...base, 'snapshot.mode': 'initial_only' }));
    const snapshot = await harness.pollUntil(only, (r) => r.length >= 2);
    const afterwards = await only.poll();
    await only.stop();
    const slotAfterSnapshot = await db.query(
      'SELECT 1 FROM pg_replication_slots WHERE slot_name = $1',
      [n.slot],
    );
    const streamer = await new CdcHarness().open(
      cdcConfig({ ...base, 'snapshot.mode': 'no_data' }),
    );
    try {
      await db.query(`INSERT INTO ${n.table} VALUES (3)`);
      const streamed = await new CdcHarness().pollUntil(streamer, (r) => r.length >= 1);

      expect(snapshot.map(describe)).toEqual(['r:{"id":1}', 'r:{"id":2}']);
      expect(afterwards).toBeNull();
      expect(slotAfterSnapshot.rows).toEqual([]);
      expect(streamed.map(describe)).toEqual(['c:{"id":3}']);
    } finally {
      await streamer.stop();
      await dropCdcObjects(db, { slot: n.slot, publication: n.publication, tables: [n.table] });
    }
  });

  it('refuses a user without the REPLICATION attribute with a ConnectError saying what to grant', async () => {
    const n = cdcNames();
    const role = `${n.prefix}_user`;
    await db.query(`CREATE ROLE ${role} LOGIN PASSWORD 'secret-pw'`);
    try {
      const props = cdcConfig({
        'topic.prefix': n.prefix,
        'slot.name': n.slot,
        'database.user': role,
        'database.password': 'secret-pw',
      });
      const error = await new CdcHarness().open(props).then(
        () => null,
        (e: Error) => e,
      );

      expect(error?.name).toBe('ConnectError');
      expect(error?.message).toContain(
        `PostgreSQL user ${role} may not stream changes: grant it REPLICATION`,
      );
      expect(error?.message).not.toContain('secret-pw');
    } finally {
      await db.query(`DROP ROLE ${role}`);
    }
  });
});
