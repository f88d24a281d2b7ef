/**
 * The local S3 server (s3rver inside `npm start`) killed in the middle of writes: what it leaves
 * on disk, and what the next start makes of it. s3rver keeps an object as three files under
 * `<folder>/<bucket>/`: `<key>._S3rver_object`, `<key>._S3rver_object.md5` and
 * `<key>._S3rver_metadata.json`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateBucketCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningS3, startS3rver } from '../../../local/services/s3rver.js';
import { VERIFIED_MARKER } from '../../../local/services/s3rver-recovery.js';
import { SinkRecord } from '../../../shared/connect/records.js';
import { createS3SinkClient } from '../../../shared/plugins/connectors/s3-sink/s3-sink-config.js';
import { S3SinkTask } from '../../../shared/plugins/connectors/s3-sink/s3-sink-task.js';
import { KitSinkTaskContext } from '../../../shared/testkit/contexts.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const WRITER = join(projectRoot, 'test/support/s3rver-writer-process.ts');
const BUCKET = 'crash-bucket';
const md5 = (bytes: string | Buffer) => createHash('md5').update(bytes).digest('hex');

const folders: string[] = [];
const servers: RunningS3[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(folders.splice(0).map((f) => rm(f, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sc-s3rver-crash-'));
  folders.push(dir);
  return dir;
}

async function serve(directory: string): Promise<{ server: RunningS3; client: S3Client }> {
  const server = await startS3rver({ directory });
  servers.push(server);
  const client = new S3Client({
    endpoint: server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: server.credentials,
  });
  return { server, client };
}

/** A read of `key`: its text and metadata, or the HTTP status it failed with. */
async function read(client: S3Client, key: string) {
  try {
    const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return { text: (await got.Body?.transformToString()) ?? '', metadata: got.Metadata ?? {} };
  } catch (error) {
    return { status: (error as { $metadata?: { httpStatusCode?: number } }).$metadata };
  }
}

/** The three files of `key` (no folders in it) in `bucket` of `directory`. */
function filesOf(directory: string, key: string) {
  const base = join(directory, BUCKET, key);
  return {
    object: `${base}._S3rver_object`,
    md5: `${base}._S3rver_object.md5`,
    metadata: `${base}._S3rver_metadata.json`,
  };
}

/** What the writer process writes: `line <i> xxx…` lines, `lines` in the metadata. */
function problemsOf(key: string, text: string, metadata: Record<string, string>): string[] {
  const lines = text.split('\n');
  const last = lines.pop();
  const problems: string[] = [];
  if (last !== '') problems.push(`${key}: the last line is cut`);
  if (String(lines.length) !== metadata.lines) {
    problems.push(`${key}: ${lines.length} lines, metadata says ${metadata.lines}`);
  }
  lines.forEach((line, i) => {
    if (line !== `line ${i + 1} ${'x'.repeat(200)}`) problems.push(`${key}: line ${i + 1} differs`);
  });
  return problems.slice(0, 3);
}

