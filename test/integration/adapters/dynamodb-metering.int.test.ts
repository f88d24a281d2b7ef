import { PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { installRequestCounter, requestCounts } from '../../../bench/request-counter.js';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { DynamoTable } from '../../../shared/adapters/dynamodb/table.js';
import {
  COST_SHARDS,
  ITEM_FORMAT_VERSION,
} from '../../../shared/adapters/dynamodb/table-schema.js';
import { ConnectError } from '../../../shared/connect/errors.js';
import { systemClock } from '../../../shared/ports/clock.js';
import { StateFormatError } from '../../../shared/ports/errors.js';
import type { Usage } from '../../../shared/ports/metering.js';
import { InvocationMeter } from '../../../shared/runtime/metering/invocation-meter.js';
import { emptyUsage } from '../../../shared/runtime/metering/usage.js';
import { UsageScopes } from '../../../shared/runtime/metering/usage-scopes.js';
import { testDynamo, uniqueName } from '../../support/services.js';

const H0 = Date.UTC(2026, 11, 2, 13);
const usage = (fields: Partial<Usage>): Usage => ({ ...emptyUsage(), ...fields });

/** The state store's DynamoDB requests this process sent, by operation (Node's HTTP channel). */
function dynamoRequests(): Map<string, number> {
  return new Map([...requestCounts()].filter(([key]) => key.startsWith('dynamodb:')));
}

function grown(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  return Object.fromEntries(
    [...after].flatMap(([key, n]) =>
      n > (before.get(key) ?? 0) ? [[key, n - (before.get(key) ?? 0)]] : [],
    ),
  );
}

describe('DynamoDB adapter metering (dynalite)', () => {
  it('reports each request once with the capacity units DynamoDB reported for it', async () => {
    // Prepare: a table whose requests are metered, and a 3 KB item
    installRequestCounter();
    const client = testDynamo();
    const name = uniqueName('metered');
    await ensureTable(client, name);
    const scopes = new UsageScopes(systemClock);
    const table = new DynamoTable(client, name, scopes);
    const key = { pk: { S: 'C#c' }, sk: { S: 'CONNECTOR' } };
    const item = { ...key, blob: { S: 'x'.repeat(3 * 1024 - 100) } };
    const meter = new InvocationMeter({ function: 'api', memoryMb: 512 }, Date.now());
    const before = dynamoRequests();
    // Act: a put (3 write units), a consistent get and query of it (1 read unit each, under
    // 4 KB), a put whose condition fails (billed, reported as 1 write unit), a delete (3)
    await scopes.within(meter, async () => {
      meter.assign('c');
      await table.put(item, {}, 'put');
      await table.get(key, 'get');
      await table.query('C#c', undefined, 'query');
      await table.put(item, { condition: 'attribute_not_exists(pk)' }, 'create', {
        readOldOnFailure: false,
      });
      await table.delete(key, {}, 'delete');
    });
    const counted = grown(before, dynamoRequests());
    // Assess
    expect(counted).toEqual({
      'dynamodb:PutItem': 2,
      'dynamodb:GetItem': 1,
      'dynamodb:Query': 1,
      'dynamodb:DeleteItem': 1,
    });
    expect(meter.finish(Date.now()).get('c')).toMatchObject({
      dynamoReads: 2,
      dynamoReadUnits: 2,
      dynamoWrites: 3,
      dynamoWriteUnits: 3 + 1 + 3,
    });
    client.destroy();
  });

  it('spreads an hour over the writing containers’ shards and reads their sum', async () => {
    // Prepare: two containers (stores) on shards 0 and 15 of one table
    const client = testDynamo();
    const name = uniqueName('usage');
    await ensureTable(client, name);
    const first = createDynamoDbStateStore({ client, tableName: name, random: () => 0 });
    const last = createDynamoDbStateStore({ client, tableName: name, random: () => 0.999 });
    // Act
    await first.usage.addUsage('c', H0, usage({ invocations: 2, s3Tier1Requests: 5 }));
    await last.usage.addUsage('c', H0, usage({ invocations: 3, s3Tier2Requests: 7 }));
    // Assess
    const items = await client.send(
      new QueryCommand({
        TableName: name,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'COST#c' } },
      }),
    );
    expect(items.Items?.map((i) => i.sk?.S)).toEqual([
      'H#2026-12-02T13#00',
      `H#2026-12-02T13#${String(COST_SHARDS - 1)}`,
    ]);
    expect(await first.usage.readUsage('c', { fromHour: H0, toHour: H0 })).toEqual([
      { hour: H0, usage: usage({ invocations: 5, s3Tier1Requests: 5, s3Tier2Requests: 7 }) },
    ]);
    client.destroy();
  });

  it('refuses to add to or read sums of a newer format (StateFormatError), never overwriting them', async () => {
    // Prepare: a v5 item where this container writes
    const client = testDynamo();
    const name = uniqueName('usage');
    await ensureTable(client, name);
    const store = createDynamoDbStateStore({ client, tableName: name, random: () => 0 });
    const newer = ITEM_FORMAT_VERSION + 1;
    await client.send(
      new PutItemCommand({
        TableName: name,
        Item: {
          pk: { S: 'COST#c' },
          sk: { S: 'H#2026-12-02T13#00' },
          v: { N: String(newer) },
          hour: { N: String(H0) },
          invocations: { N: '9' },
        },
      }),
    );
    // Act
    const add = store.usage.addUsage('c', H0, usage({ invocations: 1 }));
    // Assess
    await expect(add).rejects.toThrow(StateFormatError);
    await expect(add).rejects.toMatchObject({ found: newer, known: ITEM_FORMAT_VERSION });
    await expect(store.usage.readUsage('c', { fromHour: H0, toHour: H0 })).rejects.toThrow(
      ConnectError,
    );
    const raw = await client.send(
      new QueryCommand({
        TableName: name,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'COST#c' } },
      }),
    );
    expect(raw.Items?.[0]?.invocations?.N).toBe('9');
    client.destroy();
  });
});
