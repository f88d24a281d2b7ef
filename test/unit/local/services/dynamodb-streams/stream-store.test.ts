import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../../local/services/dynamodb-streams/api-error.js';
import {
  StreamStore,
  type StreamStoreOptions,
  type StreamViewType,
} from '../../../../../local/services/dynamodb-streams/stream-store.js';
import {
  describeStream,
  getRecords,
  getShardIterator,
  listStreams,
} from '../../../../../local/services/dynamodb-streams/streams-api.js';

const table = {
  tableName: 'orders',
  tableArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/orders',
  keySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
};

const item = (id: string, qty: number) => ({ id: { S: id }, qty: { N: String(qty) } });
const key = (id: string) => ({ id: { S: id } });

interface Shard {
  ShardId: string;
  ParentShardId?: string;
  SequenceNumberRange: { StartingSequenceNumber: string; EndingSequenceNumber?: string };
}
interface StreamRecordJson {
  eventName: string;
  dynamodb: {
    SequenceNumber: string;
    Keys: unknown;
    NewImage?: unknown;
    OldImage?: unknown;
    SizeBytes: number;
    ApproximateCreationDateTime: number;
    StreamViewType: string;
  };
}

function setup(options: StreamStoreOptions = {}, viewType: StreamViewType = 'NEW_AND_OLD_IMAGES') {
  const store = new StreamStore(options);
  const { arn } = store.enable(table, viewType);
  const shards = () =>
    (describeStream(store, { StreamArn: arn }).StreamDescription as { Shards: Shard[] }).Shards;
  const iterator = (shard: string, type: string, seq?: string) =>
    String(
      getShardIterator(store, {
        StreamArn: arn,
        ShardId: shard,
        ShardIteratorType: type,
        ...(seq === undefined ? {} : { SequenceNumber: seq }),
      }).ShardIterator,
    );
  const read = (it: string, limit?: number) =>
    getRecords(store, { ShardIterator: it, ...(limit === undefined ? {} : { Limit: limit }) }) as {
      Records: StreamRecordJson[];
      NextShardIterator?: string;
    };
  return { store, arn, shards, iterator, read };
}

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('StreamStore', () => {
  it('records INSERT, MODIFY and REMOVE with images, and nothing for writes that change nothing', () => {
    // Prepare
    const { store, shards, iterator, read } = setup({ now: () => 1_700_000_000_500 });

    // Act
    store.append('orders', { keys: key('a'), oldImage: null, newImage: item('a', 1) });
    store.append('orders', { keys: key('a'), oldImage: item('a', 1), newImage: item('a', 1) });
    store.append('orders', { keys: key('a'), oldImage: item('a', 1), newImage: item('a', 2) });
    store.append('orders', { keys: key('a'), oldImage: item('a', 2), newImage: null });
    store.append('orders', { keys: key('b'), oldImage: null, newImage: null });
    const [shard] = shards();
    const { Records } = read(iterator(shard?.ShardId ?? '', 'TRIM_HORIZON'));

    // Assess
    expect(Records.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
    expect(Records[1]?.dynamodb).toMatchObject({
      Keys: key('a'),
      OldImage: item('a', 1),
      NewImage: item('a', 2),
      ApproximateCreationDateTime: 1_700_000_000,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    });
    expect(Records[0]?.dynamodb.OldImage).toBeUndefined();
    expect(Records[2]?.dynamodb.NewImage).toBeUndefined();
    expect(Records.every((r) => r.dynamodb.SizeBytes > 0)).toBe(true);
    const seqs = Records.map((r) => BigInt(r.dynamodb.SequenceNumber));
    expect([...seqs].sort((x, y) => (x < y ? -1 : 1))).toEqual(seqs);
  });

  it('keeps only what the stream view type asks for', () => {
    // Prepare
    const keysOnly = setup({}, 'KEYS_ONLY');

    // Act
    keysOnly.store.append('orders', {
      keys: key('a'),
      oldImage: item('a', 1),
      newImage: item('a', 2),
    });
    const [shard] = keysOnly.shards();
    const [record] = keysOnly.read(keysOnly.iterator(shard?.ShardId ?? '', 'TRIM_HORIZON')).Records;

    // Assess
    expect(record?.dynamodb.Keys).toEqual(key('a'));
    expect(record?.dynamodb.NewImage).toBeUndefined();
    expect(record?.dynamodb.OldImage).toBeUndefined();
  });

  it('rolls a shard over into a child after N records and ends the drained parent', () => {
    // Prepare
    const { store, shards, iterator, read } = setup({ shardRolloverRecords: 2 });
    for (let i = 1; i <= 5; i++) {
      store.append('orders', {
        keys: key('a'),
        oldImage: i === 1 ? null : item('a', i - 1),
        newImage: item('a', i),
      });
    }

    // Act
    const listed = shards();
    const pages = listed.map((s) => read(iterator(s.ShardId, 'TRIM_HORIZON')));

    // Assess
    expect(listed).toHaveLength(3);
    expect(listed[1]?.ParentShardId).toBe(listed[0]?.ShardId);
    expect(listed[2]?.ParentShardId).toBe(listed[1]?.ShardId);
    expect(listed[0]?.ParentShardId).toBeUndefined();
    expect(listed[0]?.SequenceNumberRange.EndingSequenceNumber).toBe(
      pages[0]?.Records[1]?.dynamodb.SequenceNumber,
    );
    expect(listed[2]?.SequenceNumberRange.EndingSequenceNumber).toBeUndefined();
    expect(pages.map((p) => p.Records.length)).toEqual([2, 2, 1]);
    expect(pages.map((p) => p.NextShardIterator === undefined)).toEqual([true, true, false]);
  });

  it('positions iterators at, after, latest and at the trim horizon, and pages by Limit', () => {
    // Prepare
    const { store, shards, iterator, read } = setup();
    const seqs = [1, 2, 3].map((i) =>
      store.append('orders', { keys: key(`k${i}`), oldImage: null, newImage: item(`k${i}`, i) }),
    );
    const shardId = shards()[0]?.ShardId ?? '';
    const ids = (it: string, limit?: number) =>
      read(it, limit).Records.map((r) => (r.dynamodb.Keys as { id: { S: string } }).id.S);

    // Act
    const at = ids(iterator(shardId, 'AT_SEQUENCE_NUMBER', seqs[1] ?? ''));
    const after = ids(iterator(shardId, 'AFTER_SEQUENCE_NUMBER', seqs[1] ?? ''));
    const latestIterator = iterator(shardId, 'LATEST');
    store.append('orders', { keys: key('k4'), oldImage: null, newImage: item('k4', 4) });
    const latest = ids(latestIterator);
    const firstPage = read(iterator(shardId, 'TRIM_HORIZON'), 2);
    const secondPage = ids(firstPage.NextShardIterator ?? '');

    // Assess
    expect(at).toEqual(['k2', 'k3']);
    expect(after).toEqual(['k3']);
    expect(latest).toEqual(['k4']);
    expect(firstPage.Records).toHaveLength(2);
    expect(secondPage).toEqual(['k3', 'k4']);
  });

  it('expires iterators after their time to live', () => {
    // Prepare
    let now = 1_000_000;
    const { shards, iterator, read } = setup({ iteratorTtlMs: 1000, now: () => now });
    const it = iterator(shards()[0]?.ShardId ?? '', 'TRIM_HORIZON');
    now += 1001;

    // Act
    const error = apiError(() => read(it));

    // Assess
    expect(error.type).toBe('ExpiredIteratorException');
    expect(error.body().__type).toMatch(/#ExpiredIteratorException$/);
  });

  it('answers TrimmedDataAccessException for positions before the trim horizon', () => {
    // Prepare
    const { store, shards, iterator, read } = setup();
    const first =
      store.append('orders', { keys: key('a'), oldImage: null, newImage: item('a', 1) }) ?? '';
    const shardId = shards()[0]?.ShardId ?? '';
    const old = iterator(shardId, 'TRIM_HORIZON');
    store.append('orders', { keys: key('b'), oldImage: null, newImage: item('b', 1) });
    store.trimAll();

    // Act
    const stale = apiError(() => read(old));
    const atTrimmed = apiError(() => iterator(shardId, 'AT_SEQUENCE_NUMBER', first));
    const fromHorizon = read(iterator(shardId, 'TRIM_HORIZON'));

    // Assess
    expect(stale.type).toBe('TrimmedDataAccessException');
    expect(atTrimmed.type).toBe('TrimmedDataAccessException');
    expect(fromHorizon.Records).toEqual([]);
  });

  it('rejects unknown streams and shards, bad iterators and a second enabled stream', () => {
    // Prepare
    const { store, arn } = setup();

    // Act
    const errors = [
      apiError(() => describeStream(store, { StreamArn: `${arn}x` })),
      apiError(() =>
        getShardIterator(store, { StreamArn: arn, ShardId: 'nope', ShardIteratorType: 'LATEST' }),
      ),
      apiError(() => getRecords(store, { ShardIterator: 'garbage' })),
      apiError(() => store.enable(table, 'KEYS_ONLY')),
      apiError(() => getRecords(store, { ShardIterator: 'x', Limit: 1001 })),
    ];

    // Assess
    expect(errors.map((e) => e.type)).toEqual([
      'ResourceNotFoundException',
      'ResourceNotFoundException',
      'ValidationException',
      'ValidationException',
      'ValidationException',
    ]);
  });

  it('lists streams per table and pages shards, filtering children of a shard', () => {
    // Prepare
    const { store, arn } = setup();
    const children = [store.rollover('orders'), store.rollover('orders')];
    store.disable('orders');
    const second = store.enable(table, 'NEW_IMAGE');

    // Act
    const streams = listStreams(store, { TableName: 'orders' }).Streams as { StreamArn: string }[];
    const page = describeStream(store, { StreamArn: arn, Limit: 2 }).StreamDescription as {
      Shards: Shard[];
      LastEvaluatedShardId?: string;
      StreamStatus: string;
    };
    const rest = describeStream(store, {
      StreamArn: arn,
      ExclusiveStartShardId: page.LastEvaluatedShardId,
    }).StreamDescription as { Shards: Shard[] };
    const childOfFirst = describeStream(store, {
      StreamArn: arn,
      ShardFilter: { Type: 'CHILD_SHARDS', ShardId: page.Shards[0]?.ShardId },
    }).StreamDescription as { Shards: Shard[] };

    // Assess
    expect(streams.map((s) => s.StreamArn)).toEqual([arn, second.arn]);
    expect(page.StreamStatus).toBe('DISABLED');
    expect(page.Shards.map((s) => s.ShardId)[1]).toBe(children[0]);
    expect(rest.Shards.map((s) => s.ShardId)).toEqual([children[1]]);
    expect(rest.Shards[0]?.SequenceNumberRange.EndingSequenceNumber).toBeDefined();
    expect(childOfFirst.Shards.map((s) => s.ShardId)).toEqual([children[0]]);
  });
});
