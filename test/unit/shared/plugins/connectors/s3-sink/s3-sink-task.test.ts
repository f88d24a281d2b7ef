import { describe, expect, it } from 'vitest';
import {
  ConnectError,
  DataError,
  IllegalStateError,
  RetriableError,
} from '../../../../../../shared/connect/errors.js';
import type { SinkRecord } from '../../../../../../shared/connect/records.js';
import { S3SinkTask } from '../../../../../../shared/plugins/connectors/s3-sink/s3-sink-task.js';
import {
  currentOffsets,
  FakeClock,
  FakeS3Sink,
  RecordingReporter,
  sdkError,
  sinkContext,
  sinkRecord,
  textOf,
} from './fakes.js';

/** These tests pin the progressive writes (each batch rewrites the objects it touches); `s3-sink-task-once.test.ts` the default, once. */
const props = {
  's3.bucket.name': 'bucket',
  'flush.size': '3',
  'format.class': 'json',
  's3.write.mode': 'progressive',
};

async function startTask(
  s3: FakeS3Sink,
  overrides: Record<string, string> = {},
  options: { reporter?: RecordingReporter; partSize?: number } = {},
): Promise<S3SinkTask> {
  const task = new S3SinkTask({
    clock: new FakeClock(),
    createClient: () => s3,
    ...(options.partSize === undefined ? {} : { partSize: options.partSize }),
  });
  const taskProps = { ...props, ...overrides };
  await task.start(taskProps, sinkContext(taskProps, options.reporter ?? null));
  return task;
}

/** Records of `orders` partition `partition` at `offsets`, with value `{"n": offset}`. */
function records(partition: number, offsets: readonly number[]): SinkRecord[] {
  return offsets.map((o) =>
    sinkRecord({ kafkaPartition: partition, kafkaOffset: o, value: { n: o }, timestamp: o }),
  );
}

async function deliver(task: S3SinkTask, batch: readonly SinkRecord[]) {
  await task.put(batch);
  return task.preCommit(currentOffsets(batch));
}

async function contents(s3: FakeS3Sink, gzip = false): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [key, o] of [...s3.objects].sort(([a], [b]) => a.localeCompare(b))) {
    out[key] = await textOf(o.bytes, gzip);
  }
  return out;
}

const lines = (...offsets: number[]) => offsets.map((o) => `{"n":${o}}\n`).join('');
const key = (p: number, start: number) =>
  `topics/orders/partition=${p}/orders+${p}+${String(start).padStart(20, '0')}.json`;

