import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { S3RVER_CREDENTIALS } from '../local/services/s3rver.js';
import type { PluginDescriptor } from '../shared/connect/plugin.js';
import type { Engine } from '../shared/engine/engine.js';
import type { S3SinkClient } from '../shared/plugins/connectors/s3-sink/s3-sink-client.js';
import { createS3SinkClient } from '../shared/plugins/connectors/s3-sink/s3-sink-config.js';
import { S3SinkConnector } from '../shared/plugins/connectors/s3-sink/s3-sink-connector.js';
import { pathStyleS3Client } from '../test/support/sink-campaign/s3-target.js';
import type { BenchServices } from './services.js';
import {
  forEachLimited,
  prepareSinkBench,
  type SinkBench,
  timedSinkDescriptor,
} from './sink-runner.js';
import type { Timings } from './timings.js';

/**
 * `s3-sink`: the S3 sink (JSON lines, default partitioner, `flush.size` = the records of a
 * partition in one batch, so each batch writes one new object per partition) through the sink
 * runtime, vs raw PutObject of the same bytes to as many objects of the same sizes, four at a
 * time as the sink writes them. 2 partitions, 5,000 records of ~200 bytes per round in ESM
 * batches of 500, s3rver.
 */
export const PARTITIONS = 2;
export const PER_ROUND = 5_000;
export const BATCH = 500;
export const FLUSH_SIZE = BATCH / PARTITIONS;
/** The sink's default write concurrency (objects at once). */
const CONCURRENCY = 4;

const encoder = new TextEncoder();

/** `inner`, timing its reads and writes. */
function timedClient(inner: S3SinkClient, timings: Timings): S3SinkClient {
  return {
    getObject: (bucket, key) => timings.time('s3 GetObject', () => inner.getObject(bucket, key)),
    putObject: (target, body, condition) =>
      timings.time('s3 PutObject', () => inner.putObject(target, body, condition)),
    createMultipartUpload: (target) => inner.createMultipartUpload(target),
    uploadPart: (b, k, id, n, body) => inner.uploadPart(b, k, id, n, body),
    completeMultipartUpload: (b, k, id, parts, c) =>
      inner.completeMultipartUpload(b, k, id, parts, c),
    abortMultipartUpload: (b, k, id) => inner.abortMultipartUpload(b, k, id),
    listKeys: (b, prefix) => timings.time('s3 ListObjectsV2', () => inner.listKeys(b, prefix)),
    deleteObject: (b, k) => timings.time('s3 DeleteObject', () => inner.deleteObject(b, k)),
    destroy: () => inner.destroy(),
  };
}

/**
 * A warm container of `bench` with the S3 sink (its S3 calls and task steps timed) under
 * `bench.TimedS3SinkConnector`.
 */
export function s3SinkContainer(bench: SinkBench): Engine {
  const deps = {
    clock: { now: () => Date.now() },
    createClient: (config: Parameters<typeof createS3SinkClient>[0]) =>
      timedClient(createS3SinkClient(config), bench.timings),
  };
  const s3Sink: PluginDescriptor<'sink'> = {
    className: 'bench.S3Sink',
    aliases: [],
    type: 'sink',
    version: new S3SinkConnector(deps).version(),
    create: () => new S3SinkConnector(deps),
  };
  return bench.container({
    plugins: [timedSinkDescriptor(s3Sink, 'bench.TimedS3SinkConnector', bench.timings)],
  });
}

/**
 * The config of S3 sink connector `name` of `bench` (see {@link s3SinkContainer}) writing to
 * `bucket` under `topicsDir`, with `format`'s keys (format and value converter) added.
 */
export function s3SinkConfig(
  bench: SinkBench,
  name: string,
  settings: { readonly bucket: string; readonly topicsDir: string; readonly flushSize: number },
  format: Readonly<Record<string, string>>,
): Record<string, string> {
  return {
    name,
    'connector.class': 'bench.TimedS3SinkConnector',
    topics: bench.topic,
    's3.bucket.name': settings.bucket,
    's3.endpoint': bench.s3Endpoint,
    's3.path.style.access': 'true',
    'aws.access.key.id': 'S3RVER',
    'aws.secret.access.key': 'S3RVER',
    'topics.dir': settings.topicsDir,
    'flush.size': String(settings.flushSize),
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    ...format,
  };
}

export async function run(services: BenchServices): Promise<void> {
  const bench = await prepareSinkBench(services, {
    name: 's3-sink',
    partitions: PARTITIONS,
    perRound: PER_ROUND,
    batch: BATCH,
  });
  const s3 = pathStyleS3Client(bench.s3Endpoint, S3RVER_CREDENTIALS);
  const bucket = bench.prefix.toLowerCase();
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));

  const engine = s3SinkContainer(bench);
  const connector = `${bench.prefix}-ours`;
  await bench.createConnector(
    connector,
    s3SinkConfig(
      bench,
      connector,
      { bucket, topicsDir: 'ours', flushSize: FLUSH_SIZE },
      {
        'format.class': 'io.confluent.connect.s3.format.json.JsonFormat',
        'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
        'value.converter.schemas.enable': 'false',
      },
    ),
  );

  // The baseline's objects, per slice and batch: the same keys under another directory, the
  // same JSON lines.
  const objects = bench.slices.map((slice) =>
    slice.batches.map((batch) => {
      const byKey = new Map<string, Uint8Array[]>();
      for (const r of batch) {
        const start = String(Math.floor(r.offset / FLUSH_SIZE) * FLUSH_SIZE).padStart(20, '0');
        const key = `baseline/${r.topic}/partition=${r.partition}/${r.topic}+${r.partition}+${start}.json`;
        const lines = byKey.get(key) ?? [];
        byKey.set(key, lines);
        lines.push(r.value ?? new Uint8Array(), encoder.encode('\n'));
      }
      return [...byKey].map(([key, parts]) => ({ key, body: Buffer.concat(parts) }));
    }),
  );

  try {
    await bench.compare(
      async () => bench.runOurs(engine, connector, bench.nextSlice('ours')),
      (slice, batch) =>
        forEachLimited(objects[slice.index]?.[batch] ?? [], CONCURRENCY, (o) =>
          s3.send(
            new PutObjectCommand({
              Bucket: bucket,
              Key: o.key,
              Body: o.body,
              ContentType: 'application/x-ndjson',
            }),
          ),
        ),
    );
  } finally {
    await bench.close();
    s3.destroy();
  }
}
