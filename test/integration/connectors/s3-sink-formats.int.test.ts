import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SinkTaskContext } from '../../../shared/connect/context.js';
import {
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
} from '../../../shared/connect/logical-types.js';
import { SinkRecord } from '../../../shared/connect/records.js';
import { type Schema, SchemaBuilder, Schemas } from '../../../shared/connect/schema.js';
import { Struct } from '../../../shared/connect/struct.js';
import { schemaFingerprint } from '../../../shared/plugins/connectors/s3-sink/avro-container.js';
import { createS3SinkClient } from '../../../shared/plugins/connectors/s3-sink/s3-sink-config.js';
import { S3SinkTask } from '../../../shared/plugins/connectors/s3-sink/s3-sink-task.js';
import { AvroData } from '../../../shared/plugins/converters/avro/avro-codec.js';
import { compileToAvro } from '../../../shared/plugins/converters/avro/avro-values.js';
import { avroJsonDatum } from '../../support/avro-json-datum.js';
import {
  ensureReferenceReaders,
  readAvroFilesWithJava,
  readParquetFilesWithPyarrow,
} from '../../support/reference-readers/reference-readers.js';
import { s3ServerOf, testS3, uniqueName } from '../../support/services.js';

/**
 * The S3 sink's Avro and Parquet objects, written to S3 by the task and read back by the
 * reference readers: Apache Avro 1.12.2's Java library and pyarrow (fetched by
 * test/support/reference-readers/). Values are compared, not only that the files open.
 */

const address = SchemaBuilder.struct()
  .name('shop.Address')
  .field('city', Schemas.STRING)
  .field('zip', Schemas.OPTIONAL_STRING)
  .build();
const v1 = SchemaBuilder.struct()
  .name('shop.Order')
  .field('i8', Schemas.INT8)
  .field('i16', Schemas.INT16)
  .field('i32', Schemas.INT32)
  .field('i64', Schemas.INT64)
  .field('f32', Schemas.FLOAT32)
  .field('f64', Schemas.FLOAT64)
  .field('ok', Schemas.BOOLEAN)
  .field('text', Schemas.STRING)
  .field('raw', Schemas.BYTES)
  .field('note', Schemas.OPTIONAL_STRING)
  .field('price', LogicalDecimal.schema(2))
  .field('day', LogicalDate.schema())
  .field('at', LogicalTime.schema())
  .field('ts', LogicalTimestamp.schema())
  .field('address', address)
  .field(
    'billing',
    SchemaBuilder.struct().name('shop.Billing').field('iban', Schemas.STRING).optional().build(),
  )
  .field('tags', SchemaBuilder.array(Schemas.STRING).build())
  .field('scores', SchemaBuilder.array(Schemas.OPTIONAL_INT32).build())
  .field('counts', SchemaBuilder.map(Schemas.STRING, Schemas.INT32).build())
  .field('byId', SchemaBuilder.map(Schemas.INT32, Schemas.STRING).build())
  .field('lines', SchemaBuilder.array(address).build())
  .build();
/** The next version: a field added (the sink rotates its objects there). */
const v2 = SchemaBuilder.struct()
  .name('shop.Order')
  .field('i64', Schemas.INT64)
  .field('added', Schemas.OPTIONAL_STRING)
  .build();

const DAY = Date.UTC(2024, 1, 29);

function orderValue(offset: number): Struct {
  return new Struct(v1)
    .put('i8', -8 - offset)
    .put('i16', 1600 + offset)
    .put('i32', -32_000_000 - offset)
    .put('i64', offset === 1 ? 2n ** 60n : 6_400_000_000 + offset)
    .put('f32', 1.5 + offset)
    .put('f64', 0.1 * offset)
    .put('ok', offset % 2 === 0)
    .put('text', `héllo ${offset} ✓`)
    .put('raw', Uint8Array.of(0, 255, offset))
    .put('note', offset % 2 === 0 ? null : `note ${offset}`)
    .put('price', { unscaled: BigInt(1234 + offset), scale: 2 })
    .put('day', new Date(DAY))
    .put('at', new Date(3_723_004 + offset))
    .put('ts', new Date(DAY + 3_723_004 + offset))
    .put('address', new Struct(address).put('city', 'Lyon').put('zip', offset ? '69001' : null))
    .put(
      'billing',
      offset % 2
        ? new Struct(v1.field('billing')?.schema as Schema).put('iban', `FR${offset}`)
        : null,
    )
    .put('tags', ['a', `t${offset}`])
    .put('scores', [offset, null, -1])
    .put(
      'counts',
      new Map([
        ['x', offset],
        ['y', 2],
      ]),
    )
    .put(
      'byId',
      new Map([
        [offset, 'one'],
        [7, 'seven'],
      ]),
    )
    .put('lines', [new Struct(address).put('city', 'Nice').put('zip', null)]);
}