describe('S3SinkTask', () => {
  it('writes offset-aligned objects per partition and returns the offsets once durable', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3);
    const batch = [...records(0, [0, 1, 2, 3, 4, 5, 6]), ...records(1, [10, 11])];

    // Act
    const durable = await deliver(task, batch);

    // Assess
    expect(durable).toEqual(
      new Map([
        ['orders-0', 7],
        ['orders-1', 12],
      ]),
    );
    expect(await contents(s3)).toEqual({
      [key(0, 0)]: lines(0, 1, 2),
      [key(0, 3)]: lines(3, 4, 5),
      [key(0, 6)]: lines(6),
      [key(1, 9)]: lines(10, 11),
    });
  });

  it('appends the next batch to the open bucket and skips what a redelivery repeats', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3);
    await deliver(task, records(0, [0, 1]));

    // Act
    await deliver(task, records(0, [0, 1, 2, 3]));
    await deliver(task, records(0, [2, 3, 4]));

    // Assess
    expect(await contents(s3)).toEqual({
      [key(0, 0)]: lines(0, 1, 2),
      [key(0, 3)]: lines(3, 4),
    });
    expect(s3.objects.get(key(0, 3))?.metadata).toMatchObject({
      'first-offset': '3',
      'last-offset': '4',
      'record-count': '2',
    });
  });

  it('writes gzip byte arrays with the configured extension', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3, {
      'format.class': 'io.confluent.connect.s3.format.bytearray.ByteArrayFormat',
      's3.compression.type': 'gzip',
      'format.bytearray.separator': '\\r\\n',
      'topics.dir': 'raw',
    });
    const encoder = new TextEncoder();

    // Act
    await deliver(
      task,
      [0, 1].map((o) => sinkRecord({ kafkaOffset: o, value: encoder.encode(`line ${o}`) })),
    );

    // Assess
    expect(await contents(s3, true)).toEqual({
      'raw/orders/partition=0/orders+0+00000000000000000000.bin.gz': 'line 0\r\nline 1\r\n',
    });
  });

  it('spreads one bucket over the directories of the field partitioner', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3, {
      'partitioner.class': 'FieldPartitioner',
      'partition.field.name': 'region',
    });
    const batch = ['eu', 'us', 'eu'].map((region, o) =>
      sinkRecord({ kafkaOffset: o, value: { region, o } }),
    );

    // Act
    await deliver(task, batch);

    // Assess
    expect(await contents(s3)).toEqual({
      'topics/orders/region=eu/orders+0+00000000000000000000.json':
        '{"region":"eu","o":0}\n{"region":"eu","o":2}\n',
      'topics/orders/region=us/orders+0+00000000000000000000.json': '{"region":"us","o":1}\n',
    });
  });

  it('names files by the consumed coordinates when a transformation renamed the topic', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3);
    const renamed = sinkRecord({ kafkaOffset: 4, value: 1 }).newRecord({ topic: 'archive' });

    // Act
    await deliver(task, [renamed]);

    // Assess
    expect([...s3.objects.keys()]).toEqual([
      'topics/archive/partition=0/orders+0+00000000000000000003.json',
    ]);
  });

  it('reports records it cannot encode and writes the others', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const reporter = new RecordingReporter();
    const task = await startTask(s3, {}, { reporter });
    const batch = [
      sinkRecord({ kafkaOffset: 0, value: 'ok' }),
      sinkRecord({ kafkaOffset: 1, value: null }),
      sinkRecord({ kafkaOffset: 2, value: 'fine' }),
    ];

    // Act
    const durable = await deliver(task, batch);

    // Assess
    expect(
      reporter.reported.map((r) => [r.record.kafkaOffset, r.error instanceof DataError]),
    ).toEqual([[1, true]]);
    expect(durable.get('orders-0')).toBe(3);
    expect(await contents(s3)).toEqual({ [key(0, 0)]: 'ok\nfine\n' });
  });

  it('fails put with the DataError when no reporter is configured or the reporter refuses', async () => {
    // Prepare
    const bad = [sinkRecord({ kafkaOffset: 0, value: null })];
    const noReporter = await startTask(new FakeS3Sink());
    const refusing = await startTask(
      new FakeS3Sink(),
      {},
      { reporter: new RecordingReporter(true) },
    );

    // Act and Assess
    await expect(noReporter.put(bad)).rejects.toBeInstanceOf(DataError);
    await expect(refusing.put(bad)).rejects.toThrow('errors.tolerance=none');
  });

  it('skips null values with behavior.on.null.values=ignore', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3, { 'behavior.on.null.values': 'ignore' });

    // Act
    const durable = await deliver(task, [
      sinkRecord({ kafkaOffset: 0, value: null }),
      sinkRecord({ kafkaOffset: 1, value: 1 }),
    ]);

    // Assess
    expect(durable.get('orders-0')).toBe(2);
    expect(await contents(s3)).toEqual({ [key(0, 0)]: '1\n' });
  });

  it('throws instead of returning offsets when a write fails, and writes on a retried preCommit', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3);
    const batch = records(0, [0, 1, 2, 3]);
    await task.put(batch);
    s3.failures.set('put', [sdkError('InternalError', 500, 'server')]);

    // Act
    const failed = task.preCommit(currentOffsets(batch));
    await expect(failed).rejects.toBeInstanceOf(RetriableError);
    const retried = await task.preCommit(currentOffsets(batch));

    // Assess
    expect(retried.get('orders-0')).toBe(4);
    expect(await contents(s3)).toEqual({ [key(0, 0)]: lines(0, 1, 2), [key(0, 3)]: lines(3) });
  });

  it('fails non-retriably when access is denied, even if other writes failed retriably', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3);
    await task.put(records(0, [0, 3, 6]));
    s3.failures.set('put', [
      sdkError('SlowDown', 503, 'server'),
      sdkError('AccessDenied', 403, 'client'),
    ]);

    // Act
    const failed = task.preCommit(new Map([['orders-0', 7]]));

    // Assess
    await expect(failed).rejects.toThrow(ConnectError);
    await expect(failed).rejects.toMatchObject({ retriable: false });
  });

  it('drops the buffered tail when a warm task is given earlier offsets again', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3);
    await task.put(records(0, [0, 1, 2, 3, 4]));

    // Act
    const batch = records(0, [2, 3]);
    await task.put(batch);
    await task.preCommit(currentOffsets(batch));

    // Assess
    expect(await contents(s3)).toEqual({ [key(0, 0)]: lines(0, 1, 2), [key(0, 3)]: lines(3) });
  });

  it('forgets the records of closed partitions', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3);
    await task.put([...records(0, [0]), ...records(1, [0])]);

    // Act
    await task.close([{ topic: 'orders', partition: 1 }]);
    await task.preCommit(new Map([['orders-0', 1]]));

    // Assess
    expect([...s3.objects.keys()]).toEqual([key(0, 0)]);
  });

  it('streams large objects through multipart uploads below the internal part size', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3, { 'flush.size': '1000' }, { partSize: 64 });
    const offsets = Array.from({ length: 40 }, (_, i) => i);

    // Act
    await deliver(task, records(0, offsets.slice(0, 20)));
    await deliver(task, records(0, offsets.slice(15)));

    // Assess
    expect(s3.count('complete')).toBe(2);
    expect(s3.count('put')).toBe(0);
    expect(await contents(s3)).toEqual({ [key(0, 0)]: lines(...offsets) });
  });

  it('creates new objects and appends to objects it wrote, without reading them', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3);

    // Act
    await deliver(task, records(0, [0, 1]));
    const firstBatch = s3.calls.map((c) => c.kind);
    s3.calls.length = 0;
    await deliver(task, records(0, [2, 3]));

    // Assess
    expect(firstBatch).toEqual(['put']);
    expect(
      s3.calls.map(
        (c) => `${c.kind} ${c.condition?.kind} ${c.key === key(0, 0) ? 'first' : 'second'}`,
      ),
    ).toEqual(expect.arrayContaining(['put replace first', 'put create second']));
    expect(s3.count('get')).toBe(0);
    expect(await contents(s3)).toEqual({ [key(0, 0)]: lines(0, 1, 2), [key(0, 3)]: lines(3) });
  });

  it('keeps the records of an object another task instance created', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const first = await startTask(s3);
    await deliver(first, records(0, [0]));
    const second = await startTask(s3);

    // Act
    await deliver(second, records(0, [1, 2]));

    // Assess
    expect(await contents(s3)).toEqual({ [key(0, 0)]: lines(0, 1, 2) });
  });

  it('refuses data calls before start and releases the client on stop', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const unstarted = new S3SinkTask({ clock: new FakeClock(), createClient: () => s3 });
    const task = await startTask(s3);

    // Act
    await task.stop();

    // Assess
    await expect(unstarted.put([])).rejects.toBeInstanceOf(IllegalStateError);
    expect(s3.destroyed).toBe(true);
    expect(task.version()).toBe('0.1.0');
  });
});
