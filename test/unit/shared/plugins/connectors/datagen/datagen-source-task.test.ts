import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../../shared/connect/errors.js';
import type { SourceRecord } from '../../../../../../shared/connect/records.js';
import { DatagenSourceTask } from '../../../../../../shared/plugins/connectors/datagen/datagen-source-task.js';
import { parseDatagenRecordIdentity } from '../../../../../../shared/plugins/connectors/datagen/quickstarts.js';
import { FakeClock, positions, RecordingTransactionContext, taskContext } from './fakes.js';

async function started(
  props: Record<string, string>,
  options: {
    clock?: FakeClock;
    lastSeq?: ReadonlyMap<number, number>;
    transactions?: RecordingTransactionContext;
    sleep?: (ms: number) => Promise<void>;
  } = {},
): Promise<DatagenSourceTask> {
  const clock = options.clock ?? new FakeClock();
  const task = new DatagenSourceTask({
    clock,
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
  });
  const all = { 'kafka.topic': 'out', ...props };
  await task.start(all, taskContext(all, options.lastSeq, options.transactions ?? null));
  return task;
}

async function drain(task: DatagenSourceTask, polls: number): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for (let i = 0; i < polls; i++) records.push(...((await task.poll()) ?? []));
  return records;
}

/** The seqs of each partition, in emission order. */
function seqsByPartition(records: readonly SourceRecord[]): Map<number, number[]> {
  const byPartition = new Map<number, number[]>();
  for (const [partition, seq] of positions(records)) {
    byPartition.set(partition, [...(byPartition.get(partition) ?? []), seq]);
  }
  return byPartition;
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('DatagenSourceTask', () => {
  it('emits seq 1..n per partition with no gaps across polls', async () => {
    // Prepare
    const task = await started({ 'source.partitions': '3', 'records.per.poll': '7' });

    // Act
    const records = await drain(task, 9);

    // Assess
    expect(records).toHaveLength(63);
    expect(seqsByPartition(records)).toEqual(
      new Map([
        [0, range(1, 21)],
        [1, range(1, 21)],
        [2, range(1, 21)],
      ]),
    );
  });

  it('takes its partitions round-robin within a poll', async () => {
    // Prepare
    const task = await started({
      'source.partitions': '9',
      'task.partitions': '1,4,7',
      'records.per.poll': '5',
    });

    // Act
    const first = await task.poll();
    const second = await task.poll();

    // Assess
    expect(positions(first)).toEqual([
      [1, 1],
      [4, 1],
      [7, 1],
      [1, 2],
      [4, 2],
    ]);
    expect(positions(second)).toEqual([
      [7, 2],
      [1, 3],
      [4, 3],
      [7, 3],
      [1, 4],
    ]);
  });

  it('builds records with topic, string key, struct value, headers, offsets and the clock time', async () => {
    // Prepare
    const clock = new FakeClock(1_700_000_000_000);
    const task = await started({ quickstart: 'orders', 'records.per.poll': '1' }, { clock });

    // Act
    const [record] = (await task.poll()) ?? [];

    // Assess
    expect(record?.topic).toBe('out');
    expect(record?.kafkaPartition).toBeNull();
    expect(record?.keySchema?.type).toBe('string');
    expect(record?.key).toBe('1');
    expect(record?.valueSchema?.name).toBe('datagen.orders');
    expect(parseDatagenRecordIdentity(record?.value)).toEqual({ partition: 0, seq: 1 });
    expect(record?.sourcePartition).toEqual({ 'datagen.partition': 0 });
    expect(record?.sourceOffset).toEqual({ seq: 1 });
    expect(record?.headers.lastWithName('datagen.seq')?.value).toBe('1');
    expect(record?.headers.lastWithName('datagen.seq')?.schema?.type).toBe('string');
    expect(record?.headers.lastWithName('datagen.partition')?.value).toBe('0');
    expect(record?.timestamp).toBe(1_700_000_000_000);
  });

  it('resumes after the stored offsets and regenerates identical records after a crash', async () => {
    // Prepare: a first run emits 1..10 per partition, but only 1..4 and 1..6 were committed
    const props = { 'source.partitions': '2', 'records.per.poll': '4', seed: '42' };
    const firstRun = await drain(await started(props), 5);
    const restarted = await started(props, {
      lastSeq: new Map([
        [0, 4],
        [1, 6],
      ]),
    });

    // Act
    const secondRun = await drain(restarted, 2);

    // Assess
    expect(seqsByPartition(secondRun)).toEqual(
      new Map([
        [0, [5, 6, 7, 8]],
        [1, [7, 8, 9, 10]],
      ]),
    );
    for (const record of secondRun) {
      const twin = firstRun.find(
        (r) =>
          r.sourcePartition?.['datagen.partition'] ===
            record.sourcePartition?.['datagen.partition'] &&
          r.sourceOffset?.seq === record.sourceOffset?.seq,
      );
      expect(twin?.key).toBe(record.key);
      expect(twin?.value).toEqual(record.value);
    }
  });

  it('stops each partition at iterations and then returns null', async () => {
    // Prepare
    const task = await started(
      {
        'source.partitions': '2',
        iterations: '5',
        'records.per.poll': '4',
      },
      { lastSeq: new Map([[1, 3]]) },
    );

    // Act
    const records = await drain(task, 4);
    const after = await task.poll();

    // Assess
    expect(seqsByPartition(records)).toEqual(
      new Map([
        [0, [1, 2, 3, 4, 5]],
        [1, [4, 5]],
      ]),
    );
    expect(after).toBeNull();
  });

  it('returns null at once when every partition is already past iterations', async () => {
    // Prepare
    const task = await started({ iterations: '3' }, { lastSeq: new Map([[0, 3]]) });

    // Act
    const records = await task.poll();

    // Assess
    expect(records).toBeNull();
  });

  it('limits the records to rate.per.second since start, by the clock', async () => {
    // Prepare
    const clock = new FakeClock();
    const task = await started({ 'rate.per.second': '10', 'records.per.poll': '100' }, { clock });

    // Act
    const atStart = await task.poll();
    clock.advance(250);
    const after250 = await task.poll();
    const again = await task.poll();
    clock.advance(1750);
    const after2000 = await task.poll();

    // Assess
    expect(atStart).toBeNull();
    expect(after250).toHaveLength(2);
    expect(again).toBeNull();
    expect(after2000).toHaveLength(18);
    expect(positions(after2000).at(-1)).toEqual([0, 20]);
  });

  it('shares rate.per.second among tasks by their number of partitions', async () => {
    // Prepare
    const clock = new FakeClock();
    const task = await started(
      { 'source.partitions': '4', 'task.partitions': '0', 'rate.per.second': '100' },
      { clock },
    );

    // Act
    clock.advance(1000);
    const records = await task.poll();

    // Assess
    expect(records).toHaveLength(25);
  });

  it('caps a rate-limited poll at records.per.poll', async () => {
    // Prepare
    const clock = new FakeClock();
    const task = await started({ 'rate.per.second': '1000', 'records.per.poll': '50' }, { clock });

    // Act
    clock.advance(1000);
    const first = await task.poll();
    const second = await task.poll();

    // Assess
    expect(first).toHaveLength(50);
    expect(second).toHaveLength(50);
  });

  it('waits max.interval between non-empty polls', async () => {
    // Prepare
    const clock = new FakeClock();
    const task = await started({ 'max.interval': '500', 'records.per.poll': '3' }, { clock });

    // Act
    const first = await task.poll();
    clock.advance(499);
    const early = await task.poll();
    clock.advance(1);
    const due = await task.poll();

    // Assess
    expect(first).toHaveLength(3);
    expect(early).toBeNull();
    expect(positions(due)).toEqual([
      [0, 4],
      [0, 5],
      [0, 6],
    ]);
  });

  it('sleeps briefly through the injected sleep when throttled, then returns what is due', async () => {
    // Prepare
    const clock = new FakeClock();
    const slept: number[] = [];
    const sleep = async (ms: number) => {
      slept.push(ms);
      clock.advance(ms);
    };
    const task = await started({ 'rate.per.second': '20' }, { clock, sleep });

    // Act
    const first = await task.poll();
    clock.advance(10_000);
    const second = await task.poll();
    const third = await task.poll();

    // Assess
    expect(slept).toEqual([50, 50]);
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(200);
    expect(third).toHaveLength(1);
  });

  it('never sleeps longer than 250 ms in one poll', async () => {
    // Prepare
    const clock = new FakeClock();
    const slept: number[] = [];
    const sleep = async (ms: number) => {
      slept.push(ms);
      clock.advance(ms);
    };
    const task = await started({ 'max.interval': '10000' }, { clock, sleep });
    await task.poll();

    // Act
    const throttled = await task.poll();

    // Assess
    expect(slept).toEqual([250]);
    expect(throttled).toBeNull();
  });

  it('asks to commit a transaction after every transaction.records records', async () => {
    // Prepare
    const transactions = new RecordingTransactionContext();
    const task = await started(
      { 'transaction.records': '4', 'records.per.poll': '3', 'source.partitions': '2' },
      { transactions },
    );

    // Act
    const records = await drain(task, 4);

    // Assess
    expect(transactions.commits).toEqual([records[3], records[7], records[11]]);
    expect(transactions.aborts).toEqual([]);
  });

  it('commits the last partial transaction once iterations is reached', async () => {
    // Prepare
    const transactions = new RecordingTransactionContext();
    const task = await started(
      { 'transaction.records': '4', iterations: '6', 'records.per.poll': '5' },
      { transactions },
    );

    // Act
    const records = await drain(task, 3);

    // Assess
    expect(records).toHaveLength(6);
    expect(transactions.commits).toEqual([records[3], records[5]]);
  });

  it('defines no boundaries when transaction.records is unset', async () => {
    // Prepare
    const transactions = new RecordingTransactionContext();
    const task = await started({ 'records.per.poll': '10', iterations: '10' }, { transactions });

    // Act
    await drain(task, 2);

    // Assess
    expect(transactions.commits).toEqual([]);
  });

  it('ignores transaction.records without a transaction context', async () => {
    // Prepare
    const task = await started({ 'transaction.records': '1' });

    // Act
    const records = await task.poll();

    // Assess
    expect(records).toHaveLength(500);
  });

  it('returns null after stop', async () => {
    // Prepare
    const task = await started({});

    // Act
    await task.stop();
    const records = await task.poll();

    // Assess
    expect(records).toBeNull();
  });

  it('fails to start with ConfigError when kafka.topic is missing', async () => {
    // Prepare
    const task = new DatagenSourceTask({ clock: new FakeClock() });

    // Act
    const start = task.start({}, taskContext({}));

    // Assess
    await expect(start).rejects.toThrow(
      new ConfigError(
        'Missing required configuration "kafka.topic" which has no default value.',
        'kafka.topic',
      ),
    );
  });

  it('fails to start with DataError when a stored offset is not a datagen offset', async () => {
    // Prepare
    const task = new DatagenSourceTask({ clock: new FakeClock() });
    const props = { 'kafka.topic': 'out' };
    const context = {
      ...taskContext(props),
      offsetStorageReader: {
        offset: async () => null,
        offsets: async () => [{ partition: { 'datagen.partition': 0 }, offset: { seq: 'ten' } }],
      },
    };

    // Act
    const start = task.start(props, context);

    // Assess
    await expect(start).rejects.toBeInstanceOf(DataError);
  });
});
