import {
  type AttributeValue,
  CreateTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ErrantRecordReporter, SinkTaskContext } from '../../../shared/connect/context.js';
import { ConnectError } from '../../../shared/connect/errors.js';
import {
  BigDecimal,
  LogicalDecimal,
  LogicalTimestamp,
} from '../../../shared/connect/logical-types.js';
import { SinkRecord } from '../../../shared/connect/records.js';
import { SchemaBuilder, Schemas } from '../../../shared/connect/schema.js';
import { Struct } from '../../../shared/connect/struct.js';
import { systemDynamoDbSinkDeps } from '../../../shared/plugins/connectors/dynamodb-sink/descriptor.js';
import { DynamoDbSinkTask } from '../../../shared/plugins/connectors/dynamodb-sink/dynamodb-sink-task.js';
import { testDynamo, uniqueName } from '../../support/services.js';

const NOW = Date.UTC(2025, 0, 1);

/** A reporter that keeps what it is given. */
class Reporter implements ErrantRecordReporter {
  readonly reported: SinkRecord[] = [];
  async report(record: SinkRecord): Promise<void> {
    this.reported.push(record);
  }
}

function context(
  props: Readonly<Record<string, string>>,
  reporter: Reporter | null,
): SinkTaskContext {
  return {
    configs: () => props,
    offset: () => {},
    timeout: () => {},
    assignment: () => [],
    pause: () => {},
    resume: () => {},
    requestCommit: () => {},
    errantRecordReporter: reporter,
  };
}

function upsert(key: string, v: number, kafkaOffset: number, kafkaPartition = 0): SinkRecord {
  return new SinkRecord({ topic: 'orders', kafkaPartition, kafkaOffset, key, value: { v } });
}

function tombstone(key: string, kafkaOffset: number, kafkaPartition = 0): SinkRecord {
  return new SinkRecord({ topic: 'orders', kafkaPartition, kafkaOffset, key, value: null });
}

/**
 * 120 records over 8 keys on 2 partitions (key k<n> in partition n % 2), upserts with every
 * fifth record of a key a tombstone: a fixed sequence to write in different ways.
 */
function sequence(): SinkRecord[] {
  const next = [0, 0];
  return Array.from({ length: 120 }, (_, i) => {
    const key = (i * 5 + Math.floor(i / 7)) % 8;
    const partition = key % 2;
    const offset = next[partition] ?? 0;
    next[partition] = offset + 1;
    return i % 5 === 4
      ? tombstone(`k${key}`, offset, partition)
      : upsert(`k${key}`, i, offset, partition);
  });
}

