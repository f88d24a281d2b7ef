import {
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDynamoDbStateStore } from '../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../shared/adapters/dynamodb/ensure-table.js';
import {
  ITEM_FORMAT_VERSION,
  KEYS,
  SINK_OFFSET_SHARDS,
  STATE_TABLE,
} from '../../shared/adapters/dynamodb/table-schema.js';
import { ConnectError } from '../../shared/connect/errors.js';
import { StoreUnavailableError } from '../../shared/ports/errors.js';
import { describeStateStoreContract, ManualClock } from '../contract/state-store.contract.js';
import { testDynamo, uniqueName } from '../support/services.js';

const client = testDynamo();

async function freshTable(): Promise<string> {
  const tableName = uniqueName('state');
  await ensureTable(client, tableName);
  return tableName;
}

describeStateStoreContract('dynamodb on dynalite', async () => {
  const tableName = await freshTable();
  const clock = new ManualClock();
  const store = createDynamoDbStateStore({ client, tableName, clock });
  return {
    store,
    clock,
    // The connector's partition and its sink-offset shards (v4).
    countItems: async (connector) => {
      const pks = [
        KEYS.connectorPk(connector),
        ...Array.from({ length: SINK_OFFSET_SHARDS }, (_, s) =>
          KEYS.sinkOffsetShardPk(connector, s),
        ),
      ];
      const counts = await Promise.all(
        pks.map(async (pk) => {
          const out = await client.send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'pk = :pk',
              ExpressionAttributeValues: { ':pk': { S: pk } },
              Select: 'COUNT',
              ConsistentRead: true,
            }),
          );
          return out.Count ?? 0;
        }),
      );
      return counts.reduce((a, b) => a + b, 0);
    },
  };
});

