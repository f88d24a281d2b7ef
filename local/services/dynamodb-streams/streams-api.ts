/**
 * The DynamoDB Streams API of the stand-in (`DynamoDBStreams_20120810.*`): ListStreams,
 * DescribeStream (with Limit, ExclusiveStartShardId and ShardFilter CHILD_SHARDS),
 * GetShardIterator (TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER) and
 * GetRecords (Limit, NextShardIterator, none once a closed shard is drained), in the JSON
 * shapes of the AWS API, over the {@link StreamStore}.
 */
import { ApiError, notFound, validationError } from './api-error.js';
import type { Shard, Stream, StreamStore } from './stream-store.js';
import { decodeIterator, encodeIterator, limitOf } from './stream-wire.js';

type Input = Record<string, unknown>;

const MAX_LIMIT = 1000;
const MAX_DESCRIBE_LIMIT = 100;

/** `ListStreams`. */
export function listStreams(store: StreamStore, input: Input): Record<string, unknown> {
  const limit = limitOf(input.Limit, MAX_DESCRIBE_LIMIT, MAX_DESCRIBE_LIMIT);
  let streams = store
    .list()
    .filter((s) => input.TableName === undefined || s.table.tableName === input.TableName);
  if (typeof input.ExclusiveStartStreamArn === 'string') {
    const at = streams.findIndex((s) => s.arn === input.ExclusiveStartStreamArn);
    streams = at < 0 ? [] : streams.slice(at + 1);
  }
  const page = streams.slice(0, limit);
  const last = page.at(-1);
  return {
    Streams: page.map((s) => ({
      StreamArn: s.arn,
      TableName: s.table.tableName,
      StreamLabel: s.label,
    })),
    ...(streams.length > limit && last !== undefined ? { LastEvaluatedStreamArn: last.arn } : {}),
  };
}

/** `DescribeStream`, with `Limit`, `ExclusiveStartShardId` and `ShardFilter` (CHILD_SHARDS). */
export function describeStream(store: StreamStore, input: Input): Record<string, unknown> {
  const stream = store.stream(input.StreamArn);
  const limit = limitOf(input.Limit, MAX_DESCRIBE_LIMIT, MAX_DESCRIBE_LIMIT);
  let shards = stream.shards;
  const filter = input.ShardFilter as { Type?: unknown; ShardId?: unknown } | undefined;
  if (filter !== undefined) {
    if (filter.Type !== 'CHILD_SHARDS' || typeof filter.ShardId !== 'string') {
      throw validationError('ShardFilter must have Type CHILD_SHARDS and a ShardId');
    }
    shards = shards.filter((s) => s.parentId === filter.ShardId);
  }
  if (typeof input.ExclusiveStartShardId === 'string') {
    const at = shards.findIndex((s) => s.id === input.ExclusiveStartShardId);
    shards = at < 0 ? [] : shards.slice(at + 1);
  }
  const page = shards.slice(0, limit);
  const last = page.at(-1);
  return {
    StreamDescription: {
      StreamArn: stream.arn,
      StreamLabel: stream.label,
      StreamStatus: stream.status,
      StreamViewType: stream.viewType,
      CreationRequestDateTime: stream.createdAt / 1000,
      TableName: stream.table.tableName,
      KeySchema: stream.table.keySchema,
      Shards: page.map((s) => ({
        ShardId: s.id,
        SequenceNumberRange: {
          StartingSequenceNumber: String(s.startingSequenceNumber),
          ...(s.endingSequenceNumber === null
            ? {}
            : { EndingSequenceNumber: String(s.endingSequenceNumber) }),
        },
        ...(s.parentId === null ? {} : { ParentShardId: s.parentId }),
      })),
      ...(shards.length > limit && last !== undefined ? { LastEvaluatedShardId: last.id } : {}),
    },
  };
}

/** `GetShardIterator`. */
export function getShardIterator(store: StreamStore, input: Input): Record<string, unknown> {
  const stream = store.stream(input.StreamArn);
  const shard = stream.shards.find((s) => s.id === input.ShardId);
  if (shard === undefined) {
    throw notFound(`Shard: ${String(input.ShardId)} in Stream: ${stream.arn} not found`);
  }
  const type = input.ShardIteratorType;
  const sequence = input.SequenceNumber;
  let position: number;
  switch (type) {
    case 'TRIM_HORIZON':
      position = shard.trimmedBefore;
      break;
    case 'LATEST':
      position = shard.records.length;
      break;
    case 'AT_SEQUENCE_NUMBER':
    case 'AFTER_SEQUENCE_NUMBER': {
      if (typeof sequence !== 'string' || !/^\d{1,40}$/.test(sequence)) {
        throw validationError(`Invalid SequenceNumber for ShardIteratorType ${type}`);
      }
      const seq = BigInt(sequence);
      const end = shard.endingSequenceNumber;
      if (seq < shard.startingSequenceNumber || (end !== null && seq > end)) {
        throw validationError(
          `Invalid SequenceNumber ${sequence} for shard ${shard.id}: out of its range`,
        );
      }
      const found = shard.records.findIndex((r) =>
        type === 'AT_SEQUENCE_NUMBER' ? r.sequenceNumber >= seq : r.sequenceNumber > seq,
      );
      position = found < 0 ? shard.records.length : found;
      break;
    }
    default:
      throw validationError(
        `1 validation error detected: Value '${String(type)}' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, LATEST, AT_SEQUENCE_NUMBER, TRIM_HORIZON]`,
      );
  }
  if (position < shard.trimmedBefore) throw trimmed(shard, stream);
  return {
    ShardIterator: encodeIterator({
      arn: stream.arn,
      shard: shard.id,
      position,
      issuedAt: store.now(),
    }),
  };
}

/** `GetRecords`: up to `Limit` records; no NextShardIterator once a closed shard is drained. */
export function getRecords(store: StreamStore, input: Input): Record<string, unknown> {
  if (typeof input.ShardIterator !== 'string') throw validationError('Invalid ShardIterator');
  const state = decodeIterator(input.ShardIterator);
  const limit = limitOf(input.Limit, MAX_LIMIT, MAX_LIMIT);
  const now = store.now();
  if (now - state.issuedAt > store.iteratorTtlMs) {
    throw new ApiError(
      'ExpiredIteratorException',
      `Iterator expired. The iterator was created at time ${new Date(state.issuedAt).toUTCString()} while right now it is ${new Date(now).toUTCString()} which is further in the future than the tolerated delay of ${store.iteratorTtlMs} milliseconds.`,
    );
  }
  const stream = store.stream(state.arn);
  const shard = stream.shards.find((s) => s.id === state.shard);
  if (shard === undefined) {
    throw notFound(`Shard: ${state.shard} in Stream: ${stream.arn} not found`);
  }
  if (state.position < shard.trimmedBefore) throw trimmed(shard, stream);
  const page = shard.records.slice(state.position, state.position + limit);
  const position = state.position + page.length;
  const drained = shard.endingSequenceNumber !== null && position >= shard.records.length;
  return {
    Records: page.map((r) => ({
      eventID: r.eventID,
      eventName: r.eventName,
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: store.region,
      dynamodb: r.dynamodb,
    })),
    ...(drained
      ? {}
      : {
          NextShardIterator: encodeIterator({
            arn: stream.arn,
            shard: shard.id,
            position,
            issuedAt: now,
          }),
        }),
  };
}

function trimmed(shard: Shard, stream: Stream): ApiError {
  return new ApiError(
    'TrimmedDataAccessException',
    `The operation attempted to read past the oldest stream record in shard ${shard.id} of stream ${stream.arn}`,
  );
}
