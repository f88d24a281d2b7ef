import { gzipSync } from 'node:zlib';
import { CreateBucketCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SourceTaskContext } from '../../../shared/connect/context.js';
import { ConnectError } from '../../../shared/connect/errors.js';
import type { SourceOffset, SourceRecord } from '../../../shared/connect/records.js';
import {
  createS3SourceClient,
  parseS3SourceConfig,
} from '../../../shared/plugins/connectors/s3-source/s3-source-config.js';
import { S3SourceConnector } from '../../../shared/plugins/connectors/s3-source/s3-source-connector.js';
import type { S3SourceTask } from '../../../shared/plugins/connectors/s3-source/s3-source-task.js';
import { testS3, uniqueName } from '../../support/services.js';

/** A clock the test moves by hand. */
class ManualClock {
  time = 1_000_000;
  now(): number {
    return this.time;
  }
}

const connectorContext = { requestTaskReconfiguration: () => {}, raiseError: () => {} };

/** A task context whose offset reader serves `stored` (keyed by object key). */
function taskContext(
  props: Readonly<Record<string, string>>,
  stored: ReadonlyMap<string, SourceOffset>,
): SourceTaskContext {
  const offsetOf = (partition: Readonly<Record<string, unknown>>) =>
    stored.get(String(partition.key)) ?? null;
  return {
    configs: () => props,
    offsetStorageReader: {
      offset: async (partition) => offsetOf(partition),
      offsets: async (partitions) => partitions.map((p) => ({ partition: p, offset: offsetOf(p) })),
    },
    transactionContext: null,
    pluginMetrics: () => ({ gauge: () => {} }),
  };
}

/** The latest offset per object key, as the runtime would have committed them. */
function committed(records: readonly SourceRecord[]): Map<string, SourceOffset> {
  const offsets = new Map<string, SourceOffset>();
  for (const r of records) {
    if (r.sourcePartition !== null && r.sourceOffset !== null) {
      offsets.set(String(r.sourcePartition.key), r.sourceOffset);
    }
  }
  return offsets;
}

async function drain(task: S3SourceTask): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for (let batch = await task.poll(); batch !== null; batch = await task.poll()) {
    records.push(...batch);
  }
  return records;
}

/** `key#line value` of each record. */
function describeRecords(records: readonly SourceRecord[]): string[] {
  return records.map(
    (r) =>
      `${String(r.headers.lastWithName('s3.key')?.value)}#${String(r.headers.lastWithName('s3.line')?.value)} ${JSON.stringify(r.value)}`,
  );
}