async function startWriter(directory: string, round: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WRITER, directory, BUCKET, '4', String(round)],
    { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the writer exited with ${code}`)));
  });
  return child;
}

describe('s3rver killed while writing (local/services/s3rver-store.ts)', () => {
  it('leaves every object whole: the version before the cut write or after it', async () => {
    // Prepare
    const directory = await folder();
    const problems: string[] = [];

    for (let round = 0; round < 8; round += 1) {
      // Act: kill a process that rewrites four objects as fast as it can, at a random moment
      const writer = await startWriter(directory, round);
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 300));
      const exited = once(writer, 'exit');
      writer.kill('SIGKILL');
      await exited;

      // Assess: the next start serves every object whole, with its own metadata
      const { server, client } = await serve(directory);
      for (let i = 0; i < 4; i += 1) {
        const got = await read(client, `object-${i}`);
        if ('status' in got) problems.push(`round ${round}: object-${i} answered ${got.status}`);
        else problems.push(...problemsOf(`round ${round}: object-${i}`, got.text, got.metadata));
      }
      client.destroy();
      await stop(server);
    }
    expect(problems).toEqual([]);
  }, 180_000);

  it('finishes the writes a kill cut after their commit point and discards the others', async () => {
    // Prepare: two objects at version 1, then each cut while writing version 2
    const directory = await folder();
    const first = await serve(directory);
    await first.client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    for (const Key of ['before', 'after']) {
      await first.client.send(
        new PutObjectCommand({ Bucket: BUCKET, Key, Body: 'v1\n', Metadata: { version: '1' } }),
      );
    }
    first.client.destroy();
    await stop(first.server);
    const pending = (id: string) => join(directory, BUCKET, '._S3rver_pending', id);
    const v2 = { md5: md5('v1\nv2\n'), metadata: '{"x-amz-meta-version":"2"}' };
    // `before`: killed while writing the metadata, before the bytes were renamed into place
    await mkdir(pending('1-before'), { recursive: true });
    await writeFile(
      join(pending('1-before'), 'target.json'),
      `{"bucket":"${BUCKET}","key":"before"}`,
    );
    await writeFile(join(pending('1-before'), 'object'), 'v1\nv2\n');
    await writeFile(join(pending('1-before'), 'object.md5'), v2.md5);
    await writeFile(join(pending('1-before'), 'metadata.json'), '{"x-amz-');
    // `after`: killed right after the bytes were renamed into place
    await mkdir(pending('2-after'), { recursive: true });
    await writeFile(
      join(pending('2-after'), 'target.json'),
      `{"bucket":"${BUCKET}","key":"after"}`,
    );
    await writeFile(filesOf(directory, 'after').object, 'v1\nv2\n');
    await writeFile(join(pending('2-after'), 'object.md5'), v2.md5);
    await writeFile(join(pending('2-after'), 'metadata.json'), v2.metadata);

    // Act
    const { server, client } = await serve(directory);

    // Assess
    expect(server.recovery).toMatchObject({ rolledBack: 1, rolledForward: 1, torn: [] });
    expect(await read(client, 'before')).toEqual({ text: 'v1\n', metadata: { version: '1' } });
    expect(await read(client, 'after')).toEqual({ text: 'v1\nv2\n', metadata: { version: '2' } });
    expect(await readdir(join(directory, BUCKET, '._S3rver_pending'))).toEqual([]);
    client.destroy();
  });

  it('sets aside objects that s3rver’s own store left torn, and keeps whole ones', async () => {
    // Prepare: four objects written, then torn the ways a kill tore them before the atomic store
    const directory = await folder();
    const first = await serve(directory);
    await first.client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    for (const Key of ['whole', 'empty-metadata', 'truncated', 'newer-bytes']) {
      await first.client.send(
        new PutObjectCommand({ Bucket: BUCKET, Key, Body: 'v1\n', Metadata: { version: '1' } }),
      );
    }
    first.client.destroy();
    await stop(first.server);
    await rm(join(directory, VERIFIED_MARKER), { force: true }); // a folder the old store wrote has none
    await truncate(filesOf(directory, 'empty-metadata').metadata, 0); // s3rver answered 500
    await truncate(filesOf(directory, 'truncated').object, 1);
    await writeFile(filesOf(directory, 'newer-bytes').object, 'v1\nv2\n');

    // Act
    const { server, client } = await serve(directory);

    // Assess
    expect(server.recovery.verified).toBe(true);
    expect(server.recovery.torn.map((t) => [t.key, t.reason.split(' (')[0]]).sort()).toEqual([
      ['empty-metadata', 'metadata file is not JSON'],
      ['newer-bytes', 'bytes do not match their MD5'],
      ['truncated', 'bytes do not match their MD5'],
    ]);
    for (const key of ['empty-metadata', 'truncated', 'newer-bytes']) {
      expect(await read(client, key)).toMatchObject({ status: { httpStatusCode: 404 } });
    }
    expect(await read(client, 'whole')).toEqual({ text: 'v1\n', metadata: { version: '1' } });
    const aside = (await readdir(join(directory, BUCKET))).filter((f) => f.includes('.torn-'));
    expect(aside).toHaveLength(9); // the three files of each torn object, kept to look at
    client.destroy();
  });

  it('no longer stalls the S3 sink on an object a kill tore', async () => {
    // Prepare: the sink wrote offsets 0-4 into a new object, and the kill cut s3rver's own store
    // in the object's metadata write (s3rver then answered 500 to every read and write of it)
    const directory = await folder();
    const first = await serve(directory);
    await first.client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    const props = {
      's3.bucket.name': BUCKET,
      's3.endpoint': first.server.endpoint,
      'aws.access.key.id': 'S3RVER',
      'aws.secret.access.key': 'S3RVER',
      'format.class': 'json',
      'flush.size': '10',
    };
    await deliver(props, [0, 1, 2, 3, 4]);
    first.client.destroy();
    await stop(first.server);
    await rm(join(directory, VERIFIED_MARKER), { force: true });
    // The bucket 0-9 is not complete: its records wait in the staging object (s3.write.mode=once)
    const key = '_staging/orders+0/topics/orders/partition=0/orders+0+00000000000000000000.json';
    await truncate(filesOf(directory, key).metadata, 0);

    // Act: the next start, and the batch redelivered from the offset the sink had not moved
    const { server, client } = await serve(directory);
    await deliver({ ...props, 's3.endpoint': server.endpoint }, [0, 1, 2, 3, 4, 5, 6]);

    // Assess
    expect(await read(client, key)).toEqual({
      text: [0, 1, 2, 3, 4, 5, 6].map((n) => `{"n":${n}}\n`).join(''),
      metadata: {
        'first-offset': '0',
        'last-offset': '6',
        'record-count': '7',
        'layout-version': '1',
      },
    });
    client.destroy();
  });
});

/** Stops `server` (and forgets it). */
async function stop(server: RunningS3): Promise<void> {
  servers.splice(servers.indexOf(server), 1);
  await server.close();
}

/** A fresh S3 sink task writes records of `orders` partition 0 at `offsets` and commits them. */
async function deliver(props: Record<string, string>, offsets: readonly number[]): Promise<void> {
  const task = new S3SinkTask({
    clock: { now: () => Date.UTC(2024, 0, 1) },
    createClient: (config) => createS3SinkClient(config),
  });
  await task.start(props, new KitSinkTaskContext(props));
  try {
    await task.put(
      offsets.map(
        (offset) =>
          new SinkRecord({
            topic: 'orders',
            kafkaPartition: 0,
            kafkaOffset: offset,
            value: { n: offset },
          }),
      ),
    );
    await task.preCommit(new Map([['orders-0', (offsets.at(-1) ?? -1) + 1]]));
  } finally {
    await task.stop();
  }
}
