import { describe, expect, it } from 'vitest';
import { ConnectError } from '../../../../../../shared/connect/errors.js';
import type { SourceOffset, SourceRecord } from '../../../../../../shared/connect/records.js';
import { DynamoDbStreamsSourceTask } from '../../../../../../shared/plugins/connectors/dynamodb-streams-source/dynamodb-streams-source-task.js';
import {
  committed,
  describeRecords,
  FakeClock,
  FakeStreams,
  shardIdsOf,
  taskContext,
} from './fakes.js';

const baseProps = {
  'table.name': 'orders',
  'dynamodb.region': 'us-east-1',
  'shard.refresh.interval.ms': '1000',
};

async function startTask(
  fake: FakeStreams,
  props: Readonly<Record<string, string>> = baseProps,
  stored: ReadonlyMap<string, SourceOffset> = new Map(),
  clock = new FakeClock(),
): Promise<DynamoDbStreamsSourceTask> {
  const task = new DynamoDbStreamsSourceTask({ clock, createClient: () => fake });
  await task.start(props, taskContext(props, stored));
  return task;
}

async function drain(task: DynamoDbStreamsSourceTask): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for (let batch = await task.poll(); batch !== null; batch = await task.poll()) {
    records.push(...batch);
  }
  return records;
}

describe('DynamoDbStreamsSourceTask', () => {
  it('turns change records into keyed records with images, offsets and timestamps', async () => {
    // Prepare
    const fake = new FakeStreams().addShard('shard-a');
    const seq = fake.write('shard-a', 'MODIFY', 'o-1', {
      oldImage: { id: { S: 'o-1' }, qty: { N: '1' } },
      newImage: { id: { S: 'o-1' }, qty: { N: '2' }, tags: { SS: ['x'] } },
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the connector's own placeholder.
    const task = await startTask(fake, { ...baseProps, topic: 'cdc.${table}' });

    // Act
    const records = await drain(task);
    await task.stop();

    // Assess
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record?.topic).toBe('cdc.orders');
    expect(record?.key).toEqual({ id: 'o-1' });
    expect(record?.value).toEqual({
      eventName: 'MODIFY',
      table: 'orders',
      keys: { id: 'o-1' },
      newImage: { id: 'o-1', qty: 2, tags: ['x'] },
      oldImage: { id: 'o-1', qty: 1 },
      sequenceNumber: seq,
      approximateCreationDateTime: record?.timestamp,
    });
    expect(record?.timestamp).toBeGreaterThan(0);
    expect(record?.sourcePartition).toEqual({ table: 'orders', shard: 'shard-a' });
    expect(record?.sourceOffset).toEqual({ sequenceNumber: seq });
    expect(fake.destroyed).toBe(true);
  });

  it('reads a child shard only after its parent is drained, and marks the parent closed', async () => {
    // Prepare: the child is listed before its parent, so only lineage keeps the order.
    const fake = new FakeStreams().addShard('child', 'parent').addShard('parent');
    fake.write('parent', 'INSERT', 'a');
    fake.write('parent', 'MODIFY', 'a');
    fake.close('parent');
    fake.write('child', 'MODIFY', 'a');
    fake.write('child', 'REMOVE', 'a');
    const task = await startTask(fake);

    // Act
    const records = await drain(task);

    // Assess
    expect(describeRecords(records)).toEqual([
      'parent:INSERT:a',
      'parent:MODIFY:a',
      'child:MODIFY:a',
      'child:REMOVE:a',
    ]);
    expect(records[1]?.sourceOffset).toEqual({ sequenceNumber: '101', closed: true });
    expect(records[3]?.sourceOffset).toEqual({ sequenceNumber: '103' });
  });

  it('resumes after committed offsets without repeating or skipping a record', async () => {
    // Prepare
    const fake = new FakeStreams().addShard('parent').addShard('child', 'parent');
    for (const id of ['a', 'b', 'c']) fake.write('parent', 'INSERT', id);
    fake.close('parent');
    for (const id of ['d', 'e']) fake.write('child', 'INSERT', id);
    const props = { ...baseProps, 'poll.max.records': '2' };
    const first = await startTask(fake, props);
    const before = [...((await first.poll()) ?? []), ...((await first.poll()) ?? [])];
    await first.stop();

    // Act
    const second = await startTask(fake, props, committed(before));
    const after = await drain(second);

    // Assess
    expect(describeRecords(before)).toEqual([
      'parent:INSERT:a',
      'parent:INSERT:b',
      'parent:INSERT:c',
      'child:INSERT:d',
    ]);
    expect(describeRecords(after)).toEqual(['child:INSERT:e']);
    expect(fake.calls).toContain('getShardIterator child AFTER_SEQUENCE_NUMBER 103');
    expect(fake.calls.filter((c) => c.startsWith('getShardIterator parent'))).toHaveLength(1);
  });

  it('recreates an expired iterator after the last delivered record', async () => {
    // Prepare
    const fake = new FakeStreams().addShard('shard-a');
    fake.write('shard-a', 'INSERT', 'a');
    const task = await startTask(fake);
    const first = await drain(task);
    fake.write('shard-a', 'INSERT', 'b');
    fake.expireNext = 1;

    // Act
    const second = await drain(task);

    // Assess
    expect(describeRecords([...first, ...second])).toEqual([
      'shard-a:INSERT:a',
      'shard-a:INSERT:b',
    ]);
    expect(fake.calls).toContain('getShardIterator shard-a AFTER_SEQUENCE_NUMBER 100');
  });

  it('fails with a non-retriable error naming the shard when unread records were trimmed', async () => {
    // Prepare
    const fake = new FakeStreams().addShard('shard-a');
    for (const id of ['a', 'b', 'c']) fake.write('shard-a', 'INSERT', id);
    const task = await startTask(
      fake,
      baseProps,
      new Map([['shard-a', { sequenceNumber: '100' }]]),
    );
    fake.trim('shard-a', 2);

    // Act
    const error = await task.poll().catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).retriable).toBe(false);
    expect((error as ConnectError).message).toMatch(
      /shard shard-a, after sequence number 100, are no longer available .* data was lost/,
    );
  });

  it('does not reread a closed shard it finished, even once its records are trimmed', async () => {
    // Prepare
    const fake = new FakeStreams().addShard('parent').addShard('child', 'parent');
    const last = fake.write('parent', 'INSERT', 'a');
    fake.close('parent');
    fake.trim('parent', 1);
    fake.write('child', 'MODIFY', 'a');

    // Act
    const task = await startTask(fake, baseProps, new Map([['parent', { sequenceNumber: last }]]));
    const records = await drain(task);

    // Assess
    expect(describeRecords(records)).toEqual(['child:MODIFY:a']);
    expect(fake.calls.some((c) => c.startsWith('getShardIterator parent'))).toBe(false);
  });

  it('rejects the start when the table has no stream', async () => {
    // Prepare
    const fake = new FakeStreams();
    const task = new DynamoDbStreamsSourceTask({
      clock: new FakeClock(),
      createClient: () => fake,
    });
    const props = { ...baseProps, 'table.name': 'plain' };

    // Act
    const error = await task.start(props, taskContext(props)).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as Error).message).toMatch(/Table plain has no DynamoDB stream/);
    expect(fake.destroyed).toBe(true);
  });

  it('gives every shard to exactly one of the tasks', async () => {
    // Prepare
    const fake = new FakeStreams();
    fake.describePageSize = 2;
    const ids = Array.from({ length: 9 }, (_, i) => `shard-${i}`);
    for (const id of ids) {
      fake.addShard(id);
      fake.write(id, 'INSERT', id);
    }

    // Act
    const perTask: string[][] = [];
    for (const index of [0, 1, 2]) {
      const props = { ...baseProps, 'task.index': String(index), 'task.count': '3' };
      const task = await startTask(fake, props);
      perTask.push(describeRecords(await drain(task)));
    }

    // Assess
    expect(perTask.flat().sort()).toEqual(ids.map((id) => `${id}:INSERT:${id}`).sort());
    expect(perTask.every((records) => records.length > 0)).toBe(true);
  });

  it("waits for another task's parent until its records are committed", async () => {
    // Prepare: the parent belongs to task 0, the child to task 1.
    const [parent = ''] = shardIdsOf(0, 2, 1);
    const [child = ''] = shardIdsOf(1, 2, 1);
    const fake = new FakeStreams().addShard(parent).addShard(child, parent);
    fake.write(parent, 'INSERT', 'a');
    fake.write(parent, 'MODIFY', 'a');
    fake.close(parent);
    fake.write(child, 'REMOVE', 'a');
    const props = (index: number) => ({
      ...baseProps,
      'task.index': String(index),
      'task.count': '2',
    });
    const early = await startTask(fake, props(1));
    const waited = await early.poll();
    await early.stop();
    const parentRecords = await drain(await startTask(fake, props(0)));
    const partial = new Map([[parent, parentRecords[0]?.sourceOffset ?? {}]]);
    const stillWaiting = await drain(await startTask(fake, props(1), partial));

    // Act
    const late = await startTask(fake, props(1), committed(parentRecords));
    const childRecords = await drain(late);

    // Assess
    expect(waited).toBeNull();
    expect(stillWaiting).toEqual([]);
    expect(describeRecords(parentRecords)).toEqual([`${parent}:INSERT:a`, `${parent}:MODIFY:a`]);
    expect(describeRecords(childRecords)).toEqual([`${child}:REMOVE:a`]);
  });

  it("continues after another task's parent once a probe finds nothing after its offset", async () => {
    // Prepare: the parent's last record was committed without the closed flag.
    const [parent = ''] = shardIdsOf(0, 2, 1);
    const [child = ''] = shardIdsOf(1, 2, 1);
    const fake = new FakeStreams().addShard(parent).addShard(child, parent);
    const last = fake.write(parent, 'INSERT', 'a');
    fake.write(child, 'MODIFY', 'a');
    fake.close(parent, '999');
    const props = { ...baseProps, 'task.index': '1', 'task.count': '2' };

    // Act
    const task = await startTask(fake, props, new Map([[parent, { sequenceNumber: last }]]));
    const records = await drain(task);

    // Assess
    expect(describeRecords(records)).toEqual([`${child}:MODIFY:a`]);
    expect(fake.calls).toContain(`getShardIterator ${parent} AFTER_SEQUENCE_NUMBER ${last}`);
  });

  it('starts open shards at LATEST, skips closed ones and reads children of read shards whole', async () => {
    // Prepare
    const fake = new FakeStreams().addShard('old').addShard('live', 'old');
    fake.write('old', 'INSERT', 'history');
    fake.close('old');
    fake.write('live', 'INSERT', 'before-start');
    const clock = new FakeClock();
    const task = await startTask(
      fake,
      { ...baseProps, 'start.position': 'latest' },
      new Map(),
      clock,
    );
    const initial = await drain(task);
    fake.write('live', 'MODIFY', 'after-start');
    fake.close('live');
    fake.addShard('next', 'live');
    fake.write('next', 'REMOVE', 'after-start');

    // Act
    const later = await drain(task);

    // Assess
    expect(initial).toEqual([]);
    expect(describeRecords(later)).toEqual(['live:MODIFY:after-start', 'next:REMOVE:after-start']);
    expect(fake.calls).toContain('getShardIterator live LATEST');
    expect(fake.calls).toContain('getShardIterator next TRIM_HORIZON');
  });

  it('returns at most poll.max.records records per poll and asks for no more', async () => {
    // Prepare
    const fake = new FakeStreams().addShard('shard-a').addShard('shard-b');
    for (let i = 0; i < 4; i++) fake.write('shard-a', 'INSERT', `a${i}`);
    for (let i = 0; i < 4; i++) fake.write('shard-b', 'INSERT', `b${i}`);
    const task = await startTask(fake, { ...baseProps, 'poll.max.records': '3' });

    // Act
    const sizes: number[] = [];
    for (let batch = await task.poll(); batch !== null; batch = await task.poll()) {
      sizes.push(batch.length);
    }

    // Assess
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(8);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
    expect(
      fake.calls
        .filter((c) => c.startsWith('getRecords'))
        .every((c) => Number(c.split(' ').at(-1)) <= 3),
    ).toBe(true);
  });

  it('finds shards created later at the next refresh interval', async () => {
    // Prepare
    const fake = new FakeStreams().addShard('shard-a');
    const clock = new FakeClock();
    const task = await startTask(fake, baseProps, new Map(), clock);
    await drain(task);
    fake.addShard('shard-b');
    fake.write('shard-b', 'INSERT', 'b');

    // Act
    const beforeInterval = await task.poll();
    clock.time += 1000;
    const afterInterval = await drain(task);

    // Assess
    expect(beforeInterval).toBeNull();
    expect(describeRecords(afterInterval)).toEqual(['shard-b:INSERT:b']);
  });
});