describe('S3SourceConnector against s3rver', () => {
  let s3: S3Client;
  let bucket: string;
  let props: Record<string, string>;
  const clock = new ManualClock();

  async function put(key: string, body: string | Uint8Array): Promise<void> {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  }

  async function startTask(
    taskProps: Readonly<Record<string, string>>,
    stored: ReadonlyMap<string, SourceOffset> = new Map(),
  ): Promise<S3SourceTask> {
    const task = new S3SourceConnector({ clock }).createTask();
    await task.start(taskProps, taskContext(taskProps, stored));
    return task;
  }

  beforeAll(async () => {
    s3 = testS3();
    bucket = uniqueName('s3src');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    props = {
      's3.bucket.name': bucket,
      's3.prefix': 'data/',
      's3.endpoint': inject('s3Endpoint'),
      'aws.access.key.id': 'S3RVER',
      'aws.secret.access.key': 'S3RVER',
      topic: 'lines',
      format: 'jsonl',
      'batch.max.rows': '3',
      's3.poll.interval.ms': '1000',
    };
    await put('data/top.jsonl', '{"top":1}\n{"top":2}');
    await put('data/a/1.jsonl', '{"a":1}\r\n\r\n{"a":2}\r\n{"a":3}\r\n');
    await put('data/a/2.jsonl.gz', gzipSync('{"gz":1}\n{"gz":2}\n{"gz":3}\n{"gz":4}\n'));
    // s3rver reports a common prefix only for a "directory" holding an object of its own.
    await put('data/b/3.jsonl', '[1]\n[2]\n');
    await put('data/b/nested/6.jsonl', '{"deep":true}');
    await put('data/c/4.jsonl', '"c1"\n');
    await put('elsewhere/5.jsonl', '"not mine"\n');
  });

  afterAll(() => {
    s3.destroy();
  });

  const expected = [
    'data/a/1.jsonl#1 {"a":1}',
    'data/a/1.jsonl#3 {"a":2}',
    'data/a/1.jsonl#4 {"a":3}',
    'data/a/2.jsonl.gz#1 {"gz":1}',
    'data/a/2.jsonl.gz#2 {"gz":2}',
    'data/a/2.jsonl.gz#3 {"gz":3}',
    'data/a/2.jsonl.gz#4 {"gz":4}',
    'data/b/3.jsonl#1 [1]',
    'data/b/3.jsonl#2 [2]',
    'data/b/nested/6.jsonl#1 {"deep":true}',
    'data/c/4.jsonl#1 "c1"',
    'data/top.jsonl#1 {"top":1}',
    'data/top.jsonl#2 {"top":2}',
  ];

  it('splits the prefix by directory and delivers every line once, in order', async () => {
    // Prepare
    const connector = new S3SourceConnector({ clock });
    await connector.start(props, connectorContext);
    const taskConfigs = await connector.taskConfigs(2);
    await connector.stop();

    // Act
    const perTask: SourceRecord[][] = [];
    for (const taskProps of taskConfigs) {
      const task = await startTask(taskProps);
      perTask.push(await drain(task));
      await task.stop();
    }

    // Assess
    expect(taskConfigs.map((t) => t['task.prefixes'])).toEqual(['data/a/,data/c/', 'data/b/']);
    const all = perTask.flat();
    expect(describeRecords(all).sort()).toEqual([...expected].sort());
    for (const records of perTask) {
      const described = describeRecords(records);
      expect(described).toEqual(expected.filter((line) => described.includes(line)));
    }
    const last = all.filter((r) => r.sourcePartition?.key === 'data/a/2.jsonl.gz').at(-1);
    expect(last?.sourceOffset).toEqual({ position: 4, eof: true });
    expect(last?.timestamp).toBeGreaterThan(0);
  });

  it('resumes from committed offsets after partial consumption without repeating', async () => {
    // Prepare
    const taskProps = { ...props, 'task.prefixes': 'data/', 'task.root.objects': 'false' };
    const first = await startTask(taskProps);
    const before = [
      ...((await first.poll()) ?? []),
      ...((await first.poll()) ?? []),
      ...((await first.poll()) ?? []),
    ];
    await first.stop();

    // Act
    const second = await startTask(taskProps, committed(before));
    const after = await drain(second);
    await second.stop();

    // Assess
    expect(before).toHaveLength(9);
    expect(after).toHaveLength(expected.length - 9);
    expect([...describeRecords(before), ...describeRecords(after)]).toEqual(expected);
  });

  it('picks up an object uploaded later on the next poll cycle', async () => {
    // Prepare
    const taskProps = { ...props, format: 'text', 's3.prefix': 'late/', 'task.prefixes': 'late/' };
    await put('late/0.txt', 'early\n');
    const task = await startTask(taskProps);
    const initial = await drain(task);
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i + 1} ${'x'.repeat(i % 50)}`);
    await put('late/1.txt.gz', gzipSync(`${lines.join('\n')}\n`));

    // Act
    const beforeInterval = await task.poll();
    clock.time += 1000;
    const later = await drain(task);
    await task.stop();

    // Assess
    expect(describeRecords(initial)).toEqual(['late/0.txt#1 "early"']);
    expect(beforeInterval).toBeNull();
    expect(later.map((r) => r.value)).toEqual(lines);
    expect(later.at(-1)?.sourceOffset).toEqual({ position: 2000, eof: true });
  });

  it('maps a missing object to null and rejected credentials to a non-retriable error', async () => {
    // Prepare
    const client = createS3SourceClient(parseS3SourceConfig(props));
    const intruder = createS3SourceClient(
      parseS3SourceConfig({ ...props, 'aws.access.key.id': 'INTRUDER' }),
    );

    // Act
    const missing = await client.getObject(bucket, 'data/none.jsonl');
    const denied = await intruder
      .listPage({ bucket, prefix: 'data/' })
      .catch((error: unknown) => error);
    client.destroy();
    intruder.destroy();

    // Assess
    expect(missing).toBeNull();
    expect(denied).toBeInstanceOf(ConnectError);
    expect((denied as ConnectError).retriable).toBe(false);
    expect((denied as ConnectError).message).toMatch(/^Listing s3:\/\/s3src-.* failed: /);
  });
});
