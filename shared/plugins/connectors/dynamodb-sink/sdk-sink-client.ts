/**
 * {@link DynamoDbSinkClient} over the AWS SDK: DescribeTable, and PutItem / DeleteItem with the
 * guard of `sink-client.ts` as a condition expression.
 */
import {
  DeleteItemCommand,
  DescribeTableCommand,
  type DescribeTableCommandOutput,
  DynamoDBClient,
  type DynamoDBClientConfig,
  PutItemCommand,
  type AttributeValue as SdkAttributeValue,
} from '@aws-sdk/client-dynamodb';
import { ConnectError } from 'serverless-connect/connect';
import { awsClientSettings } from '../aws-connection-config.js';
import type { AttributeMap, ScalarAttributeType } from './attribute-value.js';
import type { DynamoDbSinkConfig } from './dynamodb-sink-config.js';
import type {
  DynamoDbSinkClient,
  ItemWrite,
  KeyAttribute,
  TableKeySchema,
  WriteGuard,
  WriteOutcome,
} from './sink-client.js';

/** The commands the sink sends. */
export type SinkCommand = DescribeTableCommand | PutItemCommand | DeleteItemCommand;

/** The part of the SDK client the adapter uses (a seam for tests). */
export interface DynamoDbSender {
  send(command: SinkCommand): Promise<object>;
  destroy(): void;
}

/** The condition expression, names and values of a guarded write. */
export interface GuardCondition {
  readonly ConditionExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, SdkAttributeValue>;
}

/** The condition of `guard` (see {@link WriteGuard}). */
export function guardCondition(guard: WriteGuard): GuardCondition {
  return {
    ConditionExpression: 'attribute_not_exists(#o) OR #t <> :t OR #p <> :p OR #o < :o',
    ExpressionAttributeNames: {
      '#o': guard.names.offset,
      '#t': guard.names.topic,
      '#p': guard.names.partition,
    },
    ExpressionAttributeValues: {
      ':t': { S: guard.topic },
      ':p': { N: String(guard.partition) },
      ':o': { N: String(guard.offset) },
    },
  };
}

// Our AttributeMap is structurally a subset of the SDK's (no sets); only readonly differs.
function sdkAttributes(map: AttributeMap): Record<string, SdkAttributeValue> {
  return map as Record<string, SdkAttributeValue>;
}

/** The command that performs `write`. */
export function writeCommand(write: ItemWrite): PutItemCommand | DeleteItemCommand {
  const condition = guardCondition(write.guard);
  return write.kind === 'put'
    ? new PutItemCommand({ TableName: write.table, Item: sdkAttributes(write.item), ...condition })
    : new DeleteItemCommand({
        TableName: write.table,
        Key: sdkAttributes(write.key),
        ...condition,
      });
}

function scalarType(table: string, name: string, type: string | undefined): ScalarAttributeType {
  if (type === 'S' || type === 'N' || type === 'B') return type;
  throw new ConnectError(`DynamoDB table ${table} describes key attribute ${name} without a type`);
}

/** The key schema in a DescribeTable response. */
export function keySchemaOf(table: string, output: DescribeTableCommandOutput): TableKeySchema {
  const description = output.Table;
  const types = new Map(
    (description?.AttributeDefinitions ?? []).map((d) => [d.AttributeName, d.AttributeType]),
  );
  const attribute = (keyType: 'HASH' | 'RANGE'): KeyAttribute | null => {
    const element = (description?.KeySchema ?? []).find((k) => k.KeyType === keyType);
    const name = element?.AttributeName;
    return name === undefined ? null : { name, type: scalarType(table, name, types.get(name)) };
  };
  const partitionKey = attribute('HASH');
  if (partitionKey === null) {
    throw new ConnectError(`DynamoDB table ${table} has no partition key in its description`);
  }
  return { table, partitionKey, sortKey: attribute('RANGE') };
}

/** A {@link DynamoDbSinkClient} sending through `sender`. */
export function sdkDynamoDbSinkClient(sender: DynamoDbSender): DynamoDbSinkClient {
  return {
    async describeTable(table: string): Promise<TableKeySchema> {
      const output = await sender.send(new DescribeTableCommand({ TableName: table }));
      return keySchemaOf(table, output as DescribeTableCommandOutput);
    },
    async write(write: ItemWrite): Promise<WriteOutcome> {
      try {
        await sender.send(writeCommand(write));
        return 'applied';
      } catch (error) {
        if ((error as { name?: unknown } | null)?.name === 'ConditionalCheckFailedException') {
          return 'stale';
        }
        throw error;
      }
    },
    destroy(): void {
      sender.destroy();
    },
  };
}

/**
 * The SDK client settings of `config`: region and endpoint when set, explicit credentials when
 * configured (otherwise the default chain), and no SDK retries (the task retries, as
 * `max.retries` and `retry.backoff.ms` say).
 */
export function dynamoDbClientConfigOf(config: DynamoDbSinkConfig): DynamoDBClientConfig {
  return {
    maxAttempts: 1,
    ...awsClientSettings(config),
  };
}

/** A client for `config` over the AWS SDK. */
export function createDynamoDbSinkClient(config: DynamoDbSinkConfig): DynamoDbSinkClient {
  const client = new DynamoDBClient(dynamoDbClientConfigOf(config));
  return sdkDynamoDbSinkClient({
    send: (command) => {
      if (command instanceof PutItemCommand) return client.send(command);
      if (command instanceof DeleteItemCommand) return client.send(command);
      return client.send(command);
    },
    destroy: () => client.destroy(),
  });
}
