/**
 * The CDC source's offsets and its slot against the real server: crashes re-read and the
 * committed position filters, the slot is never confirmed past the committed offset, heartbeats
 * move it while tables are idle, the lag gauge, DELETE offsets, and several tasks.
 */
import type pg from 'pg';
import { afterAll, beforeAll, expect, it, describe as suite } from 'vitest';
import type { SourceRecord } from '../../../shared/connect/records.js';
import { postgresCdcTaskConfigs } from '../../../shared/plugins/connectors/postgres-cdc/cdc-config.js';
import { parseCdcOffset } from '../../../shared/plugins/connectors/postgres-cdc/cdc-offsets.js';
import { parseLsn } from '../../../shared/plugins/connectors/postgres-cdc/lsn.js';
import {
  adminClient,
  CdcHarness,
  cdcConfig,
  cdcNames,
  connector,
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

async function confirmedFlush(slot: string): Promise<bigint | null> {
  const { rows } = await db.query(
    'SELECT confirmed_flush_lsn::text AS lsn FROM pg_replication_slots WHERE slot_name = $1',
    [slot],
  );
  return rows[0] === undefined ? null : parseLsn(rows[0].lsn);
}

function lsnCommitOf(record: SourceRecord | undefined): bigint {
  const position = parseCdcOffset(record?.sourceOffset ?? null);
  if (position?.kind !== 'stream') throw new Error('not a stream offset');
  return position.confirmable;
}

const ids = (records: SourceRecord[]) => records.map((r) => (plain(r.key) as { id: number }).id);

suite('postgres-cdc offsets and slot (real server)', { timeout: 60_000 }, () => {
  it('resumes a transaction split across commits exactly after a crash, never confirming the slot past the offset', async () => {
    const n = cdcNames();
    await db.query(`CREATE TABLE ${n.table} (id int PRIMARY KEY)`);
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
      await harness.pollUntil(first, () => true, 2_000); // the empty snapshot
      await db.query(`INSERT INTO ${n.table} VALUES (1)`);
      const before = await harness.pollUntil(first, (r) => r.length >= 1);
      await harness.commit(first, before);
      const afterFirstTx = await confirmedFlush(n.slot);
      await db.query(`INSERT INTO ${n.table} SELECT generate_series(10, 19)`);
      const polled = await harness.pollUntil(first, (r) => r.length >= 10);
      // The runtime committed the first 4 events of the transaction, then the invocation died.
      await harness.commit(first, polled.slice(0, 4));
      const midTransaction = await confirmedFlush(n.slot);
      await first.stop();

      const second = await harness.open(props);
      const resumed = await harness.pollUntil(second, (r) => r.length >= 6);
      await db.query(`INSERT INTO ${n.table} VALUES (20)`);
      const next = await harness.pollUntil(second, (r) => r.length >= 1);
      await harness.commit(second, [...resumed, ...next]);
      const atEnd = await confirmedFlush(n.slot);
      await second.stop();

      expect(ids(before)).toEqual([1]);
      expect(ids(polled)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
      expect(ids(resumed)).toEqual([14, 15, 16, 17, 18, 19]);
      expect(ids(next)).toEqual([20]);
      expect(afterFirstTx).toBe(lsnCommitOf(before[0]));
      // Mid-transaction the slot stays after the last whole transaction.
      expect(midTransaction).toBe(afterFirstTx);
      expect(lsnCommitOf(polled[3])).toBe(afterFirstTx);
      expect(atEnd).toBe(lsnCommitOf(next[0]));
    } finally {
      await first.stop();
      await dropCdcObjects(db, { slot: n.slot, publication: n.publication, tables: [n.table] });
    }
  });

  it('does not move the slot for records polled but never committed', async () => {
    const n = cdcNames();
    await db.query(`CREATE TABLE ${n.table} (id int PRIMARY KEY)`);
    const props = cdcConfig({
      'topic.prefix': n.prefix,
      'slot.name': n.slot,
      'publication.name': n.publication,
      'table.include.list': `public.${n.table}`,
      'snapshot.mode': 'no_data',
    });
    const harness = new CdcHarness();
    const task = await harness.open(props);
    try {
      const created = await confirmedFlush(n.slot);
      await db.query(`INSERT INTO ${n.table} VALUES (1), (2)`);
      const polled = await harness.pollUntil(task, (r) => r.length >= 2);
      await task.commit(); // nothing was committed: the runtime's offset store is empty
      const afterCommit = await confirmedFlush(n.slot);
      await task.stop();
      const again = await harness.open(props);
      const replayed = await harness.pollUntil(again, (r) => r.length >= 2);
      await again.stop();

      expect(ids(polled)).toEqual([1, 2]);
      expect(afterCommit).toBe(created);
      expect(ids(replayed)).toEqual([1, 2]);
    } finally {
      await task.stop();
      await dropCdcObjects(db, { slot: n.slot, publication: n.publication, tables: [n.table] });
    }
  });

  it('emits Debezium heartbeats while its tables are idle, moving the offset and the slot with the server WAL', async () => {
    const n = cdcNames();
    const other = `${n.table}_other`;
    const beats = `${n.table}_beats`;
    await db.query(`CREATE TABLE ${n.table} (id int PRIMARY KEY); CREATE TABLE ${other} (id serial PRIMARY KEY, v text);
      CREATE TABLE ${beats} (at timestamptz)`);
    const props = cdcConfig({
      'topic.prefix': n.prefix,
      'slot.name': n.slot,
      'publication.name': n.publication,
      'table.include.list': `public.${n.table}`,
      'snapshot.mode': 'no_data',
      'heartbeat.interval.ms': '200',
      'heartbeat.action.query': `INSERT INTO ${beats} VALUES (now())`,
      'status.update.interval.ms': '200',
    });
    const harness = new CdcHarness();
    const task = await harness.open(props);
    try {
      const start = (await confirmedFlush(n.slot)) ?? 0n;
      await db.query(
        `INSERT INTO ${other} (v) SELECT repeat('x', 100) FROM generate_series(1, 200)`,
      );
      const { rows } = await db.query('SELECT pg_current_wal_lsn()::text AS lsn');
      const written = parseLsn(rows[0].lsn);
      const records = await harness.pollUntil(
        task,
        (r) => r.length > 0 && lsnCommitOf(r[r.length - 1]) >= written,
      );
      await harness.commit(task, records);
      const confirmed = await confirmedFlush(n.slot);
      const actions = await db.query(`SELECT count(*)::int AS n FROM ${beats}`);
      const beat = records[records.length - 1];

      expect(records.every((r) => describe(r) === 'heartbeat')).toBe(true);
      expect(beat?.topic).toBe(`__debezium-heartbeat.${n.prefix}`);
      expect(beat?.keySchema?.name).toBe('io.debezium.connector.common.ServerNameKey');
      expect(plain(beat?.key)).toEqual({ serverName: n.prefix });
      expect(beat?.valueSchema?.name).toBe('io.debezium.connector.common.Heartbeat');
      expect(confirmed).toBe(lsnCommitOf(beat));
      expect(confirmed !== null && confirmed > start).toBe(true);
      expect(actions.rows[0].n).toBeGreaterThan(0);
      expect(harness.gauges.ReplicationSlotLagBytes).toBeGreaterThanOrEqual(0);
    } finally {
      await task.stop();
      await dropCdcObjects(db, {
        slot: n.slot,
        publication: n.publication,
        tables: [n.table, other, beats],
      });
    }
  });

  it('reports the WAL its slot holds as the ReplicationSlotLagBytes gauge', async () => {
    const n = cdcNames();
    await db.query(`CREATE TABLE ${n.table} (id int PRIMARY KEY, v text)`);
    const props = cdcConfig({
      'topic.prefix': n.prefix,
      'slot.name': n.slot,
      'publication.name': n.publication,
      'table.include.list': `public.${n.table}`,
      'snapshot.mode': 'no_data',
    });
    const harness = new CdcHarness();
    const first = await harness.open(props);
    await first.stop();
    let second: Awaited<ReturnType<CdcHarness['open']>> | undefined;
    try {
      await db.query(
        `INSERT INTO ${n.table} SELECT i, repeat('x', 200) FROM generate_series(1, 500) i`,
      );
      second = await harness.open(props);
      const atStart = harness.gauges.ReplicationSlotLagBytes ?? -1;
      const records = await harness.pollUntil(second, (r) => r.length >= 500);
      await harness.commit(second, records);
      const afterCommit = harness.gauges.ReplicationSlotLagBytes ?? -1;
      await second.stop();

      // Every value intact (queued messages are copies, not views of the driver's reused buffer).
      expect(records.map((r) => (plain(r.value) as { after: { v: string } }).after.v)).toEqual(
        Array.from({ length: 500 }, () => 'x'.repeat(200)),
      );
      expect(atStart).toBeGreaterThan(100_000);
      expect(afterCommit).toBeLessThan(atStart);
    } finally {
      await second?.stop();
      await dropCdcObjects(db, { slot: n.slot, publication: n.publication, tables: [n.table] });
    }
  });

  it('drops its slot and publication when the offsets are reset, and snapshots anew', async () => {
    const n = cdcNames();
    await db.query(
      `CREATE TABLE ${n.table} (id int PRIMARY KEY); INSERT INTO ${n.table} VALUES (1)`,
    );
    const props = cdcConfig({
      'topic.prefix': n.prefix,
      'slot.name': n.slot,
      'publication.name': n.publication,
      'table.include.list': `public.${n.table}`,
    });
    const harness = new CdcHarness();
    const task = await harness.open(props);
    try {
      const snapshot = await harness.pollUntil(task, (r) => r.length >= 1);
      await harness.commit(task, snapshot);
      await db.query(`INSERT INTO ${n.table} VALUES (2)`);
      await harness.commit(task, await harness.pollUntil(task, (r) => r.length >= 1));
      await task.stop();
      const partition = { server: n.prefix };
      const committed = harness.offsetOf(partition) ?? {};
      const behind = { ...committed, lsn: 1, lsn_commit: 1, event: 0 };
      const refused = await connector
        .alterOffsets(props, [{ partition, offset: behind }])
        .catch((e: Error) => e.message);
      const accepted = await connector.alterOffsets(props, [{ partition, offset: committed }]);

      const reset = await connector.alterOffsets(props, [{ partition, offset: null }]);
      const slotsLeft = await db.query('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1', [
        n.slot,
      ]);
      const publicationsLeft = await db.query('SELECT 1 FROM pg_publication WHERE pubname = $1', [
        n.publication,
      ]);
      harness.committed.clear();
      const fresh = await harness.open(props);
      const again = await harness.pollUntil(fresh, (r) => r.length >= 2);
      await fresh.stop();

      expect(refused).toMatch(/cannot serve/);
      expect(accepted).toBe(true);
      expect(reset).toBe(true);
      expect(slotsLeft.rows).toEqual([]);
      expect(publicationsLeft.rows).toEqual([]);
      expect(again.map(describe)).toEqual(['r:{"id":1}', 'r:{"id":2}']);
    } finally {
      await task.stop();
      await dropCdcObjects(db, { slot: n.slot, publication: n.publication, tables: [n.table] });
    }
  });

  it('splits tables over tasks, each streaming its own slot and publication', async () => {
    const n = cdcNames();
    const tables = Array.from({ length: 6 }, (_, i) => `${n.table}${i}`);
    for (const table of tables) await db.query(`CREATE TABLE ${table} (id int PRIMARY KEY)`);
    const props = cdcConfig({
      'topic.prefix': n.prefix,
      'slot.name': n.slot,
      'publication.name': n.publication,
      'table.include.list': `public\\.${n.table}\\d`,
      'snapshot.mode': 'no_data',
    });
    const configs = postgresCdcTaskConfigs(props, 2);
    const harness = new CdcHarness();
    const tasks = [await harness.open(configs[0] ?? {}), await harness.open(configs[1] ?? {})];
    try {
      for (const [i, table] of tables.entries())
        await db.query(`INSERT INTO ${table} VALUES (${i})`);
      const seen: [SourceRecord[], SourceRecord[]] = [[], []];
      const deadline = Date.now() + 20_000;
      while (seen[0].length + seen[1].length < 6 && Date.now() < deadline) {
        for (const [i, task] of tasks.entries()) seen[i]?.push(...((await task.poll()) ?? []));
      }
      const slots = await db.query(
        'SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE $1 ORDER BY 1',
        [`${n.slot}_%`],
      );
      const topics = seen.map((records) => records.map((r) => r.topic.split('.').pop()));

      expect(slots.rows.map((r) => r.slot_name)).toEqual([`${n.slot}_0`, `${n.slot}_1`]);
      expect([...(topics[0] ?? []), ...(topics[1] ?? [])].sort()).toEqual(tables);
      expect(topics[0]?.length).toBeGreaterThan(0);
      expect(topics[1]?.length).toBeGreaterThan(0);
      expect(
        seen[0]?.every((r) => (r.sourcePartition as { slot: string }).slot === `${n.slot}_0`),
      ).toBe(true);
    } finally {
      for (const task of tasks) await task.stop();
      await dropCdcObjects(db, {
        slots: [`${n.slot}_0`, `${n.slot}_1`],
        publications: [`${n.publication}_0`, `${n.publication}_1`],
        tables,
      });
    }
  });

  it('fails a poll retriably when the server drops the replication connection, and the next start resumes', async () => {
    const n = cdcNames();
    await db.query(`CREATE TABLE ${n.table} (id int PRIMARY KEY)`);
    const props = cdcConfig({
      'topic.prefix': n.prefix,
      'slot.name': n.slot,
      'publication.name': n.publication,
      'table.include.list': `public.${n.table}`,
      'snapshot.mode': 'no_data',
    });
    const harness = new CdcHarness();
    const task = await harness.open(props);
    try {
      await db.query(`INSERT INTO ${n.table} VALUES (1)`);
      await harness.commit(task, await harness.pollUntil(task, (r) => r.length >= 1));
      await db.query(
        'SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1',
        [n.slot],
      );
      await db.query(`INSERT INTO ${n.table} VALUES (2)`);
      const failure = await harness
        .pollUntil(task, () => false, 10_000)
        .then(
          () => null,
          (e: Error & { retriable?: boolean }) => e,
        );
      await task.stop();
      const next = await harness.open(props);
      const resumed = await harness.pollUntil(next, (r) => r.length >= 1);
      await next.stop();

      expect(failure?.name).toBe('RetriableError');
      expect(failure?.retriable).toBe(true);
      expect(ids(resumed)).toEqual([2]);
    } finally {
      await task.stop();
      await dropCdcObjects(db, { slot: n.slot, publication: n.publication, tables: [n.table] });
    }
  });
});
