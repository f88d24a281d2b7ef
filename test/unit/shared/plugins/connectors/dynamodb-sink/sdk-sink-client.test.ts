import {
  DeleteItemCommand,
  DescribeTableCommand,
  type DescribeTableCommandOutput,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { ConnectError } from '../../../../../../shared/connect/errors.js';
import { kafkaAttributeNames } from '../../../../../../shared/plugins/connectors/dynamodb-sink/dynamodb-sink-config.js';
import {
  type DynamoDbSender,
  keySchemaOf,
  type SinkCommand,
  sdkDynamoDbSinkClient,
} from '../../../../../../shared/plugins/connectors/dynamodb-sink/sdk-sink-client.js';
import type { ItemWrite } from '../../../../../../shared/plugins/connectors/dynamodb-sink/sink-client.js';
import { sdkError } from './fakes.js';

/** A sender that records commands and answers with `reply`. */
function sender(reply: (command: SinkCommand) => Promise<object>) {
  const sent: SinkCommand[] = [];
  let destroyed = false;
  const fake: DynamoDbSender = {
    send: (command) => {
      sent.push(command);
      return reply(command);
    },
    destroy: () => {
      destroyed = true;
    },
  };
  return { fake, sent, destroyed: () => destroyed };
}

const guard = { names: kafkaAttributeNames('_kafka_'), topic: 'orders', partition: 3, offset: 42 };
const condition = {
  ConditionExpression: 'attribute_not_exists(#o) OR #t <> :t OR #p <> :p OR #o < :o',
  ExpressionAttributeNames: {
    '#o': '_kafka_offset',
    '#t': '_kafka_topic',
    '#p': '_kafka_partition',
  },
  ExpressionAttributeValues: { ':t': { S: 'orders' }, ':p': { N: '3' }, ':o': { N: '42' } },
};

describe('sdkDynamoDbSinkClient', () => {
  it('sends a put as a PutItem guarded by the Kafka coordinates', async () => {
    // Prepare
    const { fake, sent } = sender(async () => ({}));
    const write: ItemWrite = { kind: 'put', table: 'orders', item: { id: { S: 'a' } }, guard };

    // Act
    const outcome = await sdkDynamoDbSinkClient(fake).write(write);

    // Assess
    expect(outcome).toBe('applied');
    expect(sent[0]).toBeInstanceOf(PutItemCommand);
    expect(sent[0]?.input).toEqual({ TableName: 'orders', Item: { id: { S: 'a' } }, ...condition });
  });

  it('sends a delete as a DeleteItem with the same guard', async () => {
    // Prepare
    const { fake, sent } = sender(async () => ({}));
    const write: ItemWrite = { kind: 'delete', table: 'orders', key: { id: { S: 'a' } }, guard };

    // Act
    await sdkDynamoDbSinkClient(fake).write(write);

    // Assess
    expect(sent[0]).toBeInstanceOf(DeleteItemCommand);
    expect(sent[0]?.input).toEqual({ TableName: 'orders', Key: { id: { S: 'a' } }, ...condition });
  });

  it('answers stale when the condition fails', async () => {
    // Prepare
    const { fake } = sender(async () => {
      throw sdkError('ConditionalCheckFailedException');
    });
    const write: ItemWrite = { kind: 'put', table: 'orders', item: { id: { S: 'a' } }, guard };

    // Act
    const outcome = await sdkDynamoDbSinkClient(fake).write(write);

    // Assess
    expect(outcome).toBe('stale');
  });

  it('passes other errors through for classification', async () => {
    // Prepare
    const throttled = sdkError('ThrottlingException');
    const { fake } = sender(async () => {
      throw throttled;
    });
    const write: ItemWrite = { kind: 'put', table: 'orders', item: { id: { S: 'a' } }, guard };

    // Act
    const act = sdkDynamoDbSinkClient(fake).write(write);

    // Assess
    await expect(act).rejects.toBe(throttled);
  });

  it('reads the key schema with DescribeTable and destroys the client', async () => {
    // Prepare
    const output = {
      Table: {
        KeySchema: [
          { AttributeName: 'sk', KeyType: 'RANGE' },
          { AttributeName: 'pk', KeyType: 'HASH' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'N' },
        ],
      },
    };
    const { fake, sent, destroyed } = sender(async () => output);
    const client = sdkDynamoDbSinkClient(fake);

    // Act
    const schema = await client.describeTable('events');
    client.destroy();

    // Assess
    expect(sent[0]).toBeInstanceOf(DescribeTableCommand);
    expect(schema).toEqual({
      table: 'events',
      partitionKey: { name: 'pk', type: 'S' },
      sortKey: { name: 'sk', type: 'N' },
    });
    expect(destroyed()).toBe(true);
  });
});

describe('keySchemaOf', () => {
  it('refuses a description without a partition key', () => {
    // Act
    const act = () => keySchemaOf('t', { Table: {} } as DescribeTableCommandOutput);

    // Assess
    expect(act).toThrow(ConnectError);
    expect(act).toThrow('DynamoDB table t has no partition key in its description');
  });
});