/** Offsets 0-5 in v1, 6-7 in v2, 8-9 in v1 again, then 10 to complete the bucket of 10. */
function records(): SinkRecord[] {
  return Array.from({ length: 11 }, (_, offset) => {
    const second = offset === 6 || offset === 7;
    const schema = second ? v2 : v1;
    const value = second
      ? new Struct(v2).put('i64', offset).put('added', `a${offset}`)
      : orderValue(offset);
    return new SinkRecord({
      topic: 'orders',
      kafkaPartition: 0,
      kafkaOffset: offset,
      valueSchema: schema,
      value,
      timestamp: DAY,
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

/** The Avro JSON encoding of a record's value, as this project's mapping means it. */
function expectedAvroJson(record: SinkRecord): unknown {
  const codec = new AvroData({ cacheSize: 10 }).forConnectSchema(record.valueSchema as Schema);
  const avro = compileToAvro(record.valueSchema as Schema, codec.avroType)(record.value);
  return JSON.parse(avroJsonDatum(codec.avroType, avro));
}

describe('S3 sink Avro and Parquet objects, read by the reference readers', () => {
  let s3: S3Client;
  let bucket: string;
  let dir: string;

  beforeAll(async () => {
    // Fetched here on a developer's first run (`.ci/run` fetches them ahead of the tests).
    await ensureReferenceReaders();
    s3 = testS3();
    bucket = uniqueName('formats').toLowerCase();
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    dir = await mkdtemp(join(tmpdir(), 's3-sink-formats-'));
  });

  afterAll(async () => {
    s3.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  /** Writes `records()` in three batches under `topicsDir`; the final objects, saved to files. */
  async function write(topicsDir: string, props: Record<string, string>) {
    const { endpoint, credentials } = s3ServerOf('s3rver');
    const all = {
      's3.bucket.name': bucket,
      's3.endpoint': endpoint,
      's3.path.style.access': 'true',
      'aws.access.key.id': credentials.accessKeyId,
      'aws.secret.access.key': credentials.secretAccessKey,
      'flush.size': '10',
      'topics.dir': topicsDir,
      ...props,
    };
    const task = new S3SinkTask({ clock: { now: () => DAY }, createClient: createS3SinkClient });
    await task.start(all, context(all));
    const batches = [records().slice(0, 4), records().slice(4, 8), records().slice(8)];
    for (const batch of batches) {
      await task.put(batch);
      await task.preCommit(new Map([['orders-0', (batch.at(-1)?.kafkaOffset ?? 0) + 1]]));
    }
    await task.stop();
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `${topicsDir}/` }),
    );
    const keys = (listed.Contents ?? []).map((o) => o.Key as string).sort();
    const files: string[] = [];
    for (const key of keys) {
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const file = join(dir, key.replaceAll('/', '_'));
      await writeFile(file, (await got.Body?.transformToByteArray()) ?? new Uint8Array());
      files.push(file);
    }
    return { keys: keys.map((k) => k.slice(k.lastIndexOf('/') + 1)), files };
  }

  it.each(['null', 'deflate', 'snappy'])(
    'writes Avro containers (avro.codec=%s) that Apache Avro Java reads back value for value',
    async (codec) => {
      // Act
      const { keys, files } = await write(`avro-${codec}`, {
        'format.class': 'io.confluent.connect.s3.format.avro.AvroFormat',
        'avro.codec': codec,
      });
      const read = await readAvroFilesWithJava(files);

      // Assess: one object per schema run, each read by Java with its schema and records
      expect(keys).toEqual([
        'orders+0+00000000000000000000.avro',
        'orders+0+00000000000000000006.avro',
        'orders+0+00000000000000000008.avro',
      ]);
      const all = records();
      const runs = [all.slice(0, 6), all.slice(6, 8), all.slice(8, 10)];
      expect(read.map((f) => f.codec)).toEqual([codec, codec, codec]);
      for (const [i, file] of read.entries()) {
        const run = runs[i] ?? [];
        const ours = new AvroData({ cacheSize: 1 }).forConnectSchema(run[0]?.valueSchema as Schema);
        expect(file.schema).toBe(ours.schemaText);
        expect(file.fingerprint).toBe(schemaFingerprint(ours.schemaText));
        expect(file.records.map((r) => JSON.parse(r))).toEqual(run.map(expectedAvroJson));
      }
    },
  );

  it.each([
    ['snappy', '.snappy.parquet', 'SNAPPY'],
    ['gzip', '.gz.parquet', 'GZIP'],
    ['none', '.parquet', 'UNCOMPRESSED'],
  ])(
    'writes Parquet files (parquet.codec=%s) that pyarrow reads back value for value',
    async (codec, extension, pyarrowCodec) => {
      // Act
      const { keys, files } = await write(`parquet-${codec}`, {
        'format.class': 'ParquetFormat',
        'parquet.codec': codec,
      });
      const [first, second, third] = await readParquetFilesWithPyarrow(files);

      // Assess
      expect(keys).toEqual(
        [0, 6, 8].map((o) => `orders+0+${String(o).padStart(20, '0')}${extension}`),
      );
      expect([first, second, third].map((f) => f?.codec)).toEqual([
        pyarrowCodec,
        pyarrowCodec,
        pyarrowCodec,
      ]);
      expect(first?.metadata_keys).toContain('parquet.avro.schema');
      // parquet-avro's layout: three-level lists, MAP key_value groups, DECIMAL on binary.
      for (const element of [
        'required binary field_id=-1 price (Decimal(precision=64, scale=2));',
        'required group field_id=-1 counts (Map) {\n    repeated group field_id=-1 key_value {\n      required binary field_id=-1 key (String);',
        'required group field_id=-1 scores (List) {\n    repeated group field_id=-1 list {\n      optional int32 field_id=-1 element;',
      ]) {
        expect(first?.parquet_schema).toContain(element);
      }
      for (const type of [
        'i8: int32 not null',
        'i64: int64 not null',
        'f32: float not null',
        'note: string',
        'price: decimal256(64, 2) not null',
        'day: date32[day] not null',
        'at: time32[ms] not null',
        'ts: timestamp[ms, tz=UTC] not null',
        'tags: list<element: string not null> not null',
        'scores: list<element: int32> not null',
        'counts: map<string, int32',
      ]) {
        expect(first?.arrow_schema).toContain(type);
      }
      const row = (offset: number) => ({
        i8: -8 - offset,
        i16: 1600 + offset,
        i32: -32_000_000 - offset,
        i64: offset === 1 ? 2 ** 60 : 6_400_000_000 + offset,
        f32: 1.5 + offset,
        f64: 0.1 * offset,
        ok: offset % 2 === 0,
        text: `héllo ${offset} ✓`,
        raw: `00ff${offset.toString(16).padStart(2, '0')}`,
        note: offset % 2 === 0 ? null : `note ${offset}`,
        price: ((1234 + offset) / 100).toFixed(2),
        day: '2024-02-29',
        at: `01:02:03.${String(4 + offset).padStart(3, '0')}000`,
        ts: `2024-02-29 01:02:03.${String(4 + offset).padStart(3, '0')}000+00:00`,
        address: { city: 'Lyon', zip: offset ? '69001' : null },
        billing: offset % 2 ? { iban: `FR${offset}` } : null,
        tags: ['a', `t${offset}`],
        scores: [offset, null, -1],
        counts: [
          ['x', offset],
          ['y', 2],
        ],
        byId: [
          { key: offset, value: 'one' },
          { key: 7, value: 'seven' },
        ],
        lines: [{ city: 'Nice', zip: null }],
      });
      expect(first?.rows).toEqual([0, 1, 2, 3, 4, 5].map(row));
      expect(second?.rows).toEqual([
        { i64: 6, added: 'a6' },
        { i64: 7, added: 'a7' },
      ]);
      expect(third?.rows).toEqual([8, 9].map(row));
    },
  );
});