describe('DynamoDB state store item formats', () => {
  it('reads a v1 connector and task-config item (JSON strings, no format attribute)', async () => {
    // Prepare
    const tableName = await freshTable();
    const clock = new ManualClock();
    const store = createDynamoDbStateStore({ client, tableName, clock });
    const config = { name: 'legacy', 'connector.class': 'FileStreamSource', 'tasks.max': '1' };
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: 'C#legacy' },
          sk: { S: 'CONNECTOR' },
          listPk: { S: 'CONNECTOR' },
          listSk: { S: 'legacy' },
          config: { S: JSON.stringify(config) },
          version: { N: '3' },
          target: { S: 'RUNNING' },
        },
      }),
    );
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: 'C#legacy' },
          sk: { S: 'TASKS' },
          v: { N: '1' },
          version: { N: '2' },
          tasks: { S: JSON.stringify([{ config: { file: '/tmp/in' }, generation: 2 }]) },
        },
      }),
    );
    // Act
    const connector = await store.configs.getConnector('legacy');
    const tasks = await store.configs.getTaskConfigs('legacy');
    const lease = await store.leases.acquireLease({
      connector: 'legacy',
      task: 0,
      owner: 'o',
      generation: 2,
      ttlMs: 1000,
    });
    // Assess
    expect(connector).toMatchObject({ name: 'legacy', config, version: 3, targetState: 'RUNNING' });
    expect(tasks).toEqual({
      connector: 'legacy',
      version: 2,
      tasks: [{ task: 0, config: { file: '/tmp/in' }, generation: 2 }],
    });
    expect(lease.epoch).toBe(1);
    expect((await store.configs.listConnectors()).names).toEqual(['legacy']);
  });

  it('rewrites a v1 item in the current format on its next update', async () => {
    const tableName = await freshTable();
    const store = createDynamoDbStateStore({ client, tableName, clock: new ManualClock() });
    const key = { pk: { S: 'C#legacy' }, sk: { S: 'CONNECTOR' } };
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { ...key, name: { S: 'legacy' }, config: { S: '{"a":"1"}' }, version: { N: '1' } },
      }),
    );

    await store.configs.updateConnector('legacy', { a: '2' }, 1);

    const raw = await client.send(new GetItemCommand({ TableName: tableName, Key: key }));
    expect(raw.Item?.v).toEqual({ N: String(ITEM_FORMAT_VERSION) });
    expect(raw.Item?.config).toEqual({ M: { a: { S: '2' } } });
    expect((await store.configs.getConnector('legacy'))?.config).toEqual({ a: '2' });
  });

  /** A sink offset item as the code before v3 wrote it: `offset` = the last record written. */
  async function putV2SinkOffset(tableName: string, partition: number, lastWritten: number) {
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: 'C#legacy' },
          sk: { S: `SINKOFFSET#orders#${partition}` },
          v: { N: '2' },
          topic: { S: 'orders' },
          partition: { N: String(partition) },
          offset: { N: String(lastWritten) },
          updatedAt: { N: '1' },
        },
      }),
    );
  }

  it('reads a v2 sink offset item (last written) as the next offset to read', async () => {
    // Prepare: records 0..9 of orders-0 written; orders-1 altered to "start at 0" (stored -1).
    const tableName = await freshTable();
    const store = createDynamoDbStateStore({ client, tableName, clock: new ManualClock() });
    await store.configs.createConnector('legacy', { name: 'legacy' });
    await putV2SinkOffset(tableName, 0, 9);
    await putV2SinkOffset(tableName, 1, -1);
    // Act
    const offsets = await store.offsets.getSinkOffsets('legacy');
    const snapshot = await store.status.getSinkSnapshot('legacy', offsets);
    // Assess
    expect(offsets).toEqual([
      { topic: 'orders', partition: 0, nextOffset: 10 },
      { topic: 'orders', partition: 1, nextOffset: 0 },
    ]);
    expect(snapshot?.sinkOffsets).toEqual(offsets);
  });

  it('compares a commit with a v2 sink offset in its old meaning and moves it to its v4 shard', async () => {
    // Prepare: a v2 item saying records up to 9 were written (next to read: 10).
    const tableName = await freshTable();
    const store = createDynamoDbStateStore({ client, tableName, clock: new ManualClock() });
    await putV2SinkOffset(tableName, 0, 9);
    const legacyKey = { pk: { S: 'C#legacy' }, sk: { S: 'SINKOFFSET#orders#0' } };
    const key = {
      pk: { S: KEYS.sinkOffsetPk('legacy', 'orders', 0) },
      sk: { S: 'SINKOFFSET#orders#0' },
    };
    const commit = (nextOffset: number) =>
      store.offsets.commitSinkOffset('legacy', { topic: 'orders', partition: 0, nextOffset });
    // Act
    const behind = await commit(9);
    const moved = await client.send(new GetItemCommand({ TableName: tableName, Key: key }));
    const left = await client.send(new GetItemCommand({ TableName: tableName, Key: legacyKey }));
    const equal = await commit(10);
    const ahead = await commit(11);
    const raw = await client.send(new GetItemCommand({ TableName: tableName, Key: key }));
    const again = await commit(11);
    // Assess
    expect([behind, equal, ahead, again]).toEqual([false, false, true, false]);
    expect(left.Item).toBeUndefined();
    expect([moved.Item?.v, moved.Item?.offset]).toEqual([
      { N: String(ITEM_FORMAT_VERSION) },
      { N: '10' },
    ]);
    expect([raw.Item?.v, raw.Item?.offset]).toEqual([
      { N: String(ITEM_FORMAT_VERSION) },
      { N: '11' },
    ]);
    expect(await store.offsets.getSinkOffsets('legacy')).toEqual([
      { topic: 'orders', partition: 0, nextOffset: 11 },
    ]);
  });

  it('refuses to read an item written by a newer format than it knows', async () => {
    const tableName = await freshTable();
    const store = createDynamoDbStateStore({ client, tableName });
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: 'C#future' },
          sk: { S: 'CONNECTOR' },
          v: { N: '99' },
          name: { S: 'future' },
          version: { N: '1' },
        },
      }),
    );

    const read = store.configs.getConnector('future');

    await expect(read).rejects.toThrow(/format v99/);
  });
});

