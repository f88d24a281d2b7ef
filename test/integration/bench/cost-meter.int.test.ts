import { GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { CostMeter } from '../../../bench/cost.js';
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
