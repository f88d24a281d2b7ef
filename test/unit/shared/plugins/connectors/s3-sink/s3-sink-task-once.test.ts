import { describe, expect, it } from 'vitest';
import type { SinkRecord } from '../../../../../../shared/connect/records.js';
import { S3SinkTask } from '../../../../../../shared/plugins/connectors/s3-sink/s3-sink-task.js';
import { currentOffsets, FakeClock, FakeS3Sink, sinkContext, sinkRecord, textOf } from './fakes.js';

/** The default write mode, once: final keys written once, complete; records staged meanwhile. */

const props = { 's3.bucket.name': 'bucket', 'flush.size': '4', 'format.class': 'json' };

async function startTask(s3: FakeS3Sink, overrides: Record<string, string> = {}) {
  const task = new S3SinkTask({ clock: new FakeClock(), createClient: () => s3 });
  const taskProps = { ...props, ...overrides };
  await task.start(taskProps, sinkContext(taskProps));
  return task;
}

function records(offsets: readonly number[], value = (o: number): unknown => ({ n: o })) {
  return offsets.map((o) => sinkRecord({ kafkaOffset: o, value: value(o), timestamp: o }));
}

async function deliver(task: S3SinkTask, batch: readonly SinkRecord[], next?: number) {
  await task.put(batch);
  const offsets = currentOffsets(batch);
  if (next !== undefined) offsets.set('orders-0', next);
  return task.preCommit(offsets);
}

const lines = (...offsets: number[]) => offsets.map((o) => `{"n":${o}}\n`).join('');
const final = (start: number) =>
  `topics/orders/partition=0/orders+0+${String(start).padStart(20, '0')}.json`;
const staged = (start: number) => `_staging/orders+0/${final(start)}`;

async function contents(s3: FakeS3Sink): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [key, o] of [...s3.objects].sort(([a], [b]) => a.localeCompare(b))) {
    out[key] = await textOf(o.bytes);
  }
  return out;
}

describe('S3SinkTask, s3.write.mode=once', () => {
  it('stages a filling bucket and writes its final key once, complete, when a batch completes it', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3);

    // Act: batches of 3 fill buckets of 4 offsets
    await deliver(task, records([0, 1, 2]));
    const afterFirst = await contents(s3);
    await deliver(task, records([3, 4, 5]));

    // Assess
    expect(afterFirst).toEqual({ [staged(0)]: lines(0, 1, 2) });
    expect(await contents(s3)).toEqual({ [final(0)]: lines(0, 1, 2, 3), [staged(4)]: lines(4, 5) });
    expect(s3.objects.get(final(0))?.metadata).toMatchObject({
      'first-offset': '0',
      'last-offset': '3',
      'record-count': '4',
    });
    expect(s3.writes.get(final(0))).toBe(1);
    const finalWrites = s3.calls.filter((c) => c.key === final(0) && c.kind === 'put');
    expect(finalWrites).toEqual([{ kind: 'put', key: final(0), condition: { kind: 'create' } }]);
  });

  it('writes a bucket a batch holds whole straight to its final key, reading no staging object', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3);

    // Act
    await deliver(task, records([0, 1, 2, 3, 4]));

    // Assess
    expect(await contents(s3)).toEqual({ [final(0)]: lines(0, 1, 2, 3), [staged(4)]: lines(4) });
    expect(s3.count('get')).toBe(0);
  });

  it('completes a bucket on the next offset past its end, even through an offset gap', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3);
    await deliver(task, records([0, 1]));

    // Act: offsets 2-3 are transaction markers; the runtime's next offset is 4
    await deliver(task, [], 4);

    // Assess
    expect(await contents(s3)).toEqual({ [final(0)]: lines(0, 1) });
  });

  it('repairs a crash between the final write and the staging delete without writing the final again', async () => {
    // Prepare: the final is written, the staging delete fails
    const s3 = new FakeS3Sink();
    const task = await startTask(s3);
    await deliver(task, records([0, 1]));
    s3.failures.set('delete', [new Error('crash')]);
    await expect(deliver(task, records([2, 3, 4]))).rejects.toThrow();
    expect(Object.keys(await contents(s3))).toContain(staged(0));

    // Act: a cold task gets the redelivery, cut differently
    const cold = await startTask(s3);
    await deliver(cold, records([2]));
    await deliver(cold, records([3, 4, 5]));

    // Assess
    expect(await contents(s3)).toEqual({ [final(0)]: lines(0, 1, 2, 3), [staged(4)]: lines(4, 5) });
    expect(s3.writes.get(final(0))).toBe(1);
  });

  it('seals the objects of a complete bucket that the batch holds no record for (listing)', async () => {
    // Prepare: a field partitioner spreads bucket 0 over two directories
    const s3 = new FakeS3Sink();
    const overrides = { 'partitioner.class': 'field', 'partition.field.name': 'r' };
    const task = await startTask(s3, overrides);
    const region = (o: number) => ({ r: o === 0 ? 'eu' : 'us', n: o });
    await deliver(task, records([0, 1], region));

    // Act: the completing batch has no record for r=eu
    const cold = await startTask(s3, overrides);
    await deliver(cold, records([2, 3, 4], region));

    // Assess
    const dir = (r: string, start: number) =>
      `topics/orders/r=${r}/orders+0+${String(start).padStart(20, '0')}.json`;
    expect(await contents(s3)).toEqual({
      [`_staging/orders+0/${dir('us', 4)}`]: '{"r":"us","n":4}\n',
      [dir('eu', 0)]: '{"r":"eu","n":0}\n',
      [dir('us', 0)]: '{"r":"us","n":1}\n{"r":"us","n":2}\n{"r":"us","n":3}\n',
    });
    expect(s3.count('list')).toBe(1);
  });

  it('keeps the idle tail staged until a later offset arrives', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3);

    // Act
    await deliver(task, records([0, 1, 2, 3, 4, 5]));
    await deliver(task, records([6]));

    // Assess
    expect(await contents(s3)).toEqual({
      [final(0)]: lines(0, 1, 2, 3),
      [staged(4)]: lines(4, 5, 6),
    });
  });

  it('appends to a final key written under a smaller flush.size rather than losing records', async () => {
    // Prepare: flush.size 2 sealed offsets 0-1 at key 0 and staged 2 (committed up to 2)
    const s3 = new FakeS3Sink();
    await deliver(await startTask(s3, { 'flush.size': '2' }), records([0, 1, 2]));
    const task = await startTask(s3);

    // Act: flush.size 4 now covers offsets 0-3 at key 0; the runtime resumes at 3
    await deliver(task, records([3, 4]));

    // Assess: each record once; the old staged bucket is sealed under its old key
    expect(await contents(s3)).toEqual({
      [staged(4)]: lines(4),
      [final(0)]: lines(0, 1, 3),
      [final(2)]: lines(2),
    });
  });

  it('writes every batch in place with s3.write.mode=progressive', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3, { 's3.write.mode': 'progressive' });

    // Act
    await deliver(task, records([0, 1]));
    await deliver(task, records([2, 3, 4]));

    // Assess
    expect(await contents(s3)).toEqual({ [final(0)]: lines(0, 1, 2, 3), [final(4)]: lines(4) });
    expect(s3.writes.get(final(0))).toBe(2);
  });
});
