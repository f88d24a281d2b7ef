import { GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDynamoDbStateStore } from '../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../shared/adapters/dynamodb/ensure-table.js';
import { ITEM_FORMAT_VERSION, STATE_TABLE } from '../../shared/adapters/dynamodb/table-schema.js';
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
    countItems: async (connector) => {
      const out = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: `C#${connector}` } },
          Select: 'COUNT',
          ConsistentRead: true,
        }),
      );
      return out.Count ?? 0;
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
    const snapshot = await store.status.getSinkSnapshot('legacy');
    // Assess
    expect(offsets).toEqual([
      { topic: 'orders', partition: 0, nextOffset: 10 },
      { topic: 'orders', partition: 1, nextOffset: 0 },
    ]);
    expect(snapshot?.sinkOffsets).toEqual(offsets);
  });

  it('compares a commit with a v2 sink offset in its old meaning and rewrites it at the current format', async () => {
    // Prepare: a v2 item saying records up to 9 were written (next to read: 10).
    const tableName = await freshTable();
    const store = createDynamoDbStateStore({ client, tableName, clock: new ManualClock() });
    await putV2SinkOffset(tableName, 0, 9);
    const key = { pk: { S: 'C#legacy' }, sk: { S: 'SINKOFFSET#orders#0' } };
    const commit = (nextOffset: number) =>
      store.offsets.commitSinkOffset('legacy', { topic: 'orders', partition: 0, nextOffset });
    // Act
    const behind = await commit(9);
    const equal = await commit(10);
    const untouched = await client.send(new GetItemCommand({ TableName: tableName, Key: key }));
    const ahead = await commit(11);
    const raw = await client.send(new GetItemCommand({ TableName: tableName, Key: key }));
    const again = await commit(11);
    // Assess
    expect([behind, equal, ahead, again]).toEqual([false, false, true, false]);
    expect([untouched.Item?.v, untouched.Item?.offset]).toEqual([{ N: '2' }, { N: '9' }]);
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