describe('DynamoDB state store sink offsets in shards (v4)', () => {
  /** A sink offset item as v3 wrote it: under the connector's partition, next offset to read. */
  async function putV3SinkOffset(
    tableName: string,
    connector: string,
    partition: number,
    next: number,
  ) {
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: `C#${connector}` },
          sk: { S: `SINKOFFSET#orders#${partition}` },
          v: { N: '3' },
          topic: { S: 'orders' },
          partition: { N: String(partition) },
          offset: { N: String(next) },
          updatedAt: { N: '1' },
        },
      }),
    );
  }

  /** Every item of the table (a test table is small). */
  async function allItems(tableName: string) {
    const out = await client.send(new ScanCommand({ TableName: tableName }));
    return out.Items ?? [];
  }

  it("spreads a connector's sink offsets over its shards and keeps none under the connector", async () => {
    // Prepare
    const tableName = await freshTable();
    const store = createDynamoDbStateStore({ client, tableName, clock: new ManualClock() });
    await store.configs.createConnector('spread', { name: 'spread' });
    // Act
    for (let partition = 0; partition < 64; partition += 1) {
      await store.offsets.commitSinkOffset('spread', { topic: 'orders', partition, nextOffset: 5 });
    }
    // Assess
    const sinkItems = (await allItems(tableName)).filter((i) => i.sk?.S?.startsWith('SINKOFFSET#'));
    const keys = new Set(sinkItems.map((i) => i.pk?.S));
    expect(sinkItems).toHaveLength(64);
    expect(keys.has('C#spread')).toBe(false);
    expect(keys.size).toBeGreaterThan(SINK_OFFSET_SHARDS / 2);
    expect(keys.size).toBeLessThanOrEqual(SINK_OFFSET_SHARDS);
    expect(await store.offsets.getSinkOffsets('spread')).toHaveLength(64);
    const snapshot = await store.status.getConnectorSnapshot('spread');
    expect(snapshot?.record.name).toBe('spread');
  });

  it("reads a v3 connector's sink offsets where v3 kept them, with the further of both per partition", async () => {
    // Prepare: v3 items for orders-0..2; v4 commits for orders-1 (ahead) and orders-3 (new).
    const tableName = await freshTable();
    const store = createDynamoDbStateStore({ client, tableName, clock: new ManualClock() });
    await store.configs.createConnector('old', { name: 'old' });
    await store.configs.putTaskConfigs('old', [{ a: '1' }], 0);
    await store.status.putTaskStatus(
      { connector: 'old', task: 0 },
      { state: 'RUNNING', workerId: 'w' },
    );
    for (const [partition, next] of [
      [0, 40],
      [1, 41],
      [2, 42],
    ] as const) {
      await putV3SinkOffset(tableName, 'old', partition, next);
    }
    // Act
    const before = await store.offsets.getSinkOffsets('old');
    const movedOn = await store.offsets.commitSinkOffset('old', {
      topic: 'orders',
      partition: 1,
      nextOffset: 50,
    });
    const fresh = await store.offsets.commitSinkOffset('old', {
      topic: 'orders',
      partition: 3,
      nextOffset: 7,
    });
    const stale = await store.offsets.commitSinkOffset('old', {
      topic: 'orders',
      partition: 2,
      nextOffset: 30,
    });
    const after = await store.offsets.getSinkOffsets('old');
    const batch = await store.status.getSinkSnapshot('old', [
      { topic: 'orders', partition: 0 },
      { topic: 'orders', partition: 1 },
      { topic: 'orders', partition: 9 },
    ]);
    const status = await store.status.getConnectorSnapshot('old');
    // Assess
    const at = (list: readonly { partition: number; nextOffset: number }[] | undefined) =>
      list?.map((o) => `${o.partition}@${o.nextOffset}`);
    expect(at(before)).toEqual(['0@40', '1@41', '2@42']);
    expect([movedOn, fresh, stale]).toEqual([true, true, false]);
    expect(at(after)).toEqual(['0@40', '1@50', '2@42', '3@7']);
    expect(at(batch?.sinkOffsets)).toEqual(['0@40', '1@50']);
    expect(status?.taskStatuses.map((t) => t.state)).toEqual(['RUNNING']);
    const left = (await allItems(tableName)).filter(
      (i) => i.pk?.S === 'C#old' && i.sk?.S?.startsWith('SINKOFFSET#'),
    );
    expect(left.map((i) => i.sk?.S).sort()).toEqual(['SINKOFFSET#orders#0']);
  });

  it('marks the TASKS item v4 at the first v4 commit, so that code before v4 refuses the connector', async () => {
    // Prepare: a connector whose TASKS item v3 code wrote.
    const tableName = await freshTable();
    const store = createDynamoDbStateStore({ client, tableName, clock: new ManualClock() });
    await store.configs.createConnector('mark', { name: 'mark' });
    await store.configs.putTaskConfigs('mark', [{ a: '1' }], 0);
    const tasksKey = { pk: { S: 'C#mark' }, sk: { S: 'TASKS' } };
    const written = await client.send(new GetItemCommand({ TableName: tableName, Key: tasksKey }));
    await client.send(
      new PutItemCommand({ TableName: tableName, Item: { ...written.Item, v: { N: '3' } } }),
    );
    // Act
    await store.offsets.commitSinkOffset('mark', { topic: 'orders', partition: 0, nextOffset: 1 });
    // Assess
    const raw = await client.send(new GetItemCommand({ TableName: tableName, Key: tasksKey }));
    expect(raw.Item?.v).toEqual({ N: String(ITEM_FORMAT_VERSION) });
    expect((await store.configs.getTaskConfigs('mark')).tasks).toHaveLength(1);
  });

  it('alters and resets over v3 items too, and deletes the shards with the connector', async () => {
    // Prepare
    const tableName = await freshTable();
    const store = createDynamoDbStateStore({ client, tableName, clock: new ManualClock() });
    await store.configs.createConnector('alt', { name: 'alt' }, { initialState: 'STOPPED' });
    await putV3SinkOffset(tableName, 'alt', 0, 100);
    await putV3SinkOffset(tableName, 'alt', 1, 100);
    await store.offsets.commitSinkOffset('alt', { topic: 'orders', partition: 2, nextOffset: 9 });
    // Act
    await store.offsets.alterSinkOffsets('alt', [
      { topic: 'orders', partition: 0, nextOffset: 5 },
      { topic: 'orders', partition: 1, nextOffset: null },
    ]);
    const altered = await store.offsets.getSinkOffsets('alt');
    await store.offsets.resetSinkOffsets('alt');
    const reset = await store.offsets.getSinkOffsets('alt');
    await store.offsets.commitSinkOffset('alt', { topic: 'orders', partition: 3, nextOffset: 1 });
    await store.configs.deleteConnector('alt');
    // Assess
    expect(altered.map((o) => `${o.partition}@${o.nextOffset}`)).toEqual(['0@5', '2@9']);
    expect(reset).toEqual([]);
    expect(await allItems(tableName)).toEqual([]);
  });
});

describe('DynamoDB state store errors', () => {
  it('reports an unreachable store as a retriable StoreUnavailableError, never a raw SDK error', async () => {
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const unreachable = new DynamoDBClient({
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      maxAttempts: 1,
    });
    const store = createDynamoDbStateStore({ client: unreachable, tableName: 'nope' });

    const read = store.configs.getConnector('c');

    await expect(read).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(read).rejects.toMatchObject({ retriable: true });
  });

  it('reports a missing table as a ConnectError naming the operation', async () => {
    const store = createDynamoDbStateStore({ client, tableName: uniqueName('missing') });

    const read = store.configs.getConnector('c');

    await expect(read).rejects.toBeInstanceOf(ConnectError);
    await expect(read).rejects.toThrow(/state table does not exist \(get connector c\)/);
  });

  it('creates the table idempotently from the shared schema', async () => {
    const tableName = await freshTable();

    await ensureTable(client, tableName);

    const store = createDynamoDbStateStore({ client, tableName });
    await store.configs.createConnector('c', {});
    expect((await store.configs.listConnectors()).names).toEqual(['c']);
    expect(STATE_TABLE.connectorIndex.name).toBe('connectors');
  });
});
