import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import type { SinkRecord } from '../../../../../../shared/connect/records.js';
import { type Schema, SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import { S3SinkTask } from '../../../../../../shared/plugins/connectors/s3-sink/s3-sink-task.js';
import { readAvroContainer, readParquetRows } from '../../../../../support/container-objects.js';
import {
  currentOffsets,
  FakeClock,
  FakeS3Sink,
  RecordingReporter,
  sinkContext,
  sinkRecord,
} from './fakes.js';

/** The Avro and Parquet formats of the S3 sink task: one schema per object. */

const v1 = SchemaBuilder.struct().name('shop.Order').field('id', Schemas.INT64).build();
const v2 = SchemaBuilder.struct()
  .name('shop.Order')
  .field('id', Schemas.INT64)
  .field('note', Schemas.OPTIONAL_STRING)
  .build();

function order(offset: number, schema: Schema = v1): SinkRecord {
  const value = new Struct(schema).put('id', offset);
  if (schema === v2) value.put('note', `n${offset}`);
  return sinkRecord({ kafkaOffset: offset, valueSchema: schema, value, timestamp: offset });
}

async function startTask(
  s3: FakeS3Sink,
  overrides: Record<string, string>,
  reporter: RecordingReporter | null = null,
) {
  const props = { 's3.bucket.name': 'bucket', 'flush.size': '10', ...overrides };
  const task = new S3SinkTask({ clock: new FakeClock(), createClient: () => s3 });
  await task.start(props, sinkContext(props, reporter));
  return task;
}

async function deliver(task: S3SinkTask, batch: readonly SinkRecord[]) {
  await task.put(batch);
  return task.preCommit(currentOffsets(batch));
}

const key = (start: number, ext = '.avro') =>
  `topics/orders/partition=0/orders+0+${String(start).padStart(20, '0')}${ext}`;
const staged = (start: number, ext = '.avro') => `_staging/orders+0/${key(start, ext)}`;

function ids(s3: FakeS3Sink, k: string): number[] {
  const bytes = s3.objects.get(k)?.bytes;
  if (bytes === undefined) throw new Error(`no object ${k}`);
  return readAvroContainer(bytes).records.map((r) => JSON.parse(r).id);
}

describe('S3SinkTask with AvroFormat and ParquetFormat', () => {
  it('rotates the object where the value schema changes, naming it after the first record of the new schema', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3, { 'format.class': 'AvroFormat', 'avro.codec': 'snappy' });

    // Act: offsets 0-3 in v1, 4-6 in v2, 7-10 in v1 again (10 completes bucket 0)
    await deliver(
      task,
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((o) => order(o, o >= 4 && o <= 6 ? v2 : v1)),
    );

    // Assess
    expect([...s3.objects.keys()].sort()).toEqual([staged(10), key(0), key(4), key(7)]);
    expect([ids(s3, key(0)), ids(s3, key(4)), ids(s3, key(7))]).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ]);
    const header = readAvroContainer(s3.objects.get(key(4))?.bytes as Uint8Array);
    expect(header.codec).toBe('snappy');
    expect(JSON.parse(header.schemaText).fields.map((f: { name: string }) => f.name)).toEqual([
      'id',
      'note',
    ]);
    expect(s3.objects.get(key(4))?.contentType).toBe('application/avro');
  });

  it('continues a staged run after a cold start inside its bucket, from the staged objects', async () => {
    // Prepare: a first task stages 0-2 (v1) and 3-4 (v2), then its container goes away
    const s3 = new FakeS3Sink();
    const first = await startTask(s3, { 'format.class': 'avro' });
    await deliver(
      first,
      [0, 1, 2, 3, 4].map((o) => order(o, o >= 3 ? v2 : v1)),
    );
    const cold = await startTask(s3, { 'format.class': 'avro' });
    const before = s3.calls.length;

    // Act: the next batch starts at 5 in v2, then goes back to v1
    await deliver(
      cold,
      [5, 6].map((o) => order(o, o === 5 ? v2 : v1)),
    );

    // Assess: 5 joins the staged v2 run at 3; 6 starts a run of its own
    expect(ids(s3, staged(3))).toEqual([3, 4, 5]);
    expect(ids(s3, staged(6))).toEqual([6]);
    const calls = s3.calls.slice(before).map((c) => `${c.kind} ${c.key}`);
    expect(calls.filter((c) => c.startsWith('list'))).toHaveLength(1);
    // Only the latest staged object of the bucket is read: its schema fingerprint, then its bytes
    // to append to.
    expect(calls.filter((c) => c.startsWith('get'))).toEqual([
      `get ${staged(3)}`,
      `get ${staged(3)}`,
    ]);
  });

  it('keeps the staging objects of the bucket a batch started in until a later batch starts past it', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3, { 'format.class': 'avro' });
    await deliver(
      task,
      [0, 1, 2].map((o) => order(o)),
    );

    // Act
    await deliver(
      task,
      [3, 4, 5, 6, 7, 8, 9, 10].map((o) => order(o)),
    );
    const kept = s3.objects.has(staged(0));
    await deliver(
      task,
      [11].map((o) => order(o)),
    );

    // Assess: the final object was written once; its staging object outlived the seal by a batch
    expect(kept).toBe(true);
    expect(s3.objects.has(staged(0))).toBe(false);
    expect(ids(s3, key(0))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(s3.writes.get(key(0))).toBe(1);
  });

  it('writes Parquet objects when sealed, with records staged as Avro containers meanwhile', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const task = await startTask(s3, { 'format.class': 'parquet', 'parquet.codec': 'gzip' });

    // Act
    await deliver(
      task,
      [0, 1, 2, 3].map((o) => order(o)),
    );
    const stagedRecords = ids(s3, staged(0, '.gz.parquet'));
    await deliver(
      task,
      [4, 5, 6, 7, 8, 9, 10].map((o) => order(o)),
    );

    // Assess
    expect(stagedRecords).toEqual([0, 1, 2, 3]);
    const rows = await readParquetRows(s3.objects.get(key(0, '.gz.parquet'))?.bytes as Uint8Array);
    expect(rows.map((r) => JSON.parse(r).id)).toEqual([
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
    ]);
    expect(s3.objects.get(key(0, '.gz.parquet'))?.contentType).toBe(
      'application/vnd.apache.parquet',
    );
  });

  it('reports schemaless records and, for Parquet, non-struct values as data errors', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const reporter = new RecordingReporter();
    const avro = await startTask(s3, { 'format.class': 'avro' }, reporter);
    const parquet = await startTask(s3, { 'format.class': 'parquet' }, reporter);
    const strict = await startTask(s3, { 'format.class': 'avro' });
    const schemaless = sinkRecord({ kafkaOffset: 0, value: { id: 1 } });
    const text = sinkRecord({ kafkaOffset: 0, valueSchema: Schemas.STRING, value: 'x' });

    // Act
    await avro.put([schemaless]);
    await parquet.put([text]);
    const unreported = await strict.put([schemaless]).catch((e: unknown) => e);

    // Assess
    expect(reporter.reported.map((r) => r.error.message)).toEqual([
      'AvroFormat writes records with a value schema (e.g. read by the AvroConverter, or by the JsonConverter with schemas.enable=true), but record orders-0@0 has none',
      'ParquetFormat writes struct values, but the value schema of record orders-0@0 is string',
    ]);
    expect(reporter.reported.every((r) => r.error instanceof DataError)).toBe(true);
    expect(unreported).toBeInstanceOf(DataError);
  });
});
