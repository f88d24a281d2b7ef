import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { DataError, RetriableError } from '../../../../../../shared/connect/errors.js';
import type { SourceOffset, SourceRecord } from '../../../../../../shared/connect/records.js';
import { Schemas } from '../../../../../../shared/connect/schema.js';
import { S3SourceTask } from '../../../../../../shared/plugins/connectors/s3-source/s3-source-task.js';
import { committed, FakeClock, FakeS3, gzip, lines, taskContext } from './fakes.js';

interface Started {
  readonly task: S3SourceTask;
  readonly s3: FakeS3;
  readonly clock: FakeClock;
}

async function started(
  s3: FakeS3,
  props: Record<string, string> = {},
  stored: ReadonlyMap<string, SourceOffset> = new Map(),
  clock = new FakeClock(),
): Promise<Started> {
  const task = new S3SourceTask({ clock, createClient: () => s3 });
  const all = { 's3.bucket.name': 'bucket', topic: 'out', ...props };
  await task.start(all, taskContext(all, stored));
  return { task, s3, clock };
}

/** Polls until a poll returns null. */
async function drain(task: S3SourceTask): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for (let batch = await task.poll(); batch !== null; batch = await task.poll()) {
    records.push(...batch);
  }
  return records;
}

describe('S3SourceTask', () => {
  it('emits every line of every object once, objects in key order, lines in order', async () => {
    // Prepare
    const s3 = new FakeS3()
      .put('b.txt', 'b1\r\nb2\n')
      .put('a.txt', 'a1\n\na3')
      .put('c/d.txt', 'd1\n');
    const { task } = await started(s3);

    // Act
    const records = await drain(task);

    // Assess
    expect(lines(records)).toEqual([
      'a.txt:1="a1"',
      'a.txt:2=""',
      'a.txt:3="a3"',
      'b.txt:1="b1"',
      'b.txt:2="b2"',
      'c/d.txt:1="d1"',
    ]);
  });

  it('builds text records with partition, offset, headers, schema and LastModified', async () => {
    // Prepare
    const s3 = new FakeS3().put('logs/a.txt', 'first\nsecond\n', 1_650_000_000_000);
    const { task } = await started(s3, { 's3.prefix': 'logs/' });

    // Act
    const records = (await task.poll()) ?? [];

    // Assess
    const [first, second] = records;
    expect(first?.topic).toBe('out');
    expect(first?.key).toBeNull();
    expect(first?.keySchema).toBeNull();
    expect(first?.valueSchema).toBe(Schemas.OPTIONAL_STRING);
    expect(first?.value).toBe('first');
    expect(first?.timestamp).toBe(1_650_000_000_000);
    expect(first?.sourcePartition).toEqual({ bucket: 'bucket', key: 'logs/a.txt' });
    expect(first?.sourceOffset).toEqual({ position: 1, eof: false });
    expect(second?.sourceOffset).toEqual({ position: 2, eof: true });
    expect([...(first?.headers ?? [])].map((h) => [h.key, h.value])).toEqual([
      ['s3.bucket', 'bucket'],
      ['s3.key', 'logs/a.txt'],
      ['s3.line', '1'],
    ]);
  });

  it('parses jsonl lines into schemaless values and skips blank lines', async () => {
    // Prepare
    const s3 = new FakeS3().put('a.jsonl', '{"id":1,"tags":["x"]}\n   \n[1,2]\n"s"\nnull\n\n\n');
    const { task } = await started(s3, { format: 'jsonl' });

    // Act
    const records = (await task.poll()) ?? [];

    // Assess
    expect(records.map((r) => r.value)).toEqual([{ id: 1, tags: ['x'] }, [1, 2], 's', null]);
    expect(records.every((r) => r.valueSchema === null)).toBe(true);
    expect(records.map((r) => r.sourceOffset)).toEqual([
      { position: 1, eof: false },
      { position: 3, eof: false },
      { position: 4, eof: false },
      { position: 5, eof: true },
    ]);
  });

  it('reads gzip objects by their .gz suffix', async () => {
    // Prepare
    const s3 = new FakeS3().put('a.jsonl.gz', await gzip('{"n":1}\n{"n":2}\n'));
    const { task } = await started(s3, { format: 'jsonl' });

    // Act
    const records = await drain(task);

    // Assess
    expect(records.map((r) => r.value)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('returns at most batch.max.rows records per poll, across objects', async () => {
    // Prepare
    const s3 = new FakeS3().put('a', '1\n2\n3\n').put('b', '4\n5\n');
    const { task } = await started(s3, { 'batch.max.rows': '2' });

    // Act
    const batches = [await task.poll(), await task.poll(), await task.poll(), await task.poll()];

    // Assess
    expect(batches.map((b) => b?.map((r) => r.value) ?? null)).toEqual([
      ['1', '2'],
      ['3', '4'],
      ['5'],
      null,
    ]);
  });

  it('resumes each object after its stored position and skips completed objects', async () => {
    // Prepare
    const s3 = new FakeS3().put('a', 'a1\na2\na3\n').put('b', 'b1\n').put('c', 'c1\nc2\n');
    const stored = new Map<string, SourceOffset>([
      ['a', { position: 2, eof: false }],
      ['b', { position: 1, eof: true }],
    ]);
    const { task } = await started(s3, {}, stored);

    // Act
    const records = await drain(task);

    // Assess
    expect(lines(records)).toEqual(['a:3="a3"', 'c:1="c1"', 'c:2="c2"']);
    expect(s3.gets).toEqual(['a', 'c']);
  });

  it('never repeats or loses a line when restarted from committed offsets (property)', async () => {
    // Prepare
    const s3 = new FakeS3('bucket', 1000, 3)
      .put('a', '"a1"\n"a2"\n"a3"\n"a4"\n')
      .put('b/x.jsonl', '1\n\n2\n3')
      .put('b/y', '{"y":1}\r\n{"y":2}\n');
    const everything = lines(await drain((await started(s3, { format: 'jsonl' })).task));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 5 }),
        async (batch, polls) => {
          const props = { format: 'jsonl', 'batch.max.rows': String(batch) };
          const first = (await started(s3, props)).task;
          const before: SourceRecord[] = [];
          for (let i = 0; i < polls; i++) before.push(...((await first.poll()) ?? []));
          await first.stop();

          // Act
          const after = await drain((await started(s3, props, committed(before))).task);

          // Assess
          expect([...lines(before), ...lines(after)]).toEqual(everything);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('lists no more often than s3.poll.interval.ms and picks up new objects then', async () => {
    // Prepare
    const s3 = new FakeS3().put('a', 'a1\n');
    const { task, clock } = await started(s3, { 's3.poll.interval.ms': '5000' });
    await drain(task);
    const listsAfterFirstCycle = s3.lists;
    s3.put('b', 'b1\n');

    // Act
    clock.advance(4999);
    const tooEarly = await task.poll();
    clock.advance(1);
    const due = await task.poll();

    // Assess
    expect(tooEarly).toBeNull();
    expect(s3.lists).toBeGreaterThan(listsAfterFirstCycle);
    expect(lines(due)).toEqual(['b:1="b1"']);
    expect(s3.gets).toEqual(['a', 'b']);
  });

  it('lists only its prefixes, plus the root objects when asked', async () => {
    // Prepare
    const s3 = new FakeS3()
      .put('app/top.txt', 'top\n')
      .put('app/a/1', 'a\n')
      .put('app/b/1', 'b\n')
      .put('other/1', 'other\n');
    const props = { 's3.prefix': 'app/', 'task.prefixes': 'app/b/', 'task.root.objects': 'true' };

    // Act
    const records = await drain((await started(s3, props)).task);

    // Assess
    expect(lines(records)).toEqual(['app/b/1:1="b"', 'app/top.txt:1="top"']);
  });

  it('ignores empty objects and does not reopen an object that yielded nothing', async () => {
    // Prepare
    const s3 = new FakeS3().put('dir/', '').put('blank.jsonl', '\n \n');
    const { task, clock } = await started(s3, { format: 'jsonl', 's3.poll.interval.ms': '10' });

    // Act
    const first = await drain(task);
    clock.advance(10);
    const second = await drain(task);

    // Assess
    expect(first).toEqual([]);
    expect(second).toEqual([]);
    expect(s3.gets).toEqual(['blank.jsonl']);
  });

  it('returns the records before a malformed JSON line, then fails on it, then continues', async () => {
    // Prepare
    const s3 = new FakeS3().put('a.jsonl', '{"n":1}\n{oops\n{"n":3}\n');
    const { task } = await started(s3, { format: 'jsonl' });

    // Act
    const before = await task.poll();
    const failure = await task.poll().catch((error: unknown) => error);
    const after = await task.poll();

    // Assess
    expect(before?.map((r) => r.value)).toEqual([{ n: 1 }]);
    expect(failure).toBeInstanceOf(DataError);
    expect(String(failure)).toContain('Line 2 of s3://bucket/a.jsonl is not valid JSON');
    expect(after?.map((r) => [r.value, r.sourceOffset])).toEqual([
      [{ n: 3 }, { position: 3, eof: true }],
    ]);
  });

  it('fails again at a malformed line after a restart from the committed offsets', async () => {
    // Prepare
    const s3 = new FakeS3().put('a.jsonl', '{"n":1}\n{oops\n');
    const first = (await started(s3, { format: 'jsonl' })).task;
    const before = (await first.poll()) ?? [];
    await first.stop();
    const restarted = (await started(s3, { format: 'jsonl' }, committed(before))).task;

    // Act
    const failure = restarted.poll();

    // Assess
    await expect(failure).rejects.toThrow(/Line 2 of s3:\/\/bucket\/a.jsonl/);
  });

  it('fails retriably when S3 fails and reopens the object without duplicates', async () => {
    // Prepare
    const s3 = new FakeS3('bucket', 1000, 4).put('a', 'a1\na2\na3\na4\n');
    s3.bodyFailures.set('a', 6);
    const { task } = await started(s3, { 'batch.max.rows': '10' });

    // Act
    const partial = await task.poll();
    const failure = await task.poll().catch((error: unknown) => error);
    const rest = await drain(task);

    // Assess
    expect(lines(partial)).toEqual(['a:1="a1"']);
    expect(failure).toBeInstanceOf(RetriableError);
    expect(lines(rest)).toEqual(['a:2="a2"', 'a:3="a3"', 'a:4="a4"']);
  });

  it('fails retriably when GetObject fails and retries the same object next poll', async () => {
    // Prepare
    const s3 = new FakeS3().put('a', 'a1\n');
    s3.getFailures.push(new RetriableError('SlowDown'));
    const { task } = await started(s3);

    // Act
    const failure = task.poll();

    // Assess
    await expect(failure).rejects.toBeInstanceOf(RetriableError);
    expect(lines(await task.poll())).toEqual(['a:1="a1"']);
  });

  it('fails with DataError on an invalid gzip object and moves on to the next object', async () => {
    // Prepare
    const s3 = new FakeS3().put('a.gz', 'not gzip at all\n').put('b', 'b1\n');
    const { task } = await started(s3);

    // Act
    const failure = await task.poll().catch((error: unknown) => error);
    const next = await drain(task);

    // Assess
    expect(failure).toBeInstanceOf(DataError);
    expect(lines(next)).toEqual(['b:1="b1"']);
  });

  it('fails with DataError on a malformed stored offset', async () => {
    // Prepare
    const s3 = new FakeS3().put('a', 'a1\n');
    const stored = new Map<string, SourceOffset>([['a', { position: 'x' }]]);
    const { task } = await started(s3, {}, stored);

    // Act
    const poll = task.poll();

    // Assess
    await expect(poll).rejects.toThrow(/Invalid S3 source offset/);
  });

  it('returns null after stop and releases the client', async () => {
    // Prepare
    const s3 = new FakeS3().put('a', 'a1\na2\n');
    const { task } = await started(s3, { 'batch.max.rows': '1' });
    await task.poll();

    // Act
    await task.stop();

    // Assess
    expect(await task.poll()).toBeNull();
    expect(s3.destroyed).toBe(true);
  });

  it('resolves a pending poll with null when stopped during GetObject', async () => {
    // Prepare
    const s3 = new FakeS3().put('a', 'a1\n');
    s3.hold = new Promise<void>(() => {});
    const { task } = await started(s3);
    const poll = task.poll();
    await vi.waitFor(() => expect(s3.gets).toEqual(['a']));

    // Act
    await task.stop();

    // Assess
    expect(await poll).toBeNull();
  });
});
