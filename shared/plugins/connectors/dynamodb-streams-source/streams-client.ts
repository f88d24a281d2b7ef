/**
 * What the DynamoDB Streams source needs from AWS, as a narrow client (so tests can fake it),
 * its errors, and its implementation over `@aws-sdk/client-dynamodb-streams` and
 * `@aws-sdk/client-dynamodb`.
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { ConnectError, RetriableError } from 'serverless-connect/connect';
import type { AttributeMap } from './attribute-values.js';

/** One shard of a stream, as DescribeStream lists it. */
export interface ShardDescription {
  readonly shardId: string;
  /** `null` for a shard without a parent (or whose parent AWS no longer reports). */
  readonly parentShardId: string | null;
  /** Set once the shard is closed: no record will be added to it. */
  readonly endingSequenceNumber: string | null;
}

/** A page of DescribeStream. */
export interface StreamDescriptionPage {
  readonly streamArn: string;
  readonly tableName: string;
  readonly shards: readonly ShardDescription[];
  /** Pass as `exclusiveStartShardId` for the next page; `null` on the last page. */
  readonly lastEvaluatedShardId: string | null;
}

/** One change record of a shard. */
export interface StreamChange {
  readonly eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  readonly sequenceNumber: string;
  /** Epoch milliseconds, `null` when absent. */
  readonly approximateCreationDateTime: number | null;
  readonly keys: AttributeMap;
  readonly newImage: AttributeMap | null;
  readonly oldImage: AttributeMap | null;
}

/** A GetRecords answer; `nextIterator` is `null` once a closed shard is drained. */
export interface RecordsPage {
  readonly records: readonly StreamChange[];
  readonly nextIterator: string | null;
}

export type IteratorType =
  | 'TRIM_HORIZON'
  | 'LATEST'
  | 'AT_SEQUENCE_NUMBER'
  | 'AFTER_SEQUENCE_NUMBER';

/**
 * The DynamoDB Streams calls the source makes. Errors are ConnectErrors: the typed ones below,
 * {@link RetriableError} for throttling, server faults and network failures, a non-retriable
 * ConnectError for the rest (e.g. access denied).
 */
export interface DynamoDbStreamsClientPort {
  /** The table's latest stream ARN, `null` when the table has no stream (ever enabled). */
  latestStreamArn(tableName: string): Promise<string | null>;
  describeStream(
    streamArn: string,
    exclusiveStartShardId: string | null,
  ): Promise<StreamDescriptionPage>;
  getShardIterator(
    streamArn: string,
    shardId: string,
    type: IteratorType,
    sequenceNumber?: string,
  ): Promise<string>;
  getRecords(iterator: string, limit: number): Promise<RecordsPage>;
  /** Releases the clients' sockets. */
  destroy(): void;
}

/** The shard iterator is older than 15 minutes: get a new one. */
export class ExpiredIteratorError extends ConnectError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, retriable: true });
  }
}

/** The records asked for are past the stream's 24-hour retention: they are lost. */
export class TrimmedDataError extends ConnectError {}

/** The stream or shard does not exist (any more). */
export class StreamNotFoundError extends ConnectError {}

const RETRIABLE_NAMES = new Set([
  'LimitExceededException',
  'InternalServerError',
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'ServiceUnavailable',
  'TimeoutError',
]);

/** `error` as a ConnectError (see {@link DynamoDbStreamsClientPort}). */
export function toStreamsError(error: unknown, what: string): ConnectError {
  if (error instanceof ConnectError) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
    $fault?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const message = `${what} failed: ${name}: ${typeof e.message === 'string' ? e.message : String(error)}`;
  if (name === 'ExpiredIteratorException')
    return new ExpiredIteratorError(message, { cause: error });
  if (name === 'TrimmedDataAccessException') return new TrimmedDataError(message, { cause: error });
  if (name === 'ResourceNotFoundException')
    return new StreamNotFoundError(message, { cause: error });
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : 0;
  const clientFault = e.$fault === 'client' || (status >= 400 && status < 500);
  if (clientFault && !RETRIABLE_NAMES.has(name) && status !== 429) {
    return new ConnectError(message, { cause: error });
  }
  return new RetriableError(message, { cause: error });
}

function isEventName(value: unknown): value is StreamChange['eventName'] {
  return value === 'INSERT' || value === 'MODIFY' || value === 'REMOVE';
}

/** The port over the AWS SDK clients (both destroyed by `destroy`). */
export function sdkStreamsClient(
  dynamodb: DynamoDBClient,
  streams: DynamoDBStreamsClient,
): DynamoDbStreamsClientPort {
  return {
    async latestStreamArn(tableName) {
      try {
        const out = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
        return out.Table?.LatestStreamArn ?? null;
      } catch (error) {
        throw toStreamsError(error, `DescribeTable ${tableName}`);
      }
    },
    async describeStream(streamArn, exclusiveStartShardId) {
      try {
        const out = await streams.send(
          new DescribeStreamCommand({
            StreamArn: streamArn,
            ...(exclusiveStartShardId === null
              ? {}
              : { ExclusiveStartShardId: exclusiveStartShardId }),
          }),
        );
        const description = out.StreamDescription;
        return {
          streamArn: description?.StreamArn ?? streamArn,
          tableName: description?.TableName ?? '',
          shards: (description?.Shards ?? []).flatMap((s) =>
            s.ShardId === undefined
              ? []
              : [
                  {
                    shardId: s.ShardId,
                    parentShardId: s.ParentShardId ?? null,
                    endingSequenceNumber: s.SequenceNumberRange?.EndingSequenceNumber ?? null,
                  },
                ],
          ),
          lastEvaluatedShardId: description?.LastEvaluatedShardId ?? null,
        };
      } catch (error) {
        throw toStreamsError(error, `DescribeStream ${streamArn}`);
      }
    },
    async getShardIterator(streamArn, shardId, type, sequenceNumber) {
      try {
        const out = await streams.send(
          new GetShardIteratorCommand({
            StreamArn: streamArn,
            ShardId: shardId,
            ShardIteratorType: type,
            ...(sequenceNumber === undefined ? {} : { SequenceNumber: sequenceNumber }),
          }),
        );
        if (out.ShardIterator === undefined) {
          throw new StreamNotFoundError(`GetShardIterator ${shardId} returned no iterator`);
        }
        return out.ShardIterator;
      } catch (error) {
        throw toStreamsError(error, `GetShardIterator ${type} of shard ${shardId}`);
      }
    },
    async getRecords(iterator, limit) {
      try {
        const out = await streams.send(
          new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }),
        );
        const records: StreamChange[] = [];
        for (const r of out.Records ?? []) {
          const d = r.dynamodb;
          if (d?.SequenceNumber === undefined || !isEventName(r.eventName)) continue;
          records.push({
            eventName: r.eventName,
            sequenceNumber: d.SequenceNumber,
            approximateCreationDateTime: d.ApproximateCreationDateTime?.getTime() ?? null,
            keys: (d.Keys ?? {}) as unknown as AttributeMap,
            newImage: (d.NewImage ?? null) as unknown as AttributeMap | null,
            oldImage: (d.OldImage ?? null) as unknown as AttributeMap | null,
          });
        }
        return { records, nextIterator: out.NextShardIterator ?? null };
      } catch (error) {
        throw toStreamsError(error, 'GetRecords');
      }
    },
    destroy() {
      dynamodb.destroy();
      streams.destroy();
    },
  };
}
