import { gunzipSync } from 'node:zlib';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SinkTaskContext } from '../../../shared/connect/context.js';
import { ConnectError, RetriableError } from '../../../shared/connect/errors.js';
import { SinkRecord } from '../../../shared/connect/records.js';
import { SchemaBuilder, Schemas } from '../../../shared/connect/schema.js';
import { Struct } from '../../../shared/connect/struct.js';
import type { S3SinkClient } from '../../../shared/plugins/connectors/s3-sink/s3-sink-client.js';
import {
  createS3SinkClient,
  type S3SinkConfig,
} from '../../../shared/plugins/connectors/s3-sink/s3-sink-config.js';
import { S3SinkTask } from '../../../shared/plugins/connectors/s3-sink/s3-sink-task.js';
import { testS3, uniqueName } from '../../support/services.js';

const schema = SchemaBuilder.struct()
  .field('id', Schemas.INT64)
  .field('text', Schemas.STRING)
  .build();

/** `count` records of `orders` partition `partition` from offset `from`, with Struct values. */
function records(partition: number, from: number, count: number, pad = 0): SinkRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const offset = from + i;
    return new SinkRecord({
      topic: 'orders',
      kafkaPartition: partition,
      kafkaOffset: offset,
      valueSchema: schema,
      value: new Struct(schema).put('id', offset).put('text', `p${partition}-${'x'.repeat(pad)}`),
      timestamp: Date.UTC(2024, 0, 1) + offset,
    });
  });
}

function context(props: Readonly<Record<string, string>>): SinkTaskContext {
  return {
    configs: () => props,
    offset: () => {},
    timeout: () => {},
    assignment: () => [],
    pause: () => {},
    resume: () => {},
    requestCommit: () => {},
    errantRecordReporter: null,
  };
}

/** Wraps the real client: counts calls and "crashes" at the mutating call `crashAt`. */
class Instrumented implements S3SinkClient {
  readonly counts = new Map<string, number>();
  mutations = 0;
  constructor(
    readonly inner: S3SinkClient,
    public crashAt: number | null = null,
  ) {}
  #count(kind: string, mutating: boolean): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    if (mutating && this.crashAt !== null && this.mutations++ >= this.crashAt) {
      throw new RetriableError(`crash before ${kind}`);
    }
  }
  getObject: S3SinkClient['getObject'] = (b, k) => {
    this.#count('get', false);
    return this.inner.getObject(b, k);
  };
  putObject: S3SinkClient['putObject'] = async (t, body, c) => {
    this.#count('put', true);
    return this.inner.putObject(t, body, c);
  };
  createMultipartUpload: S3SinkClient['createMultipartUpload'] = async (t) => {
    this.#count('create', true);
    return this.inner.createMultipartUpload(t);
  };
  uploadPart: S3SinkClient['uploadPart'] = async (b, k, id, n, body) => {
    this.#count('part', true);
    return this.inner.uploadPart(b, k, id, n, body);
  };
  completeMultipartUpload: S3SinkClient['completeMultipartUpload'] = async (b, k, id, p, c) => {
    this.#count('complete', true);
    return this.inner.completeMultipartUpload(b, k, id, p, c);
  };
  abortMultipartUpload: S3SinkClient['abortMultipartUpload'] = (b, k, id) =>
    this.inner.abortMultipartUpload(b, k, id);
  listKeys: S3SinkClient['listKeys'] = (b, prefix) => {
    this.#count('list', false);
    return this.inner.listKeys(b, prefix);
  };
  deleteObject: S3SinkClient['deleteObject'] = async (b, k) => {
    this.#count('delete', true);
    return this.inner.deleteObject(b, k);
  };
  destroy(): void {}
}

/** `length` pseudo-random base-36 characters (a hash of `seed`): text gzip barely shrinks. */
function noise(seed: number, length: number): string {
  let x = (seed + 1) >>> 0;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x ^ (x >>> 15), 2_246_822_519) + 0x9e3779b9 + i) >>> 0;
    out += (x % 36).toString(36);
  }
  return out;
}

