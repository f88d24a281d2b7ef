/**
 * The S3 sink under test, on moto's S3: writes under `If-None-Match` / `If-Match` are refused
 * with 412 PreconditionFailed as AWS S3 refuses them, and a read returns one whole version of an
 * object, so the sink's own client runs as it would against AWS, crossing only the campaign's
 * crash points. (On s3rver the campaign had to wrap the client: s3rver's store lets a read racing
 * a write return the new ETag and metadata with a body still being written, so reads and writes
 * of a key were serialised in-process and reads retried until the body matched the ETag.)
 */
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { PluginDescriptor } from '../../../shared/connect/plugin.js';
import type { S3SinkClient } from '../../../shared/plugins/connectors/s3-sink/s3-sink-client.js';
import { createS3SinkClient } from '../../../shared/plugins/connectors/s3-sink/s3-sink-config.js';
import { S3SinkConnector } from '../../../shared/plugins/connectors/s3-sink/s3-sink-connector.js';
import { sinkOutputKeys } from '../s3-sink-output.js';
import type { Faults } from './faults.js';
import { type CampaignServices, countIds, type SinkTarget } from './target.js';

const TOPICS_DIR = 'campaign';
/**
 * The campaign's multipart threshold and part size (the sink's internal test setting, far below
 * `s3.part.size`'s 5 MiB floor, so that small inputs cross multipart uploads): the S3 server
 * must accept parts this small (moto: `startMoto({ s3MinPartSize: CAMPAIGN_PART_SIZE })`).
 */
export const CAMPAIGN_PART_SIZE = 12 * 1024;
/** The S3 sink over the campaign's client, beside the built-in one. */
const S3_SINK_CLASS = 'test.campaign.S3SinkConnector';

/** An S3 client with path-style addressing, for a local S3 server (moto, s3rver). */
export function pathStyleS3Client(
  endpoint: string,
  credentials: { readonly accessKeyId: string; readonly secretAccessKey: string },
): S3Client {
  return new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
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
    listKeys: (bucket, prefix) => inner.listKeys(bucket, prefix),
    deleteObject: (bucket, key) => around('DeleteObject', () => inner.deleteObject(bucket, key)),
    destroy: () => inner.destroy(),
  };
}

export interface S3TargetOptions {
  /** `flush.size`. @default 100 */
  readonly flushSize?: number;
  /** The multipart threshold and part size. @default CAMPAIGN_PART_SIZE */
  readonly partSize?: number;
  /** Whether writes cross the crash points. @default true */
  readonly instrumented?: boolean;
}

/** Creates a bucket named `name` and the S3 sink target writing JSON lines to it. */
export async function createS3Target(
  services: CampaignServices,
  name: string,
  options: S3TargetOptions = {},
): Promise<SinkTarget & { readonly bucket: string; readonly admin: S3Client }> {
  const s3 = services.s3;
  if (s3 === undefined) throw new Error('the S3 sink campaign needs an S3 server (services.s3)');
  const admin = pathStyleS3Client(s3.endpoint, s3.credentials);
  const bucket = name.toLowerCase().slice(0, 63);
  await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  const instrumented = options.instrumented ?? true;

  const readAll = async (): Promise<string[]> => {
    const lines: string[] = [];
    const { keys } = await sinkOutputKeys(admin, bucket, `${TOPICS_DIR}/`);
    for (const key of keys) {
      const out = await admin.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const text = (await out.Body?.transformToString()) ?? '';
      lines.push(...text.split('\n').filter((line) => line !== ''));
    }
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
      'before S3 DeleteObject',
      'after S3 DeleteObject',
    ],
    admin,
    config: {
      's3.bucket.name': bucket,
      's3.endpoint': s3.endpoint,
      's3.path.style.access': 'true',
      'aws.access.key.id': s3.credentials.accessKeyId,
      'aws.secret.access.key': s3.credentials.secretAccessKey,
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
        partSize: options.partSize ?? CAMPAIGN_PART_SIZE,
        createClient: (config: Parameters<typeof createS3SinkClient>[0]) => {
          const real = createS3SinkClient(config);
          return instrumented ? faultyS3Client(real, faults) : real;
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
