import { createHash } from 'node:crypto';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { parquetMetadata } from 'hyparquet';
import { S3RVER_CREDENTIALS } from '../local/services/s3rver.js';
import { pathStyleS3Client } from '../test/support/sink-campaign/s3-target.js';
import { compareThroughput, saveResult } from './harness.js';
import {
  BATCH,
  FLUSH_SIZE,
  PARTITIONS,
  PER_ROUND,
  s3SinkConfig,
  s3SinkContainer,
} from './s3-sink.bench.js';
import type { BenchServices } from './services.js';
import { prepareSinkBench } from './sink-runner.js';

/**
 * `s3-sink-parquet`: the S3 sink writing Parquet (`ParquetFormat`, `parquet.codec=snappy`, the
 * default) against the same sink writing JSON lines (`JsonFormat`), both through the sink
 * runtime in one warm container, over the same records: the `s3-sink` shape (2 partitions,
 * ESM batches of 500, `flush.size` 250, so each batch seals one object per partition), values
 * with a schema (JsonConverter's envelope: a struct of an id, the partition, the sequence
 * number and 140 hex digits that do not compress), since Parquet needs a struct schema. The
 * ratio is Parquet's records/s over JSON lines'; then the bytes per record of each format's
 * objects.
 */
const SCHEMA = {
  type: 'struct',
  name: 'bench.Record',
  optional: false,
  fields: [
    { field: 'id', type: 'string', optional: false },
    { field: 'partition', type: 'int32', optional: false },
    { field: 'seq', type: 'int64', optional: false },
    { field: 'text', type: 'string', optional: false },
  ],
};

/** Record `seq` of `partition`, in JsonConverter's envelope (the payload ~200 bytes). */
function value(partition: number, seq: number): string {
  const text = createHash('sha512').update(`${partition}-${seq}`).digest('hex').slice(0, 140);
  return JSON.stringify({
    schema: SCHEMA,
    payload: { id: `${partition}-${seq}`, partition, seq, text },
  });
}

/** The objects under `prefix`: how many, their bytes, and the first one's key. */
async function objectSizes(s3: S3Client, bucket: string, prefix: string) {
  let objects = 0;
  let bytes = 0;
  let first: string | undefined;
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) {
      objects += 1;
      bytes += o.Size ?? 0;
      first ??= o.Key;
    }
    token = page.NextContinuationToken;
  } while (token !== undefined);
  return { objects, bytes, first };
}

/** Throws unless `key` is a Parquet file of `FLUSH_SIZE` rows (the bench measured Parquet). */
async function checkParquet(s3: S3Client, bucket: string, key: string | undefined) {
  const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const bytes = (await got.Body?.transformToByteArray()) ?? new Uint8Array();
  const rows = parquetMetadata(bytes).num_rows;
  if (!key?.endsWith('.snappy.parquet') || rows !== BigInt(FLUSH_SIZE)) {
    throw new Error(`${key} is not a Parquet file of ${FLUSH_SIZE} rows (${rows})`);
  }
}

export async function run(services: BenchServices): Promise<void> {
  const bench = await prepareSinkBench(services, {
    name: 's3-sink-parquet',
    partitions: PARTITIONS,
    perRound: PER_ROUND,
    batch: BATCH,
    value,
  });
  const s3 = pathStyleS3Client(bench.s3Endpoint, S3RVER_CREDENTIALS);
  const bucket = bench.prefix.toLowerCase();
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  const converter = {
    'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
    'value.converter.schemas.enable': 'true',
  };
  const formats = {
    parquet: { 'format.class': 'io.confluent.connect.s3.format.parquet.ParquetFormat' },
    json: { 'format.class': 'io.confluent.connect.s3.format.json.JsonFormat' },
  };
  const engine = s3SinkContainer(bench);
  const connectors = {} as Record<keyof typeof formats, string>;
  for (const [name, format] of Object.entries(formats) as [keyof typeof formats, object][]) {
    connectors[name] = `${bench.prefix}-${name}`;
    await bench.createConnector(
      connectors[name],
      s3SinkConfig(
        bench,
        connectors[name],
        { bucket, topicsDir: name, flushSize: FLUSH_SIZE },
        { ...converter, ...format },
      ),
    );
  }
  // Each side walks the same slices (the warm-up's first).
  const next = { parquet: 0, json: 0 };
  const side = (name: keyof typeof formats) => () =>
    bench.runOurs(engine, connectors[name], bench.slices[next[name]++] as (typeof bench.slices)[0]);

  try {
    await compareThroughput({
      name: 's3-sink-parquet',
      unit: 'records',
      ours: side('parquet'),
      baseline: side('json'),
    });
    const records = bench.slices.reduce((n, slice) => n + slice.count, 0);
    const sizes = {
      parquet: await objectSizes(s3, bucket, 'parquet/'),
      json: await objectSizes(s3, bucket, 'json/'),
    };
    for (const [name, { objects, bytes }] of Object.entries(sizes)) {
      console.log(
        `s3-sink-parquet: ${name.padEnd(7)} ${(bytes / records).toFixed(1)} bytes/record (${objects} objects, ${records} records)`,
      );
    }
    await checkParquet(s3, bucket, sizes.parquet.first);
    await saveResult('s3-sink-parquet-bytes', { records, ...sizes });
  } finally {
    await bench.close();
    s3.destroy();
  }
}