describe('S3SinkTask against s3rver', () => {
  let s3: S3Client;
  let bucket: string;
  let base: Record<string, string>;
  const clients: S3SinkClient[] = [];

  function realClient(config: S3SinkConfig): S3SinkClient {
    const client = createS3SinkClient(config);
    clients.push(client);
    return client;
  }

  async function startTask(
    props: Record<string, string>,
    wrap: (client: S3SinkClient) => S3SinkClient = (c) => c,
    partSize?: number,
  ): Promise<S3SinkTask> {
    const task = new S3SinkTask({
      clock: { now: () => Date.UTC(2024, 0, 1) },
      createClient: (config) => wrap(realClient(config)),
      ...(partSize === undefined ? {} : { partSize }),
    });
    await task.start(props, context(props));
    return task;
  }

  /** One batch: put, then preCommit with the batch's next offsets. */
  async function deliver(task: S3SinkTask, batch: readonly SinkRecord[]) {
    const current = new Map<string, number>();
    for (const r of batch) current.set(`orders-${r.kafkaPartition}`, r.kafkaOffset + 1);
    await task.put(batch);
    return task.preCommit(current);
  }

  async function list(prefix: string): Promise<string[]> {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    return (out.Contents ?? []).flatMap((o) => (o.Key === undefined ? [] : [o.Key])).sort();
  }

  async function read(
    key: string,
  ): Promise<{ bytes: Uint8Array; metadata: Record<string, string> }> {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return {
      bytes: (await out.Body?.transformToByteArray()) ?? new Uint8Array(),
      metadata: out.Metadata ?? {},
    };
  }

  /** Object key (without the topics.dir) → decompressed text, for every object under `dir`. */
  async function snapshot(dir: string, gzip = false): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const key of await list(`${dir}/`)) {
      const { bytes } = await read(key);
      out[key.slice(dir.length + 1)] = new TextDecoder().decode(gzip ? gunzipSync(bytes) : bytes);
    }
    return out;
  }

  const jsonLines = (partition: number, from: number, count: number) =>
    Array.from({ length: count }, (_, i) => `{"id":${from + i},"text":"p${partition}-"}\n`).join(
      '',
    );

  beforeAll(async () => {
    s3 = testS3();
    bucket = uniqueName('s3sink');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    base = {
      's3.bucket.name': bucket,
      's3.endpoint': inject('s3Endpoint'),
      'aws.access.key.id': 'S3RVER',
      'aws.secret.access.key': 'S3RVER',
      'format.class': 'io.confluent.connect.s3.format.json.JsonFormat',
      'flush.size': '4',
      // These tests read the objects a batch rewrites in place; s3.write.mode=once (the
      // default) is covered by test/integration/runtime/s3-sink-requests.int.test.ts.
      's3.write.mode': 'progressive',
    };
  });

  afterAll(() => {
    for (const c of clients) c.destroy();
    s3.destroy();
  });

  it('writes offset-aligned JSON objects with their offsets in the metadata', async () => {
    // Prepare
    const props = { ...base, 'topics.dir': 'clean' };
    const task = await startTask(props);

    // Act
    const durable = await deliver(task, [...records(0, 0, 6), ...records(1, 0, 3)]);
    await task.stop();

    // Assess
    expect(durable).toEqual(
      new Map([
        ['orders-0', 6],
        ['orders-1', 3],
      ]),
    );
    expect(await snapshot('clean')).toEqual({
      'orders/partition=0/orders+0+00000000000000000000.json': jsonLines(0, 0, 4),
      'orders/partition=0/orders+0+00000000000000000004.json': jsonLines(0, 4, 2),
      'orders/partition=1/orders+1+00000000000000000000.json': jsonLines(1, 0, 3),
    });
    const { metadata } = await read('clean/orders/partition=0/orders+0+00000000000000000004.json');
    expect(metadata).toMatchObject({
      'first-offset': '4',
      'last-offset': '5',
      'record-count': '2',
    });
  });

  it('converges to the clean objects when redelivered with other batch boundaries', async () => {
    // Prepare
    const clean = await startTask({ ...base, 'topics.dir': 'once' });
    await deliver(clean, [...records(0, 0, 10), ...records(1, 0, 7)]);
    await clean.stop();
    const props = { ...base, 'topics.dir': 'replayed' };

    // Act: a batch whose offsets were never stored, redelivered in other shapes
    const first = await startTask(props);
    await deliver(first, [...records(0, 0, 3), ...records(1, 0, 5)]);
    await first.stop();
    const second = await startTask(props);
    await deliver(second, [...records(0, 0, 6), ...records(1, 2, 4)]);
    await deliver(second, [...records(0, 5, 5), ...records(1, 6, 1)]);
    await second.stop();

    // Assess
    expect(await snapshot('replayed')).toEqual(await snapshot('once'));
  });

  it('finishes a flush a crash interrupted between two object writes', async () => {
    // Prepare
    const clean = await startTask({ ...base, 'topics.dir': 'nocrash' });
    await deliver(clean, records(0, 0, 12));
    await clean.stop();
    const props = { ...base, 'topics.dir': 'crash' };
    const crashing = await startTask(props, (c) => new Instrumented(c, 1));

    // Act
    const crashed = deliver(crashing, records(0, 0, 12));
    await expect(crashed).rejects.toBeInstanceOf(RetriableError);
    await crashing.stop();
    const partial = await snapshot('crash');
    const recovered = await startTask(props);
    await deliver(recovered, records(0, 0, 12));
    await recovered.stop();

    // Assess
    expect(Object.keys(partial)).toHaveLength(1);
    expect(await snapshot('crash')).toEqual(await snapshot('nocrash'));
  });

  it('streams objects above the part size through multipart uploads, appending to them', async () => {
    // Prepare
    const props = {
      ...base,
      'topics.dir': 'multipart',
      'flush.size': '1000',
      's3.compression.type': 'gzip',
    };
    const instrumented: Instrumented[] = [];
    const wrap = (c: S3SinkClient) => {
      const client = new Instrumented(c);
      instrumented.push(client);
      return client;
    };
    // Random-looking text compresses poorly, so the gzip content spans several 1 KiB parts.
    const noisy = (from: number, count: number) =>
      records(0, from, count).map((r) =>
        r.newRecord({
          value: new Struct(schema).put('id', r.kafkaOffset).put('text', noise(r.kafkaOffset, 60)),
        }),
      );

    // Act
    const task = await startTask(props, wrap, 1024);
    await deliver(task, noisy(0, 60));
    await deliver(task, noisy(40, 60));
    await task.stop();

    // Assess
    const counts = instrumented[0]?.counts;
    expect(counts?.get('complete')).toBe(2);
    expect(counts?.get('part') ?? 0).toBeGreaterThan(4);
    const objects = await snapshot('multipart', true);
    const lines = Object.values(objects)[0]?.trim().split('\n') ?? [];
    expect(Object.keys(objects)).toEqual([
      'orders/partition=0/orders+0+00000000000000000000.json.gz',
    ]);
    expect(lines.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
    const { metadata } = await read(`multipart/${Object.keys(objects)[0]}`);
    expect(metadata).toMatchObject({
      'first-offset': '0',
      'last-offset': '99',
      'record-count': '100',
    });
  });

  it('fails non-retriably when the bucket does not exist', async () => {
    // Prepare
    const task = await startTask({ ...base, 's3.bucket.name': uniqueName('missing') });

    // Act
    const delivery = deliver(task, records(0, 0, 1));

    // Assess
    await expect(delivery).rejects.toBeInstanceOf(ConnectError);
    await expect(delivery).rejects.toMatchObject({ retriable: false });
    await task.stop();
  });
});
