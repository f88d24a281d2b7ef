// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${topic} is the table.name.format placeholder, plain text here
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  ConnectError,
  DataError,
  IllegalStateError,
  RetriableError,
} from '../../../../../../shared/connect/errors.js';
import type { SinkRecord } from '../../../../../../shared/connect/records.js';
import { DynamoDbSinkTask } from '../../../../../../shared/plugins/connectors/dynamodb-sink/dynamodb-sink-task.js';
import {
  FakeDynamoDb,
  fakeDeps,
  networkError,
  ORDERS_TABLE,
  RecordingReporter,
  sdkError,
  sinkContext,
  sinkRecord,
} from './fakes.js';

interface Setup {
  readonly fake: FakeDynamoDb;
  readonly task: DynamoDbSinkTask;
  readonly reporter: RecordingReporter;
  readonly sleeps: number[];
}

async function started(
  props: Record<string, string> = {},
  withReporter = true,
  fake = new FakeDynamoDb().createTable(ORDERS_TABLE),
): Promise<Setup> {
  const sleeps: number[] = [];
  const reporter = new RecordingReporter();
  const task = new DynamoDbSinkTask(fakeDeps(fake, sleeps));
  const all = { 'table.name.format': 'orders', ...props };
  await task.start(all, sinkContext(all, withReporter ? reporter : null));
  return { fake, task, reporter, sleeps };
}

/** `id -> value.v` of the stored orders, markers shown as `deleted`. */
function view(fake: FakeDynamoDb, table = 'orders'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of fake.items(table)) {
    const id = item.id !== undefined && 'S' in item.id ? item.id.S : '?';
    const v = item.v;
    out[id] =
      item._kafka_deleted !== undefined
        ? 'deleted'
        : v !== undefined && 'N' in v
          ? Number(v.N)
          : null;
  }
  return out;
}

function upsert(key: string, v: number, kafkaOffset: number, kafkaPartition = 0): SinkRecord {
  return sinkRecord({ kafkaOffset, kafkaPartition, key, value: { v } });
}

function tombstone(key: string, kafkaOffset: number, kafkaPartition = 0): SinkRecord {
  return sinkRecord({ kafkaOffset, kafkaPartition, key, value: null });
}

