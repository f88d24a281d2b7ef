/**
 * The S3 sink under test, on s3rver. Our patched s3rver honours `If-Match` / `If-None-Match`
 * on writes (patches/s3rver+3.7.1.patch), but its store is not atomic for readers: a read
 * racing a write can return the new ETag and metadata with a body still being written, seen
 * here as lost records. So the sink's client is wrapped to give S3's semantics in-process:
 * reads and writes of a key are serialised, a read is retried until its body matches its ETag,
 * and write preconditions are also checked against the current ETag.
 */
import { createHash } from 'node:crypto';
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NotFound,
  S3Client,
} from '@aws-sdk/client-s3';
import type { PluginDescriptor } from '../../../shared/connect/plugin.js';
import {
  type S3SinkClient,
  type StoredObject,
  toSinkError,
  type WriteCondition,
} from '../../../shared/plugins/connectors/s3-sink/s3-sink-client.js';
import { createS3SinkClient } from '../../../shared/plugins/connectors/s3-sink/s3-sink-config.js';
import { S3SinkConnector } from '../../../shared/plugins/connectors/s3-sink/s3-sink-connector.js';
import type { Faults } from './faults.js';
import { type CampaignServices, countIds, type SinkTarget } from './target.js';

const TOPICS_DIR = 'campaign';
/** The S3 sink over the campaign's client, beside the built-in one. */
const S3_SINK_CLASS = 'test.campaign.S3SinkConnector';

/** An S3 client for s3rver. */
export function s3rverClient(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
}

