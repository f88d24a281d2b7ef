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

  /** Starts a task on `tables` (created by `ddl`), runs `sql` after the snapshot, returns what streamed. */
  async function streamAfter(
    ddl: string,
    tables: string[],
    sql: string[],
    count: number,
    extra: Record<string, string> = {},
  ) {
    const n = cdcNames();
    const names = tables.map((t) => `${n.prefix}_${t}`);
    await db.query(names.reduce((text, name, i) => text.replaceAll(`{${tables[i]}}`, name), ddl));
    const props = cdcConfig({
      'topic.prefix': n.prefix,
      'slot.name': n.slot,
      'publication.name': n.publication,
      'table.include.list': names.map((t) => `public\\.${t}`).join(','),
      ...extra,
    });
    const harness = new CdcHarness();
    const task = await harness.open(props);
    try {
      const snapshot = await harness.pollUntil(task, () => true, 5_000);
      await harness.commit(task, snapshot);
      for (const statement of sql) {
        await db.query(
          names.reduce((text, name, i) => text.replaceAll(`{${tables[i]}}`, name), statement),
        );
      }
      return {
        records: await harness.pollUntil(task, (r) => r.length >= count),
        names,
        prefix: n.prefix,
      };
    } finally {
      await task.stop();
      await dropCdcObjects(db, { slot: n.slot, publication: n.publication, tables: names });
    }
  }

  it('emits truncates (op t) when skipped.operations lets them through, and none by default', async () => {
    const ddl = 'CREATE TABLE {a} (id int PRIMARY KEY); CREATE TABLE {b} (id int PRIMARY KEY)';
    const sql = ['INSERT INTO {a} VALUES (1)', 'TRUNCATE {a}, {b}', 'INSERT INTO {b} VALUES (9)'];
    const emitted = await streamAfter(ddl, ['a', 'b'], sql, 4, { 'skipped.operations': 'none' });
    const defaults = await streamAfter(ddl, ['a', 'b'], sql, 2);

    expect(emitted.records.map((r) => `${r.topic.split('.').pop()}:${describe(r)}`)).toEqual([
      `${emitted.names[0]}:c:{"id":1}`,
      `${emitted.names[0]}:t:null`,
      `${emitted.names[1]}:t:null`,
      `${emitted.names[1]}:c:{"id":9}`,
    ]);
    expect(defaults.records.map(describe)).toEqual(['c:{"id":1}', 'c:{"id":9}']);
  });

  it('keys composite primary keys in key order, and a table without a key with a null key', async () => {
    const { records, names, prefix } = await streamAfter(
      'CREATE TABLE {lines} (qty int, line int, order_id int, PRIMARY KEY (order_id, line)); CREATE TABLE {log} (msg text)',
      ['lines', 'log'],
      ['INSERT INTO {lines} VALUES (5, 2, 7)', "INSERT INTO {log} VALUES ('hello')"],
      2,
    );

    expect(records[0]?.keySchema?.fields.map((f) => f.name)).toEqual(['order_id', 'line']);
    expect(plain(records[0]?.key)).toEqual({ order_id: 7, line: 2 });
    expect(records[1]?.topic).toBe(`${prefix}.public.${names[1]}`);
    expect(records[1]?.key).toBeNull();
    expect(records[1]?.keySchema).toBeNull();
    expect((plain(records[1]?.value) as { after: unknown }).after).toEqual({ msg: 'hello' });
  });

  it('gives before images under REPLICA IDENTITY FULL, and splits a key change into delete, tombstone and create', async () => {
    const { records } = await streamAfter(
      'CREATE TABLE {t} (id int PRIMARY KEY, v text); ALTER TABLE {t} REPLICA IDENTITY FULL; CREATE TABLE {d} (id int PRIMARY KEY, v text)',
      ['t', 'd'],
      [
        "INSERT INTO {t} VALUES (1, 'x')",
        "UPDATE {t} SET v = 'y' WHERE id = 1",
        'DELETE FROM {t}',
        "INSERT INTO {d} VALUES (1, 'x')",
        'UPDATE {d} SET id = 2',
        "UPDATE {d} SET v = 'z'",
      ],
      9,
    );

    const values = records.map((r) => plain(r.value) as { before: unknown; after: unknown } | null);
    expect(records.map(describe)).toEqual([
      'c:{"id":1}',
      'u:{"id":1}',
      'd:{"id":1}',
      'tombstone:{"id":1}',
      'c:{"id":1}',
      'd:{"id":1}',
      'tombstone:{"id":1}',
      'c:{"id":2}',
      'u:{"id":2}',
    ]);
    expect(values[1]).toMatchObject({ before: { id: 1, v: 'x' }, after: { id: 1, v: 'y' } });
    expect(values[2]).toMatchObject({ before: { id: 1, v: 'y' }, after: null });
    expect(plain(records[5]?.headers.lastWithName('__debezium.newkey')?.value)).toEqual({ id: 2 });
    expect(plain(records[7]?.headers.lastWithName('__debezium.oldkey')?.value)).toEqual({ id: 1 });
  });

  it('maps PostgreSQL types as Debezium does, the same from the snapshot and from the stream', async () => {
    const n = cdcNames();
    const mood = `${n.prefix}_mood`;
    await db.query(`CREATE TYPE ${mood} AS ENUM ('sad', 'happy')`);
    await db.query(`CREATE TABLE ${n.table} (id int PRIMARY KEY, i2 smallint, i8 bigint, f4 real, f8 float8,
      price numeric(10,2), free numeric, flag bool, name varchar(5), code char(3), raw bytea, day date,
      t3 time(3), t6 time, ts3 timestamp(3), ts6 timestamp, tz timestamptz, ttz timetz, span interval,
      uid uuid, doc jsonb, nums int[], words text[], feel ${mood}, cash money)`);
    const row = `2, 7, 9007199254740993, 1.5, 2.25, 12.50, 3.14159, true, 'abc', 'ab', '\\x0102', '2024-02-29',
      '12:34:56.789', '12:34:56.789123', '2024-02-29 12:34:56.789', '2024-02-29 12:34:56.789123',
      '2024-02-29 12:34:56.789123+02', '12:00:00+02', '1 day 02:00:00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      '{"a": 1}', '{1,NULL,3}', '{a,"b c"}', 'happy', 12.34`;
    await db.query(`INSERT INTO ${n.table} VALUES (1, ${row.slice(row.indexOf(',') + 1)})`);
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
      await db.query(`INSERT INTO ${n.table} VALUES (${row})`);
      const streamed = await harness.pollUntil(task, (r) => r.length >= 1);
      const after = (record: (typeof snapshot)[number] | undefined) => {
        const { id: _id, ...rest } = (plain(record?.value) as { after: Record<string, unknown> })
          .after;
        return rest;
      };
      const schema = streamed[0]?.valueSchema?.field('after')?.schema;
      const nameOf = (field: string) => schema?.field(field)?.schema.name;

      expect(after(streamed[0])).toEqual(after(snapshot[0]));
      expect(after(streamed[0])).toMatchObject({
        i2: 7,
        i8: '9007199254740993',
        f4: 1.5,
        f8: 2.25,
        flag: true,
        name: 'abc',
        code: 'ab ',
        raw: Uint8Array.from([1, 2]),
        day: Date.UTC(2024, 1, 29) / 86_400_000,
        t3: 45_296_789,
        t6: 45_296_789_123,
        ts3: Date.UTC(2024, 1, 29, 12, 34, 56, 789),
        ts6: Date.UTC(2024, 1, 29, 12, 34, 56, 789) * 1000 + 123,
        tz: '2024-02-29T10:34:56.789123Z',
        ttz: '10:00:00Z',
        span: 93_600_000_000,
        uid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
        doc: '{"a": 1}',
        nums: [1, null, 3],
        words: ['a', 'b c'],
        feel: 'happy',
      });
      const values = after(streamed[0]);
      expect(String(values.price)).toBe('12.50');
      expect(String(values.cash)).toBe('12.34');
      expect(plain(values.free)).toEqual({ scale: 5, value: Uint8Array.from([0x04, 0xcb, 0x2f]) });
      expect({
        price: nameOf('price'),
        free: nameOf('free'),
        day: nameOf('day'),
        t3: nameOf('t3'),
        t6: nameOf('t6'),
        ts3: nameOf('ts3'),
        ts6: nameOf('ts6'),
        tz: nameOf('tz'),
        ttz: nameOf('ttz'),
        span: nameOf('span'),
        uid: nameOf('uid'),
        doc: nameOf('doc'),
        feel: nameOf('feel'),
      }).toEqual({
        price: 'org.apache.kafka.connect.data.Decimal',
        free: 'io.debezium.data.VariableScaleDecimal',
        day: 'io.debezium.time.Date',
        t3: 'io.debezium.time.Time',
        t6: 'io.debezium.time.MicroTime',
        ts3: 'io.debezium.time.Timestamp',
        ts6: 'io.debezium.time.MicroTimestamp',
        tz: 'io.debezium.time.ZonedTimestamp',
        ttz: 'io.debezium.time.ZonedTime',
        span: 'io.debezium.time.MicroDuration',
        uid: 'io.debezium.data.Uuid',
        doc: 'io.debezium.data.Json',
        feel: 'io.debezium.data.Enum',
      });
      expect(schema?.field('price')?.schema.parameters).toEqual({
        scale: '2',
        'connect.decimal.precision': '10',
      });
      expect(schema?.field('feel')?.schema.parameters).toEqual({ allowed: 'sad,happy' });
    } finally {
      await task.stop();
      await dropCdcObjects(db, { slot: n.slot, publication: n.publication, tables: [n.table] });
      await db.query(`DROP TYPE IF EXISTS ${mood}`);
    }
  });

  it('reads decimals as strings and times as Connect types when configured so', async () => {
    const { records } = await streamAfter(
      'CREATE TABLE {t} (id int PRIMARY KEY, price numeric(6,3), day date, at timestamp)',
      ['t'],
      ["INSERT INTO {t} VALUES (1, 1.5, '2024-01-02', '2024-01-02 03:04:05.678901')"],
      1,
      { 'decimal.handling.mode': 'string', 'time.precision.mode': 'connect' },
    );
    const after = (plain(records[0]?.value) as { after: Record<string, unknown> }).after;
    const schema = records[0]?.valueSchema?.field('after')?.schema;

    expect(after).toEqual({
      id: 1,
      price: '1.500',
      day: new Date(Date.UTC(2024, 0, 2)),
      at: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)),
    });
    expect(schema?.field('at')?.schema.name).toBe('org.apache.kafka.connect.data.Timestamp');
    expect(schema?.field('day')?.schema.name).toBe('org.apache.kafka.connect.data.Date');
  });

  it('creates a FOR ALL TABLES publication by default and keeps only the included tables', async () => {
    const n = cdcNames();
    const other = `${n.table}_other`;
    await db.query(
      `CREATE TABLE ${n.table} (id int PRIMARY KEY); CREATE TABLE ${other} (id int PRIMARY KEY)`,
    );
    const props = cdcConfig({
      'topic.prefix': n.prefix,
      'slot.name': n.slot,
      'publication.name': n.publication,
      'publication.autocreate.mode': 'all_tables',
      'table.include.list': `public.${n.table}`,
      'snapshot.mode': 'no_data',
    });
    const harness = new CdcHarness();
    const task = await harness.open(props);
    try {
      await db.query(`INSERT INTO ${other} VALUES (1); INSERT INTO ${n.table} VALUES (2)`);
      const records = await harness.pollUntil(task, (r) => r.length >= 1);
      await db.query(`INSERT INTO ${other} VALUES (3); INSERT INTO ${n.table} VALUES (4)`);
      records.push(...(await harness.pollUntil(task, (r) => r.length >= 1)));
      const publication = await db.query(
        'SELECT puballtables FROM pg_publication WHERE pubname = $1',
        [n.publication],
      );

      expect(publication.rows).toEqual([{ puballtables: true }]);
      expect(records.map((r) => `${r.topic}:${describe(r)}`)).toEqual([
        `${n.prefix}.public.${n.table}:c:{"id":2}`,
        `${n.prefix}.public.${n.table}:c:{"id":4}`,
      ]);
    } finally {
      await task.stop();
      await dropCdcObjects(db, {
        slot: n.slot,
        publication: n.publication,
        tables: [n.table, other],
      });
    }
  });
});