describe('DynamoDbSinkTask.put', () => {
  it('writes each value as an item keyed by the record key', async () => {
    // Prepare
    const { fake, task } = await started();

    // Act
    await task.put([upsert('a', 1, 0), upsert('b', 2, 1)]);

    // Assess
    expect(view(fake)).toEqual({ a: 1, b: 2 });
    expect(task.stats()).toMatchObject({ applied: 2, stale: 0 });
  });

  it('collapses the records of one key in a batch to the latest', async () => {
    // Prepare
    const { fake, task } = await started();

    // Act
    await task.put([upsert('a', 1, 0), upsert('b', 1, 1), upsert('a', 2, 2), upsert('a', 3, 3)]);

    // Assess
    expect(fake.writes).toHaveLength(2);
    expect(view(fake)).toEqual({ a: 3, b: 1 });
    expect(task.stats()).toMatchObject({ applied: 2, superseded: 2 });
  });

  it('counts a redelivered batch as stale and leaves the table as it was', async () => {
    // Prepare
    const { fake, task } = await started();
    const batch = [upsert('a', 1, 0), upsert('b', 2, 1)];
    await task.put(batch);
    const before = fake.snapshot();

    // Act
    await task.put(batch);

    // Assess
    expect(fake.snapshot()).toEqual(before);
    expect(task.stats()).toMatchObject({ applied: 2, stale: 2 });
  });

  it('never lets an older record of the same partition overwrite a newer one', async () => {
    // Prepare
    const { fake, task } = await started();
    await task.put([upsert('a', 5, 5)]);

    // Act
    await task.put([upsert('a', 3, 3)]);

    // Assess
    expect(view(fake)).toEqual({ a: 5 });
    expect(task.stats().stale).toBe(1);
  });

  it('lets a record of another partition overwrite the item (last writer wins)', async () => {
    // Prepare
    const { fake, task } = await started();
    await task.put([upsert('a', 5, 5, 0)]);

    // Act
    await task.put([upsert('a', 1, 1, 1)]);

    // Assess
    expect(view(fake)).toEqual({ a: 1 });
  });

  it('replaces a deleted item by a marker that no older record can overwrite', async () => {
    // Prepare
    const { fake, task } = await started();
    await task.put([upsert('a', 1, 0), tombstone('a', 1)]);

    // Act
    await task.put([upsert('a', 1, 0)]);

    // Assess
    expect(view(fake)).toEqual({ a: 'deleted' });
    expect(fake.items('orders')[0]).toMatchObject({ _kafka_offset: { N: '1' } });
  });

  it('writes the key again after its marker when a newer record comes', async () => {
    // Prepare
    const { fake, task } = await started();
    await task.put([tombstone('a', 1)]);

    // Act
    await task.put([upsert('a', 9, 2)]);

    // Assess
    expect(view(fake)).toEqual({ a: 9 });
    expect(fake.items('orders')[0]).not.toHaveProperty('_kafka_deleted');
  });

  it('deletes the item with delete.mode=delete, and a replay converges', async () => {
    // Prepare
    const { fake, task } = await started({ 'delete.mode': 'delete' });
    await task.put([upsert('a', 1, 0)]);
    await task.put([tombstone('a', 1)]);

    // Act
    await task.put([upsert('a', 1, 0)]);
    const resurrected = view(fake);
    await task.put([tombstone('a', 1)]);

    // Assess
    expect(resurrected).toEqual({ a: 1 });
    expect(view(fake)).toEqual({});
  });

  it('skips tombstones when delete.enabled is false', async () => {
    // Prepare
    const { fake, task } = await started({ 'delete.enabled': 'false' });
    await task.put([upsert('a', 1, 0)]);

    // Act
    await task.put([tombstone('a', 1)]);

    // Assess
    expect(view(fake)).toEqual({ a: 1 });
    expect(task.stats().tombstonesSkipped).toBe(1);
  });

  it('reports records that cannot become items and writes the others', async () => {
    // Prepare
    const { fake, task, reporter } = await started();
    const bad = sinkRecord({ kafkaOffset: 1, key: 'b', value: 'not a map' });

    // Act
    await task.put([upsert('a', 1, 0), bad, upsert('c', 3, 2)]);

    // Assess
    expect(view(fake)).toEqual({ a: 1, c: 3 });
    expect(reporter.reported.map((r) => r.record)).toEqual([bad]);
    expect(reporter.reported[0]?.error).toBeInstanceOf(DataError);
  });

  it('fails the batch with DataError when no errant record reporter is configured', async () => {
    // Prepare
    const { task } = await started({}, false);
    const bad = sinkRecord({ kafkaOffset: 1, key: null, value: { v: 1 } });

    // Act
    const act = task.put([bad]);

    // Assess
    await expect(act).rejects.toThrow(DataError);
    await expect(act).rejects.toThrow('has a null key');
  });

  it('reports an item DynamoDB rejects and writes the previous record of the key instead', async () => {
    // Prepare
    const { fake, task, reporter } = await started();
    const poisoned = sinkRecord({ kafkaOffset: 1, key: 'a', value: { v: 2, poison: true } });

    // Act
    await task.put([upsert('a', 1, 0), poisoned]);

    // Assess
    expect(view(fake)).toEqual({ a: 1 });
    expect(reporter.reported.map((r) => r.record)).toEqual([poisoned]);
    expect(reporter.reported[0]?.error.message).toContain(
      'DynamoDB rejected the item of record orders-0@1 for table orders: ValidationException',
    );
    expect(task.stats()).toMatchObject({ applied: 1, reported: 1, superseded: 0 });
  });

  it('retries throttling and network errors with backoff, then writes', async () => {
    // Prepare
    const { fake, task, sleeps } = await started({ 'retry.backoff.ms': '10' });
    fake.failures.push(sdkError('ProvisionedThroughputExceededException'), networkError());

    // Act
    await task.put([upsert('a', 1, 0)]);

    // Assess
    expect(view(fake)).toEqual({ a: 1 });
    expect(sleeps).toEqual([5, 10]);
  });

  it('fails with RetriableError when the retries are spent, keeping what was written', async () => {
    // Prepare
    const { fake, task } = await started({ 'max.retries': '1', 'batch.size': '1' });
    await task.put([upsert('a', 1, 0)]);
    fake.failures.push(sdkError('InternalServerError', 500), sdkError('InternalServerError', 500));

    // Act
    const act = task.put([upsert('b', 2, 1), upsert('c', 3, 2)]);

    // Assess
    await expect(act).rejects.toThrow(RetriableError);
    expect(view(fake)).toEqual({ a: 1 });
  });

  it('fails with a non-retriable ConnectError when the table does not exist', async () => {
    // Prepare
    const { task } = await started({ 'table.name.format': 'missing' });

    // Act
    const act = task.put([upsert('a', 1, 0)]);

    // Assess
    await expect(act).rejects.toThrow('DynamoDB table missing does not exist');
    await expect(act).rejects.toSatisfy((e) => e instanceof ConnectError && !e.retriable);
  });

  it('routes records to the table of their topic, describing each table once', async () => {
    // Prepare
    const fake = new FakeDynamoDb()
      .createTable({ ...ORDERS_TABLE, table: 'kafka_orders' })
      .createTable({ ...ORDERS_TABLE, table: 'kafka_users' });
    const { task } = await started({ 'table.name.format': 'kafka_${topic}' }, true, fake);
    const user = sinkRecord({ topic: 'users', kafkaOffset: 0, key: 'u', value: { v: 7 } });

    // Act
    await task.put([upsert('a', 1, 0), user]);
    await task.put([upsert('b', 2, 1)]);

    // Assess
    expect(view(fake, 'kafka_orders')).toEqual({ a: 1, b: 2 });
    expect(view(fake, 'kafka_users')).toEqual({ u: 7 });
    expect(fake.describes).toBe(2);
  });

  it('describes a table again after a failed description', async () => {
    // Prepare
    const { fake, task } = await started({ 'max.retries': '0' });
    fake.failures.push(sdkError('ThrottlingException'));
    await expect(task.put([upsert('a', 1, 0)])).rejects.toThrow(RetriableError);

    // Act
    await task.put([upsert('a', 1, 0)]);

    // Assess
    expect(view(fake)).toEqual({ a: 1 });
    expect(fake.describes).toBe(2);
  });

  it('fails with ConfigError when pk.fields does not fit the table key', async () => {
    // Prepare
    const { task } = await started({ 'pk.fields': 'a,b' });

    // Act
    const act = task.put([upsert('a', 1, 0)]);

    // Assess
    await expect(act).rejects.toThrow(ConfigError);
  });

  it('keeps at most batch.size writes in flight', async () => {
    // Prepare
    const { fake, task } = await started({ 'batch.size': '3' });
    const records = Array.from({ length: 20 }, (_, i) => upsert(`k${i}`, i, i));

    // Act
    await task.put(records);

    // Assess
    expect(fake.writes).toHaveLength(20);
    expect(fake.maxInFlight).toBe(3);
  });
});

describe('DynamoDbSinkTask lifecycle', () => {
  it('returns the offsets it was given from preCommit', async () => {
    // Prepare
    const { task } = await started();
    await task.put([upsert('a', 1, 0)]);
    const offsets = new Map([['orders-0', 1]]);

    // Act
    const committed = await task.preCommit(offsets);

    // Assess
    expect(committed).toEqual(offsets);
  });

  it('refuses put before start and destroys the client on stop', async () => {
    // Prepare
    const fake = new FakeDynamoDb().createTable(ORDERS_TABLE);
    const fresh = new DynamoDbSinkTask(fakeDeps(fake));
    const { task } = await started({}, true, fake);

    // Act
    const act = fresh.put([]);
    await task.stop();

    // Assess
    await expect(act).rejects.toThrow(IllegalStateError);
    expect(fake.destroyed).toBe(true);
  });

  it('refuses an invalid config in start', async () => {
    // Prepare
    const task = new DynamoDbSinkTask(fakeDeps(new FakeDynamoDb()));

    // Act
    const act = task.start({ 'batch.size': '99' }, sinkContext({}));

    // Assess
    await expect(act).rejects.toThrow(ConfigError);
  });
});
