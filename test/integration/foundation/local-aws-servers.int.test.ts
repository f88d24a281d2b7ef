import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DescribeTableCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { testDynamo, testS3, uniqueName } from '../../support/services.js';

describe('dynalite (DynamoDB API on loopback)', () => {
  const client = testDynamo();

  async function createTable(): Promise<string> {
    const TableName = uniqueName('table');
    await client.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
    // dynalite answers CreateTable before the table is ACTIVE (a timer, even at 0 ms), as
    // DynamoDB does: writes wait for it, as a client of DynamoDB's must.
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName }));
      if (Table?.TableStatus === 'ACTIVE') return TableName;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`table ${TableName} did not become ACTIVE`);
  }

  it('rejects a failed conditional write with ConditionalCheckFailedException', async () => {
    const TableName = await createTable();
    const put = () =>
      client.send(
        new PutItemCommand({
          TableName,
          Item: { pk: { S: 'conn' }, sk: { S: 'CONFIG' } },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    await put();
    await expect(put()).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  });

  it('lets only the newer writer through a generation-fenced update', async () => {
    const TableName = await createTable();
    const Key = { pk: { S: 'conn' }, sk: { S: 'TASK#0' } };
    const writeGeneration = (g: number, owner: string) =>
      client.send(
        new UpdateItemCommand({
          TableName,
          Key,
          UpdateExpression: 'SET #g = :g, #o = :o',
          ConditionExpression: 'attribute_not_exists(#g) OR #g < :g',
          ExpressionAttributeNames: { '#g': 'generation', '#o': 'owner' },
          ExpressionAttributeValues: { ':g': { N: String(g) }, ':o': { S: owner } },
        }),
      );
    await writeGeneration(5, 'newer');
    await expect(writeGeneration(3, 'older')).rejects.toBeInstanceOf(
      ConditionalCheckFailedException,
    );
    await expect(writeGeneration(5, 'same')).rejects.toBeInstanceOf(
      ConditionalCheckFailedException,
    );
    const { Item } = await client.send(
      new GetItemCommand({ TableName, Key, ConsistentRead: true }),
    );
    expect(Item?.generation?.N).toBe('5');
    expect(Item?.owner?.S).toBe('newer');
  });
});

describe('s3rver (S3 API on loopback)', () => {
  const client = testS3();

  it('puts, gets and lists objects by prefix', async () => {
    const Bucket = uniqueName('bucket');
    await client.send(new CreateBucketCommand({ Bucket }));
    await client.send(new PutObjectCommand({ Bucket, Key: 'topics/a/1.json', Body: '{"n":1}' }));
    await client.send(new PutObjectCommand({ Bucket, Key: 'topics/a/2.json', Body: '{"n":2}' }));
    await client.send(new PutObjectCommand({ Bucket, Key: 'other/3.json', Body: '{"n":3}' }));

    const got = await client.send(new GetObjectCommand({ Bucket, Key: 'topics/a/2.json' }));
    expect(await got.Body?.transformToString()).toBe('{"n":2}');
    const listed = await client.send(new ListObjectsV2Command({ Bucket, Prefix: 'topics/' }));
    expect(listed.Contents?.map((o) => o.Key).sort()).toEqual([
      'topics/a/1.json',
      'topics/a/2.json',
    ]);
  });

  it('copies an object with its metadata or with new metadata, and deletes it', async () => {
    const Bucket = uniqueName('bucket');
    await client.send(new CreateBucketCommand({ Bucket }));
    await client.send(
      new PutObjectCommand({ Bucket, Key: 'a.json', Body: '{"n":1}', Metadata: { v: '1' } }),
    );

    await client.send(
      new CopyObjectCommand({ Bucket, Key: 'b.json', CopySource: `${Bucket}/a.json` }),
    );
    await client.send(
      new CopyObjectCommand({
        Bucket,
        Key: 'a.json',
        CopySource: `${Bucket}/a.json`,
        MetadataDirective: 'REPLACE',
        Metadata: { v: '2' },
      }),
    );
    const b = await client.send(new GetObjectCommand({ Bucket, Key: 'b.json' }));
    expect([await b.Body?.transformToString(), b.Metadata]).toEqual(['{"n":1}', { v: '1' }]);
    await client.send(new DeleteObjectCommand({ Bucket, Key: 'b.json' }));

    const a = await client.send(new GetObjectCommand({ Bucket, Key: 'a.json' }));
    expect([await a.Body?.transformToString(), a.Metadata]).toEqual(['{"n":1}', { v: '2' }]);
    const listed = await client.send(new ListObjectsV2Command({ Bucket }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(['a.json']);
  });

  it('assembles a multipart upload from its parts in order', async () => {
    const Bucket = uniqueName('bucket');
    const Key = 'big/object.bin';
    await client.send(new CreateBucketCommand({ Bucket }));
    const first = new Uint8Array(5 * 1024 * 1024).fill(1); // S3's minimum size of a non-last part
    const last = new Uint8Array(1024).fill(2);
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    const parts = [];
    for (const [index, body] of [first, last].entries()) {
      const { ETag } = await client.send(
        new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: index + 1, Body: body }),
      );
      parts.push({ ETag, PartNumber: index + 1 });
    }
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key,
        UploadId,
        MultipartUpload: { Parts: parts },
      }),
    );

    const head = await client.send(new HeadObjectCommand({ Bucket, Key }));
    expect(head.ContentLength).toBe(first.length + last.length);
    const body = await (
      await client.send(new GetObjectCommand({ Bucket, Key }))
    ).Body?.transformToByteArray();
    expect(body?.[0]).toBe(1);
    expect(body?.[first.length - 1]).toBe(1);
    expect(body?.[first.length]).toBe(2);
    expect(body?.at(-1)).toBe(2);
  });
});
