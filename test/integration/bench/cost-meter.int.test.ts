import {
  type ConsumedCapacity,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { CostMeter } from '../../../bench/cost.js';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { TASK_PARTITIONS_KEY } from '../../../shared/runtime/task/task-split.js';
import { testDynamo, testKafka, testS3, uniqueName } from '../../support/services.js';
import { createItemTable } from '../../support/sink-campaign/dynamodb-target.js';

describe('bench cost meter', () => {
  it('counts the DynamoDB, S3 and Kafka requests made inside its window, and only those', async () => {
    // Prepare: a table, a bucket and a producer, made outside the window.
    const dynamo = testDynamo();
    const s3 = testS3();
    const table = uniqueName('cost-meter');
    const bucket = uniqueName('cost-meter').toLowerCase();
    await createItemTable(dynamo, table);
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const kafka = testKafka();
    const admin = kafka.admin();
    const topic = uniqueName('cost-meter');
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    const producer = kafka.producer();
    await producer.connect();
    // The first send to a topic fetches its metadata: done here, outside the window.
    await producer.send({ topic, messages: [{ value: 'warm' }] });
    const meter = new CostMeter({ function: 'sink-task', recordsPerInvocation: 2 });
    try {
      // Act: 3 records' worth of work inside the window, more requests outside it.
      await meter.measure(async () => {
        for (const id of ['a', 'b', 'c']) {
          await dynamo.send(new PutItemCommand({ TableName: table, Item: { id: { S: id } } }));
        }
        await dynamo.send(new GetItemCommand({ TableName: table, Key: { id: { S: 'a' } } }));
        await dynamo.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'id = :id',
            ExpressionAttributeValues: { ':id': { S: 'b' } },
          }),
        );
        await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k/1.json', Body: '{}' }));
        const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'k/1.json' }));
        await got.Body?.transformToString();
        await producer.send({ topic, messages: [{ value: 'x' }] });
        return 3;
      });
      await dynamo.send(new PutItemCommand({ TableName: table, Item: { id: { S: 'outside' } } }));
      await producer.send({ topic, messages: [{ value: 'outside' }] });
      const sample = meter.sample('cost-meter');

      // Assess
      expect(sample.records).toBe(3);
      expect(sample.invocations).toBe(1.5);
      expect(sample.cpuMs).toBeGreaterThan(0);
      expect(sample.wallMs).toBeGreaterThan(0);
      expect(sample.requests).toEqual({
        'dynamodb:GetItem': 1,
        'dynamodb:PutItem': 3,
        'dynamodb:Query': 1,
        'kafka:Produce': 1,
        's3:GET GetObject': 1,
        's3:PUT PutObject': 1,
      });
    } finally {
      await producer.disconnect();
      await admin.disconnect();
      dynamo.destroy();
      s3.destroy();
    }
  });
});

describe('bench cost assumption', () => {
  it('holds for the sink path: each state read and write costs one capacity unit at most', async () => {
    // Prepare: a sink connector shaped like the benchmarks' (a dozen config keys, one task over
    // two partitions, statuses), its calls' consumed capacity asked of dynalite.
    const client = testDynamo();
    const units: { operation: string; capacity: number }[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
        const result = await next(args);
        // One entry for most commands, a list (one per table) for BatchGetItem.
        const output = result.output as {
          ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[];
        };
        const consumed = [output.ConsumedCapacity ?? []].flat();
        for (const { CapacityUnits } of consumed) {
          if (CapacityUnits === undefined) continue;
          units.push({ operation: context.commandName ?? '', capacity: CapacityUnits });
        }
        return result;
      },
      { step: 'initialize', name: 'consumedCapacity' },
    );
    const tableName = uniqueName('cost-assumption');
    await ensureTable(client, tableName);
    const store = createDynamoDbStateStore({ client, tableName });
    const connector = 'orders-s3';
    const topic = 'orders';
    const config: Record<string, string> = {
      name: connector,
      'connector.class': 'io.confluent.connect.s3.S3SinkConnector',
      topics: topic,
      's3.bucket.name': 'orders-bucket',
      's3.region': 'eu-west-1',
      'topics.dir': 'topics',
      'flush.size': '250',
      'format.class': 'io.confluent.connect.s3.format.json.JsonFormat',
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
      'tasks.max': '1',
    };
    try {
      await store.configs.createConnector(connector, config);
      await store.configs.putTaskConfigs(
        connector,
        [{ ...config, [TASK_PARTITIONS_KEY]: `${topic}-0,${topic}-1` }],
        0,
      );
      await store.status.putConnectorStatus(connector, { state: 'RUNNING', workerId: 'w' });
      await store.status.putTaskStatus({ connector, task: 0 }, { state: 'RUNNING', workerId: 'w' });
      for (const partition of [0, 1]) {
        await store.offsets.commitSinkOffset(connector, { topic, partition, nextOffset: 500 });
      }

      // Act: what a sink invocation does with the state table.
      units.length = 0;
      const partitions = [0, 1].map((partition) => ({ topic, partition }));
      const snapshot = await store.status.getSinkSnapshot(connector, partitions);
      for (const partition of [0, 1]) {
        await store.offsets.commitSinkOffset(connector, { topic, partition, nextOffset: 1000 });
      }

      // Assess: one read unit each for the snapshot's Query and its offsets' BatchGetItem (in
      // parallel, either first), one write unit per offset write.
      expect(snapshot).toBeDefined();
      expect(units.map((u) => u.operation).sort()).toEqual([
        'BatchGetItemCommand',
        'QueryCommand',
        'UpdateItemCommand',
        'UpdateItemCommand',
      ]);
      // A BatchGetItem costs a unit per item read (one per partition of the batch); the cost
      // table prices it as one read, an understatement docs/benchmarks.md names.
      for (const { operation, capacity } of units) {
        expect(capacity).toBeLessThanOrEqual(
          operation === 'BatchGetItemCommand' ? partitions.length : 1,
        );
      }
    } finally {
      client.destroy();
    }
  });
});