describe('DynamoDbSinkTask against dynalite', () => {
  let dynamo: DynamoDBClient;
  const connection = () => ({
    'aws.dynamodb.endpoint': inject('dynamoEndpoint'),
    'aws.dynamodb.region': 'us-east-1',
    'aws.access.key.id': 'local',
    'aws.secret.access.key': 'local',
  });

  async function createTable(
    keys: { name: string; type: 'S' | 'N' | 'B'; kind: 'HASH' | 'RANGE' }[] = [
      { name: 'id', type: 'S', kind: 'HASH' },
    ],
  ): Promise<string> {
    const table = uniqueName('ddb-sink');
    await dynamo.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: keys.map((k) => ({ AttributeName: k.name, KeyType: k.kind })),
        AttributeDefinitions: keys.map((k) => ({ AttributeName: k.name, AttributeType: k.type })),
      }),
    );
    // PutItem fails with ResourceNotFoundException until the table is ACTIVE.
    await waitUntilTableExists(
      { client: dynamo, maxWaitTime: 30, minDelay: 1 },
      { TableName: table },
    );
    return table;
  }

  async function startTask(
    table: string,
    props: Record<string, string> = {},
    reporter: Reporter | null = new Reporter(),
  ): Promise<DynamoDbSinkTask> {
    const all = { ...connection(), 'table.name.format': table, ...props };
    // A fixed clock: tombstone markers' expiry must not depend on when the write happened.
    const task = new DynamoDbSinkTask({ ...systemDynamoDbSinkDeps(), clock: { now: () => NOW } });
    await task.start(all, context(all, reporter));
    return task;
  }

  /** One invocation: a fresh task puts `batch`; resolves false when the put failed. */
  async function invoke(
    table: string,
    batch: readonly SinkRecord[],
    props: Record<string, string> = {},
  ) {
    const task = await startTask(table, props);
    try {
      await task.put(batch);
      return true;
    } catch {
      return false;
    } finally {
      await task.stop();
    }
  }

  /** One invocation that must succeed. */
  async function written(
    table: string,
    batch: readonly SinkRecord[],
    props: Record<string, string> = {},
  ) {
    expect(await invoke(table, batch, props)).toBe(true);
  }

  async function scan(table: string): Promise<Record<string, Record<string, AttributeValue>>> {
    const out: Record<string, Record<string, AttributeValue>> = {};
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await dynamo.send(
        new ScanCommand({ TableName: table, ExclusiveStartKey: start }),
      );
      for (const item of page.Items ?? []) out[JSON.stringify(item.id)] = item;
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return out;
  }

  async function cleanPass(records: readonly SinkRecord[], props: Record<string, string> = {}) {
    const table = await createTable();
    for (const record of records) expect(await invoke(table, [record], props)).toBe(true);
    return scan(table);
  }

  beforeAll(() => {
    dynamo = testDynamo();
  });

  afterAll(() => {
    dynamo.destroy();
  });

  it('writes every Connect type as the matching DynamoDB type', async () => {
    // Prepare
    const table = await createTable();
    const inner = SchemaBuilder.struct().field('city', Schemas.STRING).build();
    const schema = SchemaBuilder.struct()
      .field('id', Schemas.STRING)
      .field('count', Schemas.INT64)
      .field('ratio', Schemas.FLOAT64)
      .field('ok', Schemas.BOOLEAN)
      .field('raw', Schemas.BYTES)
      .field('price', LogicalDecimal.schema(2))
      .field('at', LogicalTimestamp.schema())
      .field('tags', SchemaBuilder.array(Schemas.STRING).build())
      .field('attrs', SchemaBuilder.map(Schemas.STRING, Schemas.INT32).build())
      .field('address', inner)
      .field('note', Schemas.OPTIONAL_STRING)
      .build();
    const value = new Struct(schema)
      .put('id', 'ignored: the key wins')
      .put('count', 9_223_372_036_854_775_807n)
      .put('ratio', 0.25)
      .put('ok', true)
      .put('raw', new Uint8Array([1, 2, 255]))
      .put('price', BigDecimal.parse('19.99'))
      .put('at', new Date(Date.UTC(2024, 1, 29, 8, 0, 0)))
      .put('tags', ['a', 'b'])
      .put('attrs', new Map([['x', 1]]))
      .put('address', new Struct(inner).put('city', 'Lyon'))
      .put('note', null);
    const task = await startTask(table);

    // Act
    await task.put([
      new SinkRecord({
        topic: 'orders',
        kafkaPartition: 1,
        kafkaOffset: 7,
        key: 'o-1',
        valueSchema: schema,
        value,
      }),
    ]);
    await task.stop();

    // Assess
    const { Item } = await dynamo.send(
      new GetItemCommand({ TableName: table, Key: { id: { S: 'o-1' } } }),
    );
    expect(Item).toEqual({
      id: { S: 'o-1' },
      count: { N: '9223372036854775807' },
      ratio: { N: '0.25' },
      ok: { BOOL: true },
      raw: { B: new Uint8Array([1, 2, 255]) },
      price: { N: '19.99' },
      at: { S: '2024-02-29T08:00:00.000Z' },
      tags: { L: [{ S: 'a' }, { S: 'b' }] },
      attrs: { M: { x: { N: '1' } } },
      address: { M: { city: { S: 'Lyon' } } },
      note: { NULL: true },
      _kafka_topic: { S: 'orders' },
      _kafka_partition: { N: '1' },
      _kafka_offset: { N: '7' },
    });
  });

  it('counts a redelivered batch as stale and overwrites items written by others', async () => {
    // Prepare
    const table = await createTable();
    await dynamo.send(
      new PutItemCommand({ TableName: table, Item: { id: { S: 'legacy' }, v: { N: '0' } } }),
    );
    const batch = [upsert('a', 1, 0), upsert('legacy', 2, 1)];
    const task = await startTask(table);
    await task.put(batch);

    // Act
    await task.put(batch);
    await task.put([upsert('a', 0, 0), upsert('b', 3, 2)]);
    await task.stop();

    // Assess
    expect(task.stats()).toMatchObject({ applied: 3, stale: 3 });
    const items = await scan(table);
    expect(Object.values(items).map((i) => [i.id, i.v])).toEqual(
      expect.arrayContaining([
        [{ S: 'a' }, { N: '1' }],
        [{ S: 'legacy' }, { N: '2' }],
        [{ S: 'b' }, { N: '3' }],
      ]),
    );
  });

  it('converges to a clean pass when crashes before the offset store redeliver other boundaries', async () => {
    // Prepare
    const records = sequence();
    const expected = await cleanPass(records);
    const table = await createTable();
    const slice = (from: number, to: number) => records.slice(from, to);

    // Act: overlapping redeliveries, as after failures before the offsets were stored
    const results = [
      await invoke(table, slice(0, 17)),
      await invoke(table, slice(0, 40)),
      await invoke(table, slice(10, 55), { 'batch.size': '3' }),
      await invoke(table, slice(30, 90)),
      await invoke(table, slice(41, 120), { 'batch.size': '1' }),
      await invoke(table, slice(88, 120)),
    ];

    // Assess
    expect(results.every((ok) => ok)).toBe(true);
    expect(await scan(table)).toEqual(expected);
  });

  it('converges when invocations of the same partition overlap and an older one lands last', async () => {
    // Prepare
    const records = sequence();
    const expected = await cleanPass(records);
    const table = await createTable();

    // Act: two concurrent invocations with different boundaries, then a late older batch
    const results = await Promise.all([
      invoke(table, records.slice(0, 70)),
      invoke(table, records.slice(0, 120), { 'batch.size': '7' }),
    ]);
    const late = await invoke(table, records.slice(20, 60));

    // Assess
    expect([...results, late]).toEqual([true, true, true]);
    expect(await scan(table)).toEqual(expected);
  });

  it('keeps a tombstone marker that a replayed older upsert cannot overwrite', async () => {
    // Prepare
    const table = await createTable();
    await written(table, [upsert('a', 1, 0), upsert('b', 2, 1), tombstone('a', 2)]);

    // Act
    await written(table, [upsert('a', 1, 0)]);

    // Assess
    const items = await scan(table);
    expect(items[JSON.stringify({ S: 'a' })]).toMatchObject({
      id: { S: 'a' },
      _kafka_deleted: { BOOL: true },
      _kafka_offset: { N: '2' },
      _kafka_expires_at: { N: String(NOW / 1000 + 86_400) },
    });
    expect(items[JSON.stringify({ S: 'a' })]).not.toHaveProperty('v');
    expect(items[JSON.stringify({ S: 'b' })]?.v).toEqual({ N: '2' });
  });

  it('deletes items with delete.mode=delete and converges when the delete is replayed', async () => {
    // Prepare
    const table = await createTable();
    const props = { 'delete.mode': 'delete' };
    await written(table, [upsert('a', 1, 0), upsert('b', 2, 1)], props);
    await written(table, [tombstone('a', 2)], props);
    const afterDelete = Object.keys(await scan(table));

    // Act: redelivery from the committed offset replays the upsert, then the delete
    await written(table, [upsert('a', 1, 0)], props);
    const midReplay = Object.keys(await scan(table));
    await written(table, [upsert('b', 2, 1), tombstone('a', 2)], props);

    // Assess
    expect(afterDelete).toEqual([JSON.stringify({ S: 'b' })]);
    expect(midReplay.sort()).toEqual([JSON.stringify({ S: 'a' }), JSON.stringify({ S: 'b' })]);
    expect(Object.keys(await scan(table))).toEqual([JSON.stringify({ S: 'b' })]);
  });

  it('writes a composite key from value fields named by pk.fields', async () => {
    // Prepare
    const table = await createTable([
      { name: 'pk', type: 'S', kind: 'HASH' },
      { name: 'sk', type: 'N', kind: 'RANGE' },
    ]);
    const props = { 'pk.mode': 'record_value', 'pk.fields': 'user,seq', 'delete.enabled': 'false' };
    const record = (seq: number, offset: number) =>
      new SinkRecord({
        topic: 'events',
        kafkaPartition: 0,
        kafkaOffset: offset,
        value: { user: 'u1', seq, n: offset },
      });

    // Act
    const ok = await invoke(table, [record(1, 0), record(2, 1), record(1, 2)], props);

    // Assess
    expect(ok).toBe(true);
    const { Item } = await dynamo.send(
      new GetItemCommand({ TableName: table, Key: { pk: { S: 'u1' }, sk: { N: '1' } } }),
    );
    expect(Item).toMatchObject({ user: { S: 'u1' }, seq: { N: '1' }, n: { N: '2' } });
  });

  it('reports an item DynamoDB rejects and keeps the previous record of its key', async () => {
    // Prepare
    const table = await createTable();
    const reporter = new Reporter();
    const task = await startTask(table, {}, reporter);
    const rejected = new SinkRecord({
      topic: 'orders',
      kafkaPartition: 0,
      kafkaOffset: 2,
      key: '',
      value: { v: 9 },
    });

    // Act
    await task.put([upsert('a', 1, 0), upsert('a', 2, 1), rejected]);
    await task.stop();

    // Assess
    expect(reporter.reported).toEqual([rejected]);
    expect((await scan(table))[JSON.stringify({ S: 'a' })]?.v).toEqual({ N: '2' });
  });

  it('fails with a non-retriable ConnectError when the table does not exist', async () => {
    // Prepare
    const task = await startTask(uniqueName('ddb-sink-missing'));

    // Act
    const act = task.put([upsert('a', 1, 0)]);

    // Assess
    await expect(act).rejects.toThrow(ConnectError);
    await expect(act).rejects.toThrow('does not exist');
    await expect(act).rejects.toSatisfy((e) => e instanceof ConnectError && !e.retriable);
    await task.stop();
  });
});
