import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SinkTaskContext } from '../../../shared/connect/context.js';
import { SinkRecord } from '../../../shared/connect/records.js';
import {
  PreconditionFailedError,
  type S3SinkClient,
} from '../../../shared/plugins/connectors/s3-sink/s3-sink-client.js';
import {
  createS3SinkClient,
  parseS3SinkConfig,
} from '../../../shared/plugins/connectors/s3-sink/s3-sink-config.js';
import { S3SinkTask } from '../../../shared/plugins/connectors/s3-sink/s3-sink-task.js';
import { type S3Server, s3ServerOf, testS3, uniqueName } from '../../support/services.js';

/** What an AWS SDK call rejected with: its error name and HTTP status. */
async function failure(call: Promise<unknown>): Promise<{ name: string; status: unknown }> {
  try {
    await call;
  } catch (error) {
    const e = error as { name: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode };
  }
  return { name: 'resolved', status: 200 };
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

/** Records of `orders` partition 0 at `offsets`, with value `{"n": offset}`. */
function records(offsets: readonly number[]): SinkRecord[] {
  return offsets.map(
    (offset) =>
      new SinkRecord({
        topic: 'orders',
        kafkaPartition: 0,
        kafkaOffset: offset,
        value: { n: offset },
      }),
  );
}

/**
 * S3's conditional writes as the sink relies on them, on both S3 servers of the tests: moto
 * (AWS S3's conditional writes; If-Match on CompleteMultipartUpload added by our launcher,
 * test/support/moto/serve.py) and s3rver (what `npm start` runs), patched to honour them
 * (patches/s3rver+3.7.1.patch).
 */
describe.each<{ server: S3Server; title: string }>([
  { server: 'moto', title: 'moto (AWS S3 conditional writes)' },
  { server: 's3rver', title: 's3rver (patched like AWS S3)' },
])('conditional writes on $title', ({ server }) => {
  let s3: S3Client;
  let bucket: string;
  const clients: S3SinkClient[] = [];
  /** The S3 sink's connection keys for `server`. */
  const connection = () => {
    const { endpoint, credentials } = s3ServerOf(server);
    return {
      's3.endpoint': endpoint,
      'aws.access.key.id': credentials.accessKeyId,
      'aws.secret.access.key': credentials.secretAccessKey,
    };
  };

  const put = (key: string, body: string, conditions: { IfMatch?: string; IfNoneMatch?: string }) =>
    s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ...conditions }));

  /** Writes `key` by a one-part multipart upload, completed under `conditions`. */
  async function putMultipart(
    key: string,
    body: string,
    conditions: { IfMatch?: string; IfNoneMatch?: string },
  ) {
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
    const part = await s3.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: key,
        UploadId: upload.UploadId,
        PartNumber: 1,
        Body: body,
      }),
    );
    return s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: upload.UploadId,
        ...conditions,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
  }

  async function text(key: string): Promise<string> {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return (await out.Body?.transformToString()) ?? '';
  }

  beforeAll(async () => {
    s3 = testS3(server);
    bucket = uniqueName('s3cond');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  });

  afterAll(() => {
    for (const c of clients) c.destroy();
    s3.destroy();
  });

  it('refuses If-None-Match: * on an existing key with 412 and keeps the object', async () => {
    // Prepare
    await put('exists', 'first', { IfNoneMatch: '*' });

    // Act
    const refused = await failure(put('exists', 'second', { IfNoneMatch: '*' }));

    // Assess
    expect(refused).toEqual({ name: 'PreconditionFailed', status: 412 });
    expect(await text('exists')).toBe('first');
  });

  it('refuses a stale If-Match with 412, a missing key with 404, and accepts the current ETag', async () => {
    // Prepare
    const first = await put('cas', 'v1', {});
    await put('cas', 'v2', {});

    // Act
    const stale = await failure(put('cas', 'v3', { IfMatch: first.ETag ?? '' }));
    const missing = await failure(put('nothing-here', 'v1', { IfMatch: first.ETag ?? '' }));
    const current = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'cas' }));
    await current.Body?.transformToString();
    await put('cas', 'v3', { IfMatch: current.ETag ?? '' });

    // Assess
    expect(stale).toEqual({ name: 'PreconditionFailed', status: 412 });
    expect(missing).toEqual({ name: 'NoSuchKey', status: 404 });
    expect(await text('cas')).toBe('v3');
  });

  it('lets exactly one of writers racing on one key win, and refuses the others with 412', async () => {
    // Prepare: eight writers each create the key, then each replaces it from the same ETag.
    const writers = Array.from({ length: 8 }, (_, w) => `writer ${w}`);
    const wins = (settled: PromiseSettledResult<unknown>[]) =>
      writers.filter((_, w) => settled[w]?.status === 'fulfilled');

    // Act
    const creates = await Promise.allSettled(
      writers.map((w) => put('race', `created by ${w}`, { IfNoneMatch: '*' })),
    );
    const created = await text('race');
    const head = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'race' }));
    await head.Body?.transformToString();
    const replaces = await Promise.allSettled(
      writers.map((w) => put('race', `replaced by ${w}`, { IfMatch: head.ETag ?? '' })),
    );
    const losers = await Promise.all(
      [...creates, ...replaces]
        .filter((r) => r.status === 'rejected')
        .map((r) => failure(Promise.reject(r.reason))),
    );

    // Assess
    expect(wins(creates)).toHaveLength(1);
    expect(created).toBe(`created by ${wins(creates)[0]}`);
    expect(wins(replaces)).toHaveLength(1);
    expect(await text('race')).toBe(`replaced by ${wins(replaces)[0]}`);
    expect(new Set(losers.map((l) => `${l.name} ${l.status}`))).toEqual(
      new Set(['PreconditionFailed 412']),
    );
  });

  it('refuses completing a multipart upload with If-None-Match over an existing key', async () => {
    // Prepare
    await put('multi', 'old', {});

    // Act
    const refused = await failure(putMultipart('multi', 'new', { IfNoneMatch: '*' }));

    // Assess
    expect(refused).toEqual({ name: 'PreconditionFailed', status: 412 });
    expect(await text('multi')).toBe('old');
  });

  it('refuses completing a multipart upload with a stale If-Match, and accepts the current ETag', async () => {
    // Prepare: the object changes after its ETag was read.
    const first = await put('multi-cas', 'v1', {});
    await put('multi-cas', 'v2', {});

    // Act
    const stale = await failure(putMultipart('multi-cas', 'v3', { IfMatch: first.ETag ?? '' }));
    const unchanged = await text('multi-cas');
    const current = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'multi-cas' }));
    await current.Body?.transformToString();
    await putMultipart('multi-cas', 'v3', { IfMatch: current.ETag ?? '' });

    // Assess
    expect(stale).toEqual({ name: 'PreconditionFailed', status: 412 });
    expect(unchanged).toBe('v2');
    expect(await text('multi-cas')).toBe('v3');
  });

  it('surfaces the refusals through the sink client as PreconditionFailedError', async () => {
    // Prepare
    const props = {
      's3.bucket.name': bucket,
      ...connection(),
      'format.class': 'json',
      'flush.size': '10',
    };
    const client = createS3SinkClient(parseS3SinkConfig(props));
    clients.push(client);
    const target = { bucket, key: 'typed', metadata: {}, contentType: 'text/plain' };
    await client.putObject(target, new TextEncoder().encode('a'), { kind: 'create' });

    // Act
    const results = await Promise.allSettled([
      client.putObject(target, Uint8Array.of(1), { kind: 'create' }),
      client.putObject(target, Uint8Array.of(1), { kind: 'replace', etag: '"stale"' }),
      client.putObject({ ...target, key: 'typed-missing' }, Uint8Array.of(1), {
        kind: 'replace',
        etag: '"stale"',
      }),
    ]);

    // Assess
    const reasons = results.map((r) => (r.status === 'rejected' ? r.reason : r.status));
    expect(reasons.map((r) => r instanceof PreconditionFailedError)).toEqual([true, true, true]);
    expect(reasons.map((r) => (r as PreconditionFailedError).s3Code)).toEqual([
      'PreconditionFailed',
      'PreconditionFailed',
      'NoSuchKey',
    ]);
    expect(await text('typed')).toBe('a');
  });

  it('keeps every record when a task appends to an object another task instance created', async () => {
    // Prepare
    const props = {
      's3.bucket.name': bucket,
      ...connection(),
      'format.class': 'json',
      'flush.size': '10',
      'topics.dir': 'handover',
      // The handover of an object rewritten in place (a staging object is handed over the same way).
      's3.write.mode': 'progressive',
    };
    const calls: string[] = [];
    const counting = (inner: S3SinkClient): S3SinkClient => ({
      ...inner,
      getObject: (b, k) => {
        calls.push('get');
        return inner.getObject(b, k);
      },
      putObject: (t, body, c) => {
        calls.push(`put ${c.kind}`);
        return inner.putObject(t, body, c);
      },
      destroy: () => inner.destroy(),
    });
    const first = await startTask(props, (c) => c);
    await deliver(first, records([0, 1, 2]));
    await first.stop();

    // Act
    const second = await startTask(props, counting);
    await deliver(second, records([2, 3, 4]));
    await deliver(second, records([5]));
    await second.stop();

    // Assess
    // The second instance reads the object once (its create is refused), then appends to what
    // it wrote without reading.
    expect(calls).toEqual(['put create', 'get', 'put replace', 'put replace']);
    expect(await text('handover/orders/partition=0/orders+0+00000000000000000000.json')).toBe(
      [0, 1, 2, 3, 4, 5].map((n) => `{"n":${n}}\n`).join(''),
    );
  });

  async function startTask(
    props: Record<string, string>,
    wrap: (client: S3SinkClient) => S3SinkClient,
  ): Promise<S3SinkTask> {
    const task = new S3SinkTask({
      clock: { now: () => Date.UTC(2024, 0, 1) },
      createClient: (config) => {
        const client = createS3SinkClient(config);
        clients.push(client);
        return wrap(client);
      },
    });
    await task.start(props, context(props));
    return task;
  }

  async function deliver(task: S3SinkTask, batch: readonly SinkRecord[]) {
    const last = batch[batch.length - 1];
    await task.put(batch);
    return task.preCommit(new Map([['orders-0', (last?.kafkaOffset ?? -1) + 1]]));
  }
});
