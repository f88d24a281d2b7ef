import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
  type Shard,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type RunningDynamoDbStreams,
  startDynamoDbStreamsStandIn,
} from '../../../local/services/dynamodb-streams.js';
import { uniqueName } from '../../support/services.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

describe('DynamoDB Streams stand-in through the AWS SDK (dynalite behind it)', () => {
  let standIn: RunningDynamoDbStreams;
  let ddb: DynamoDBClient;
  let streams: DynamoDBStreamsClient;
  let now = Date.now();

  beforeAll(async () => {
    standIn = await startDynamoDbStreamsStandIn({
      dynaliteEndpoint: inject('dynamoEndpoint'),
      shardRolloverRecords: 4,
      iteratorTtlMs: 60_000,
      now: () => now,
    });
    const options = { endpoint: standIn.endpoint, region: 'us-east-1', credentials };
    ddb = new DynamoDBClient(options);
    streams = new DynamoDBStreamsClient(options);
  });

  afterAll(async () => {
    ddb.destroy();
    streams.destroy();
    await standIn.close();
  });

  async function createTable(stream: boolean): Promise<string> {
    const name = uniqueName('ddbs');
    await ddb.send(
      new CreateTableCommand({
        TableName: name,
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
        ...(stream
          ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } }
          : {}),
      }),
    );
    return name;
  }

  async function streamArnOf(table: string): Promise<string> {
    const out = await ddb.send(new DescribeTableCommand({ TableName: table }));
    return out.Table?.LatestStreamArn ?? '';
  }

  async function shardsOf(arn: string): Promise<Shard[]> {
    const out = await streams.send(new DescribeStreamCommand({ StreamArn: arn }));
    return out.StreamDescription?.Shards ?? [];
  }

  /** Every record of every shard, following NextShardIterator until a shard ends or is empty. */
  async function readAll(arn: string): Promise<{ shard: string; record: _Record }[]> {
    const out: { shard: string; record: _Record }[] = [];
    for (const shard of await shardsOf(arn)) {
      const start = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: arn,
          ShardId: shard.ShardId,
          ShardIteratorType: 'TRIM_HORIZON',
        }),
      );
      let iterator = start.ShardIterator;
      while (iterator !== undefined) {
        const page = await streams.send(
          new GetRecordsCommand({ ShardIterator: iterator, Limit: 3 }),
        );
        for (const record of page.Records ?? []) out.push({ shard: shard.ShardId ?? '', record });
        if ((page.Records ?? []).length === 0 && page.NextShardIterator !== undefined) break;
        iterator = page.NextShardIterator;
      }
    }
    return out;
  }

  it('reports stream settings in DescribeTable and a new stream after re-enabling', async () => {
    // Prepare
    const table = await createTable(true);
    const first = await ddb.send(new DescribeTableCommand({ TableName: table }));

    // Act
    await ddb.send(
      new UpdateTableCommand({ TableName: table, StreamSpecification: { StreamEnabled: false } }),
    );
    const disabled = await ddb.send(new DescribeTableCommand({ TableName: table }));
    now += 5;
    const reenabled = await ddb.send(
      new UpdateTableCommand({
        TableName: table,
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' },
      }),
    );
    const listed = await streams.send(new ListStreamsCommand({ TableName: table }));
    const plain = await ddb.send(new DescribeTableCommand({ TableName: await createTable(false) }));

    // Assess
    expect(first.Table?.StreamSpecification).toEqual({
      StreamEnabled: true,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    });
    expect(first.Table?.LatestStreamArn).toMatch(
      new RegExp(`^arn:aws:dynamodb:.*:table/${table}/stream/\\d{4}-\\d\\d-\\d\\dT`),
    );
    expect(disabled.Table?.StreamSpecification).toBeUndefined();
    expect(reenabled.TableDescription?.LatestStreamArn).not.toBe(first.Table?.LatestStreamArn);
    expect(listed.Streams?.map((s) => s.StreamArn)).toEqual([
      first.Table?.LatestStreamArn,
      reenabled.TableDescription?.LatestStreamArn,
    ]);
    expect(plain.Table?.LatestStreamArn).toBeUndefined();
  });

  it('captures every kind of write with exact images, and rolls shards over with lineage', async () => {
    // Prepare
    const table = await createTable(true);
    const arn = await streamArnOf(table);
    const item = (id: string, v: number) => ({ id: { S: id }, v: { N: String(v) } });

    // Act
    await ddb.send(new PutItemCommand({ TableName: table, Item: item('a', 1) }));
    await ddb.send(
      new UpdateItemCommand({
        TableName: table,
        Key: { id: { S: 'a' } },
        UpdateExpression: 'SET v = v + :one',
        ExpressionAttributeValues: { ':one': { N: '1' } },
      }),
    );
    await ddb.send(new PutItemCommand({ TableName: table, Item: item('a', 2) }));
    await ddb.send(new DeleteItemCommand({ TableName: table, Key: { id: { S: 'a' } } }));
    await ddb.send(
      new BatchWriteItemCommand({
        RequestItems: {
          [table]: [{ PutRequest: { Item: item('b', 1) } }, { PutRequest: { Item: item('c', 1) } }],
        },
      }),
    );
    await ddb.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            Put: {
              TableName: table,
              Item: item('d', 1),
              ConditionExpression: 'attribute_not_exists(id)',
            },
          },
          {
            Update: {
              TableName: table,
              Key: { id: { S: 'b' } },
              UpdateExpression: 'SET #v = :two',
              ConditionExpression: '#v = :one',
              ExpressionAttributeNames: { '#v': 'v' },
              ExpressionAttributeValues: { ':one': { N: '1' }, ':two': { N: '2' } },
            },
          },
        ],
      }),
    );
    const cancelled = await ddb
      .send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Delete: { TableName: table, Key: { id: { S: 'c' } } } },
            {
              ConditionCheck: {
                TableName: table,
                Key: { id: { S: 'zz' } },
                ConditionExpression: 'attribute_exists(id)',
              },
            },
          ],
        }),
      )
      .catch((e: unknown) => e);
    const stillThere = await ddb.send(
      new GetItemCommand({ TableName: table, Key: { id: { S: 'c' } } }),
    );
    const records = await readAll(arn);
    const shards = await shardsOf(arn);

    // Assess
    expect(cancelled).toBeInstanceOf(TransactionCanceledException);
    expect(
      (cancelled as TransactionCanceledException).CancellationReasons?.map((r) => r.Code),
    ).toEqual(['None', 'ConditionalCheckFailed']);
    expect(stillThere.Item).toEqual(item('c', 1));
    expect(
      records.map(({ record }) => `${record.eventName} ${record.dynamodb?.Keys?.id?.S}`),
    ).toEqual(['INSERT a', 'MODIFY a', 'REMOVE a', 'INSERT b', 'INSERT c', 'INSERT d', 'MODIFY b']);
    const modifyA = records[1]?.record.dynamodb;
    expect(modifyA?.OldImage).toEqual(item('a', 1));
    expect(modifyA?.NewImage).toEqual(item('a', 2));
    expect(records[2]?.record.dynamodb?.OldImage).toEqual(item('a', 2));
    expect(records[6]?.record.dynamodb?.NewImage).toEqual(item('b', 2));
    expect(records[0]?.record).toMatchObject({ eventSource: 'aws:dynamodb', eventVersion: '1.1' });
    expect(records[0]?.record.dynamodb?.ApproximateCreationDateTime).toBeInstanceOf(Date);
    expect(shards).toHaveLength(2);
    expect(shards[1]?.ParentShardId).toBe(shards[0]?.ShardId);
    expect(shards[0]?.SequenceNumberRange?.EndingSequenceNumber).toBe(
      records[3]?.record.dynamodb?.SequenceNumber,
    );
    expect(new Set(records.slice(4).map((r) => r.shard))).toEqual(new Set([shards[1]?.ShardId]));
  });

  it('keeps images exact under concurrent writes to one item', async () => {
    // Prepare
    const table = await createTable(true);
    const arn = await streamArnOf(table);

    // Act
    await Promise.all(
      Array.from({ length: 12 }, () =>
        ddb.send(
          new UpdateItemCommand({
            TableName: table,
            Key: { id: { S: 'counter' } },
            UpdateExpression: 'ADD n :one',
            ExpressionAttributeValues: { ':one': { N: '1' } },
          }),
        ),
      ),
    );
    const records = await readAll(arn);

    // Assess
    const transitions = records.map(({ record }) => [
      record.dynamodb?.OldImage?.n?.N ?? null,
      record.dynamodb?.NewImage?.n?.N ?? null,
    ]);
    expect(transitions).toEqual(
      Array.from({ length: 12 }, (_, i) => [i === 0 ? null : String(i), String(i + 1)]),
    );
  });

  it('resumes AFTER_SEQUENCE_NUMBER, and answers expired and trimmed reads with the SDK exceptions', async () => {
    // Prepare
    const table = await createTable(true);
    const arn = await streamArnOf(table);
    for (const id of ['a', 'b', 'c']) {
      await ddb.send(new PutItemCommand({ TableName: table, Item: { id: { S: id } } }));
    }
    const [shard] = await shardsOf(arn);
    const iterator = async (type: 'TRIM_HORIZON' | 'AFTER_SEQUENCE_NUMBER', seq?: string) =>
      (
        await streams.send(
          new GetShardIteratorCommand({
            StreamArn: arn,
            ShardId: shard?.ShardId,
            ShardIteratorType: type,
            ...(seq === undefined ? {} : { SequenceNumber: seq }),
          }),
        )
      ).ShardIterator;
    const first = await streams.send(
      new GetRecordsCommand({ ShardIterator: await iterator('TRIM_HORIZON'), Limit: 1 }),
    );
    const seq = first.Records?.[0]?.dynamodb?.SequenceNumber;

    // Act
    const after = await streams.send(
      new GetRecordsCommand({ ShardIterator: await iterator('AFTER_SEQUENCE_NUMBER', seq) }),
    );
    const old = first.NextShardIterator;
    now += 60_001;
    const expired = await streams
      .send(new GetRecordsCommand({ ShardIterator: old }))
      .catch((e: unknown) => e);
    standIn.trimAll();
    const trimmed = await iterator('AFTER_SEQUENCE_NUMBER', seq).catch((e: unknown) => e);

    // Assess
    expect(after.Records?.map((r) => r.dynamodb?.Keys?.id?.S)).toEqual(['b', 'c']);
    expect(after.NextShardIterator).toBeDefined();
    expect(expired).toBeInstanceOf(ExpiredIteratorException);
    expect(trimmed).toBeInstanceOf(TrimmedDataAccessException);
  });
});
