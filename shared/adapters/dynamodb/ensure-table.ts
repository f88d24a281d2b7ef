import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { ConnectError } from '../../connect/errors.js';
import { mapDynamoError } from './errors.js';
import { STATE_TABLE } from './table-schema.js';

export interface EnsureTableOptions {
  /** Give up waiting for ACTIVE after this many milliseconds. @default 60_000 */
  readonly timeoutMs?: number;
}

const POLL_MS = 100;

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function nameOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null
    ? (error as { name?: unknown }).name
    : undefined;
}

/**
 * Creates the state table from {@link STATE_TABLE} if it does not exist, waits until it is
 * ACTIVE, and turns on TTL. For tests and the local runtime; in AWS the CDK stack owns the
 * table. Idempotent. A server without the TTL API (dynalite) is accepted: TTL only collects
 * garbage.
 *
 * @example
 * ```ts
 * await ensureTable(new DynamoDBClient({ endpoint }), 'connect-state');
 * ```
 */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  options: EnsureTableOptions = {},
): Promise<void> {
  const { partitionKey, sortKey, connectorIndex, stream, timeToLiveAttribute } = STATE_TABLE;
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: STATE_TABLE.billingMode,
        AttributeDefinitions: [
          partitionKey,
          sortKey,
          connectorIndex.partitionKey,
          connectorIndex.sortKey,
        ].map((key) => ({ AttributeName: key.name, AttributeType: key.type })),
        KeySchema: [
          { AttributeName: partitionKey.name, KeyType: 'HASH' },
          { AttributeName: sortKey.name, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: connectorIndex.name,
            KeySchema: [
              { AttributeName: connectorIndex.partitionKey.name, KeyType: 'HASH' },
              { AttributeName: connectorIndex.sortKey.name, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: connectorIndex.projection },
          },
        ],
        StreamSpecification: { StreamEnabled: true, StreamViewType: stream.viewType },
      }),
    );
  } catch (error) {
    if (nameOf(error) !== 'ResourceInUseException') {
      throw mapDynamoError(error, `create table ${tableName}`);
    }
  }
  const polls = Math.ceil((options.timeoutMs ?? 60_000) / POLL_MS);
  for (let poll = 0; ; poll += 1) {
    let status: string | undefined;
    try {
      const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
      status = out.Table?.TableStatus;
    } catch (error) {
      if (nameOf(error) !== 'ResourceNotFoundException') {
        throw mapDynamoError(error, `describe table ${tableName}`);
      }
    }
    if (status === 'ACTIVE') break;
    if (poll >= polls) {
      throw new ConnectError(
        `Table ${tableName} is ${status ?? 'missing'}, not ACTIVE, after waiting`,
      );
    }
    await pause(POLL_MS);
  }
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: timeToLiveAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    const name = nameOf(error);
    // dynalite has no TTL API; a table whose TTL is already on answers ValidationException.
    if (name !== 'UnknownOperationException' && name !== 'ValidationException') {
      throw mapDynamoError(error, `enable TTL on ${tableName}`);
    }
  }
}
