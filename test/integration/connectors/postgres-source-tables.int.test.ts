/**
 * Which tables the PostgreSQL source reads, against the real server: the table filters,
 * table.types, schema.pattern, the split over tasks and the watch for new tables. Each test
 * owns a schema of its own, named in schema.pattern.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectError, type SourceRecord } from '../../../shared/connect/index.js';
import { PostgresSourceConnector } from '../../../shared/plugins/connectors/postgres-source/postgres-source-connector.js';
import {
  connectDb,
  drain,
  field,
  MemoryOffsetStore,
  RecordingConnectorContext,
  sourceConfig,
  sqlName,
  taskConfigsOf,
  testDeps,
} from './postgres-source-harness.js';

let db: pg.Client;

beforeAll(async () => {
  db = await connectDb();
});

afterAll(async () => {
  await db.end();
});

/** A fresh schema holding `tables`, each with one row (id 1) and a serial id. */
async function schemaWith(tables: readonly string[]): Promise<string> {
  const schema = sqlName('s');
  await db.query(`CREATE SCHEMA ${schema}`);
  for (const table of tables) {
    await db.query(`CREATE TABLE ${schema}.${table} (id serial PRIMARY KEY, v text)`);
    await db.query(`INSERT INTO ${schema}.${table} (v) VALUES ('${table}')`);
  }
  return schema;
}

/** The `tables` of each task config. */
async function assigned(props: Record<string, string>, maxTasks = 1): Promise<string[]> {
  return (await taskConfigsOf(sourceConfig({ mode: 'bulk', ...props }), maxTasks)).map(
    (c) => c.tables ?? '',
  );
}

describe('postgres-source: table selection', () => {
  it('selects tables by whitelist (any name form), blacklist, and include/exclude regular expressions', async () => {
    const schema = await schemaWith(['a1', 'a2', 'b1']);
    const scope = { 'schema.pattern': schema };
    const all = await assigned(scope);
    const white = await assigned({
      ...scope,
      'table.whitelist': `a1,${schema}.a2,"${schema}"."b1",zz`,
    });
    const whiteOne = await assigned({ ...scope, 'table.whitelist': 'b1' });
    const black = await assigned({ ...scope, 'table.blacklist': 'a2' });
    const regex = await assigned({
      ...scope,
      'table.include.list': `${schema}\\.a.*,${schema}\\.b1`,
      'table.exclude.list': '.*\\.a2',
    });
    const q = (t: string) => `"${schema}"."${t}"`;
    expect(all).toEqual([`${q('a1')},${q('a2')},${q('b1')}`]);
    expect(white).toEqual([`${q('a1')},${q('a2')},${q('b1')}`]);
    expect(whiteOne).toEqual([q('b1')]);
    expect(black).toEqual([`${q('a1')},${q('b1')}`]);
    expect(regex).toEqual([`${q('a1')},${q('b1')}`]);
  });

  it('lists views only when table.types names VIEW, and reads them', async () => {
    const schema = await schemaWith(['base']);
    await db.query(`CREATE VIEW ${schema}.recent AS SELECT id, upper(v) AS v FROM ${schema}.base`);
    const scope = { 'schema.pattern': schema };
    const tablesOnly = await assigned(scope);
    const viewsOnly = await assigned({ ...scope, 'table.types': 'VIEW' });
    const both = await assigned({ ...scope, 'table.types': 'TABLE,VIEW' });
    const [config] = await taskConfigsOf(
      sourceConfig({
        ...scope,
        'table.types': 'view',
        mode: 'incrementing',
        'incrementing.column.name': 'id',
        'validate.non.null': 'false',
      }),
    );
    const records = await drain(config as Record<string, string>, new MemoryOffsetStore());
    expect(tablesOnly).toEqual([`"${schema}"."base"`]);
    expect(viewsOnly).toEqual([`"${schema}"."recent"`]);
    expect(both).toEqual([`"${schema}"."base","${schema}"."recent"`]);
    expect(records.map((r) => [r.topic, field(r, 'v')])).toEqual([['recent', 'BASE']]);
  });

  it('splits tables into contiguous groups over tasks.max tasks, each task reading only its own', async () => {
    const names = ['t1', 't2', 't3', 't4', 't5'];
    const schema = await schemaWith(names);
    const configs = await taskConfigsOf(
      sourceConfig({
        'schema.pattern': schema,
        mode: 'incrementing',
        'topic.prefix': `${schema}.`,
      }),
      2,
    );
    const fewer = await assigned({ 'schema.pattern': schema }, 8);
    const byTask: string[][] = [];
    for (const config of configs) {
      const records: SourceRecord[] = await drain(config, new MemoryOffsetStore());
      byTask.push(records.map((r) => r.topic));
    }
    expect(configs.map((c) => c.tables)).toEqual([
      `"${schema}"."t1","${schema}"."t2","${schema}"."t3"`,
      `"${schema}"."t4","${schema}"."t5"`,
    ]);
    expect(byTask).toEqual([
      [`${schema}.t1`, `${schema}.t2`, `${schema}.t3`],
      [`${schema}.t4`, `${schema}.t5`],
    ]);
    expect(fewer).toHaveLength(5);
  });

  it('gives one idle task when no table matches, and refuses two tables of the same name (one topic)', async () => {
    const first = await schemaWith(['dup']);
    const second = await schemaWith(['dup']);
    const none = await assigned({ 'schema.pattern': first, 'table.whitelist': 'nothing' }, 4);
    const [idle] = await taskConfigsOf(
      sourceConfig({ 'schema.pattern': first, 'table.whitelist': 'nothing', mode: 'bulk' }),
    );
    const records = await drain(idle as Record<string, string>, new MemoryOffsetStore());
    expect(none).toEqual(['']);
    expect(records).toEqual([]);
    const clash = assigned({ 'table.whitelist': `${first}.dup,${second}.dup` });
    await expect(clash).rejects.toBeInstanceOf(ConnectError);
    await expect(clash).rejects.toThrow(`${first}.dup and ${second}.dup`);
  });

  it('asks for new task configs when a matching table appears, every table.poll.interval.ms', async () => {
    const schema = await schemaWith(['first']);
    const connector = new PostgresSourceConnector(testDeps());
    const context = new RecordingConnectorContext();
    await connector.start(
      sourceConfig({ 'schema.pattern': schema, mode: 'bulk', 'table.poll.interval.ms': '100' }),
      context,
    );
    await connector.taskConfigs(1);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const before = context.reconfigurations;
    await db.query(`CREATE TABLE ${schema}.second (id int)`);
    const deadline = Date.now() + 10_000;
    while (context.reconfigurations === before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await connector.stop();
    expect(before).toBe(0);
    expect(context.reconfigurations).toBeGreaterThan(0);
  });
});