/** Serialises async work per key. */
class KeyLocks {
  readonly #tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.#tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}

/** `inner`, with write preconditions enforced as AWS S3 does (see the module notes). */
function conditionalS3Client(inner: S3SinkClient, admin: S3Client, locks: KeyLocks): S3SinkClient {
  const etagOf = async (bucket: string, key: string): Promise<string | null> => {
    try {
      return (await admin.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ETag ?? null;
    } catch (error) {
      if (error instanceof NotFound) return null;
      throw toSinkError(error, `Reading s3://${bucket}/${key}`);
    }
  };
  const readFully = async (bucket: string, key: string) => {
    const stored = await inner.getObject(bucket, key);
    if (stored === null) return null;
    const bytes = new Uint8Array(await new Response(stored.body).arrayBuffer());
    return { ...stored, bytes };
  };
  /** A read of a complete version: single-part bodies match their MD5 ETag, others read twice. */
  const completeRead = async (bucket: string, key: string): Promise<StoredObject | null> => {
    for (let attempt = 0; ; attempt += 1) {
      const read = await readFully(bucket, key);
      if (read === null) return null;
      const { etag, bytes } = read;
      let complete: boolean;
      if (etag !== null && !etag.includes('-')) {
        complete = etag === `"${createHash('md5').update(bytes).digest('hex')}"`;
      } else {
        const again = await readFully(bucket, key);
        complete = again?.etag === etag && Buffer.from(again?.bytes ?? []).equals(bytes);
      }
      if (complete || attempt >= 200) {
        return {
          body: new ReadableStream<Uint8Array>({
            start: (controller) => {
              controller.enqueue(bytes);
              controller.close();
            },
          }),
          metadata: read.metadata,
          etag,
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const guarded = async <T>(
    bucket: string,
    key: string,
    condition: WriteCondition,
    write: () => Promise<T>,
  ): Promise<T> =>
    locks.run(`${bucket}/${key}`, async () => {
      if (condition.kind === 'none') return write();
      const etag = await etagOf(bucket, key);
      const holds = condition.kind === 'create' ? etag === null : etag === condition.etag;
      if (!holds) {
        throw toSinkError(
          { name: 'PreconditionFailed', $metadata: { httpStatusCode: 412 }, message: 'emulated' },
          `Writing s3://${bucket}/${key}`,
        );
      }
      return write();
    });
  return {
    getObject: (bucket, key) => locks.run(`${bucket}/${key}`, () => completeRead(bucket, key)),
    putObject: (target, body, condition) =>
      guarded(target.bucket, target.key, condition, () => inner.putObject(target, body, condition)),
    completeMultipartUpload: (bucket, key, uploadId, parts, condition) =>
      guarded(bucket, key, condition, () =>
        inner.completeMultipartUpload(bucket, key, uploadId, parts, condition),
      ),
    createMultipartUpload: (target) => inner.createMultipartUpload(target),
    uploadPart: (bucket, key, uploadId, n, body) =>
      inner.uploadPart(bucket, key, uploadId, n, body),
    abortMultipartUpload: (bucket, key, uploadId) =>
      inner.abortMultipartUpload(bucket, key, uploadId),
    destroy: () => inner.destroy(),
  };
}

/** `inner`, crashing before or after each write where `faults` says. */
function faultyS3Client(inner: S3SinkClient, faults: Faults): S3SinkClient {
  const around = async <T>(step: string, call: () => Promise<T>): Promise<T> => {
    faults.hit('client', `before S3 ${step}`);
    const result = await call();
    faults.hit('client', `after S3 ${step}`);
    return result;
  };
  return {
    getObject: (bucket, key) => inner.getObject(bucket, key),
    putObject: (target, body, condition) =>
      around('PutObject', () => inner.putObject(target, body, condition)),
    createMultipartUpload: (target) =>
      around('CreateMultipartUpload', () => inner.createMultipartUpload(target)),
    uploadPart: (bucket, key, uploadId, n, body) =>
      around('UploadPart', () => inner.uploadPart(bucket, key, uploadId, n, body)),
    completeMultipartUpload: (bucket, key, uploadId, parts, condition) =>
      around('CompleteMultipartUpload', () =>
        inner.completeMultipartUpload(bucket, key, uploadId, parts, condition),
      ),
    abortMultipartUpload: (bucket, key, uploadId) =>
      inner.abortMultipartUpload(bucket, key, uploadId),
    destroy: () => inner.destroy(),
  };
}

export interface S3TargetOptions {
  /** `flush.size`. @default 100 */
  readonly flushSize?: number;
  /** The multipart threshold and part size (the sink's internal test setting). @default 12 KiB */
  readonly partSize?: number;
  /** Whether writes cross the crash points and the emulated preconditions. @default true */
  readonly instrumented?: boolean;
}

/** Creates a bucket named `name` and the S3 sink target writing JSON lines to it. */
export async function createS3Target(
  services: CampaignServices,
  name: string,
  options: S3TargetOptions = {},
): Promise<SinkTarget & { readonly bucket: string; readonly admin: S3Client }> {
  const admin = s3rverClient(services.s3Endpoint);
  const bucket = name.toLowerCase().slice(0, 63);
  await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  const locks = new KeyLocks();
  const instrumented = options.instrumented ?? true;

  const readAll = async (): Promise<string[]> => {
    const lines: string[] = [];
    let token: string | undefined;
    do {
      const page = await admin.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: `${TOPICS_DIR}/`,
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
      );
      for (const object of page.Contents ?? []) {
        const out = await admin.send(new GetObjectCommand({ Bucket: bucket, Key: object.Key }));
        const text = (await out.Body?.transformToString()) ?? '';
        lines.push(...text.split('\n').filter((line) => line !== ''));
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return lines;
  };

  return {
    name: 's3',
    bucket,
    clientSteps: [
      'before S3 PutObject',
      'after S3 PutObject',
      'before S3 CreateMultipartUpload',
      'before S3 UploadPart',
      'before S3 CompleteMultipartUpload',
      'after S3 CompleteMultipartUpload',
    ],
    admin,
    config: {
      's3.bucket.name': bucket,
      's3.endpoint': services.s3Endpoint,
      's3.path.style.access': 'true',
      'aws.access.key.id': 'S3RVER',
      'aws.secret.access.key': 'S3RVER',
      'topics.dir': TOPICS_DIR,
      'flush.size': String(options.flushSize ?? 100),
      'format.class': 'io.confluent.connect.s3.format.json.JsonFormat',
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
    },
    container(faults, kafka) {
      const deps = {
        clock: { now: () => Date.now() },
        partSize: options.partSize ?? 12 * 1024,
        createClient: (config: Parameters<typeof createS3SinkClient>[0]) => {
          const real = createS3SinkClient(config);
          return instrumented
            ? faultyS3Client(conditionalS3Client(real, admin, locks), faults)
            : real;
        },
      };
      const s3Sink: PluginDescriptor<'sink'> = {
        className: S3_SINK_CLASS,
        aliases: [],
        type: 'sink',
        version: new S3SinkConnector(deps).version(),
        create: () => new S3SinkConnector(deps),
      };
      return { kafka, plugins: [s3Sink], sinkClass: S3_SINK_CLASS };
    },
    async readOutput(input) {
      const lines = await readAll();
      const ids = lines.map((line) => String((JSON.parse(line) as { id?: unknown }).id));
      const { duplicates, losses, unknown, examples } = countIds(input, ids);
      return { duplicates, losses, anomalies: unknown, records: lines.length, examples };
    },
    async close() {
      admin.destroy();
    },
  };
}
