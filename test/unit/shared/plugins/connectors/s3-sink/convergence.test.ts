import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SinkRecord } from '../../../../../../shared/connect/records.js';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import { S3SinkTask } from '../../../../../../shared/plugins/connectors/s3-sink/s3-sink-task.js';
import { recordsOf } from '../../../../../support/container-objects.js';
import {
  FakeClock,
  FakeS3Sink,
  RecordingReporter,
  sinkContext,
  sinkRecord,
  textOf,
} from './fakes.js';

/**
 * The exactly-once property of the S3 sink: whatever the batch boundaries, wherever a crash
 * interrupts the writes, and whether or not the runtime stored the offsets of a successful
 * batch, replaying from the durable offsets ends with the objects of one clean pass, each
 * record in exactly one object, exactly once.
 */

const schema = SchemaBuilder.struct()
  .field('id', Schemas.STRING)
  .field('region', Schemas.OPTIONAL_STRING)
  .build();
/** A second version of the value schema, which some runs of records have (Avro, Parquet rotate). */
const schemaB = SchemaBuilder.struct()
  .field('id', Schemas.STRING)
  .field('region', Schemas.OPTIONAL_STRING)
  .field('n', Schemas.INT32)
  .build();

const PARTITIONS = 3;

/** A fixed record sequence per partition: offset gaps, three regions, one record per 10 minutes. */
function sequence(): SinkRecord[][] {
  return Array.from({ length: PARTITIONS }, (_, p) => {
    const out: SinkRecord[] = [];
    let offset = p * 5;
    for (let i = 0; i < 30; i++) {
      offset += i % 7 === 3 ? 3 : 1; // gaps, as compaction or transaction markers leave
      const region = i % 11 === 5 ? null : ['eu', 'us', 'ap'][(i * (p + 1)) % 3];
      // Runs of the second schema, inside buckets and across their boundaries.
      const b = i % 9 >= 4 && i % 9 <= 5;
      const value = b
        ? new Struct(schemaB)
            .put('id', `${p}-${offset}`)
            .put('region', region ?? null)
            .put('n', i)
        : new Struct(schema).put('id', `${p}-${offset}`).put('region', region ?? null);
      out.push(
        sinkRecord({
          kafkaPartition: p,
          kafkaOffset: offset,
          valueSchema: b ? schemaB : schema,
          value,
          timestamp: Date.UTC(2024, 2, 10, 4) + offset * 10 * 60_000,
        }),
      );
    }
    return out;
  });
}

const VARIANTS: Record<string, Record<string, string>> = {
  'json, default partitioner': { 'format.class': 'json', 'flush.size': '4' },
  'json, field partitioner, gzip (records without a region are errant)': {
    'format.class': 'json',
    'flush.size': '5',
    's3.compression.type': 'gzip',
    'partitioner.class': 'field',
    'partition.field.name': 'region',
  },
  'json, hourly by record time in New York across DST': {
    'format.class': 'json',
    'flush.size': '6',
    'partitioner.class': 'HourlyPartitioner',
    locale: 'en-US',
    timezone: 'America/New_York',
    'timestamp.extractor': 'Record',
  },
  'json, default partitioner, progressive writes': {
    'format.class': 'json',
    'flush.size': '4',
    's3.write.mode': 'progressive',
  },
  'avro (deflate), default partitioner, objects rotated on schema changes': {
    'format.class': 'io.confluent.connect.s3.format.avro.AvroFormat',
    'avro.codec': 'deflate',
    'flush.size': '6',
  },
  'parquet, field partitioner, objects rotated on schema changes per directory': {
    'format.class': 'parquet',
    'flush.size': '5',
    'partitioner.class': 'field',
    'partition.field.name': 'region',
  },
};

/** Whether a variant writes a container format (Avro, Parquet). */
const isContainer = (variant: Record<string, string>) =>
  /avro|parquet/i.test(variant['format.class'] ?? '');

interface Invocation {
  /** Records per partition in this batch (at least one). */
  readonly sizes: readonly number[];
  /** The mutating S3 call at which the process crashes, or null. */
  readonly crashAt: number | null;
  /** The runtime crashes after preCommit, before storing the offsets. */
  readonly lostCommit: boolean;
  /** A warm container reuses the previous task instance (after a failure too). */
  readonly warm: boolean;
}

const invocation: fc.Arbitrary<Invocation> = fc.record({
  sizes: fc.array(fc.integer({ min: 1, max: 12 }), {
    minLength: PARTITIONS,
    maxLength: PARTITIONS,
  }),
  crashAt: fc.option(fc.integer({ min: 0, max: 8 }), { nil: null }),
  lostCommit: fc.boolean(),
  warm: fc.boolean(),
});

const props = (variant: Record<string, string>) => ({ 's3.bucket.name': 'bucket', ...variant });

function newTask(s3: FakeS3Sink, partSize: number | undefined) {
  return new S3SinkTask({
    clock: new FakeClock(),
    createClient: () => s3,
    writeConcurrency: 2,
    ...(partSize === undefined ? {} : { partSize }),
  });
}

/**
 * Delivers `all` as the runtime would: each invocation takes, per partition, up to its size of
 * the records after the durable offset; after the planned invocations, clean ones until done.
 */
async function run(
  variant: Record<string, string>,
  all: readonly SinkRecord[][],
  plan: readonly Invocation[],
  partSize?: number,
): Promise<FakeS3Sink> {
  const s3 = new FakeS3Sink('bucket', 7);
  const durable = all.map(() => -1);
  let task: S3SinkTask | null = null;
  for (let i = 0; ; i++) {
    const step = plan[i] ?? { sizes: [12, 12, 12], crashAt: null, lostCommit: false, warm: true };
    const batch = all.flatMap((records, p) =>
      records.filter((r) => r.kafkaOffset > (durable[p] ?? -1)).slice(0, step.sizes[p] ?? 12),
    );
    if (batch.length === 0) return s3;
    if (task === null || !step.warm) {
      await task?.stop();
      task = newTask(s3, partSize);
      await task.start(props(variant), sinkContext(props(variant), new RecordingReporter()));
    }
    s3.mutations = 0;
    s3.crashAt = step.crashAt;
    const current = new Map<string, number>();
    for (const r of batch) current.set(`orders-${r.kafkaPartition}`, r.kafkaOffset + 1);
    try {
      await task.open(all.map((_, p) => ({ topic: 'orders', partition: p })));
      await task.put(batch);
      const committed = await task.preCommit(current);
      if (!step.lostCommit) {
        for (const [tp, next] of committed) durable[Number(tp.split('-')[1])] = next - 1;
      } else {
        task = null; // the process died: the next invocation is a cold start
      }
    } catch {
      // The batch failed and is redelivered; the next step's `warm` decides whether the same
      // task instance (still holding the failed batch's records) gets the redelivery.
    }
    s3.crashAt = null;
  }
}

/**
 * The objects of the bucket, with their records as text. Container formats: without the staged
 * objects kept beside their final one (readers skip them, as `s3-sink-output.ts` does), records
 * decoded (their blocks follow the batches).
 */
async function snapshot(s3: FakeS3Sink, variant: Record<string, string>) {
  const gzip = variant['s3.compression.type'] === 'gzip';
  const container = isContainer(variant);
  const out: {
    key: string;
    text: string;
    metadata: Readonly<Record<string, string>>;
    bytes: Uint8Array;
  }[] = [];
  for (const [key, o] of [...s3.objects].sort(([a], [b]) => a.localeCompare(b))) {
    const finalKey = key.slice(key.indexOf('/', '_staging/'.length) + 1);
    if (container && key.startsWith('_staging/') && s3.objects.has(finalKey)) continue;
    const text = container
      ? (await recordsOf(key, o.bytes)).map((r) => `${r}\n`).join('')
      : await textOf(o.bytes, gzip);
    out.push({ key, text, metadata: o.metadata, bytes: o.bytes });
  }
  return out;
}

/** The `id` of each record in `text` (JSON lines, or decoded container records). */
function idsOf(text: string): string[] {
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).id as string);
}

describe('S3 sink exactly-once convergence', () => {
  const all = sequence();

  for (const [name, variant] of Object.entries(VARIANTS)) {
    it(`converges to a clean pass under random batches and crashes (${name})`, async () => {
      // Prepare: one clean pass, all records in one batch
      const clean = await snapshot(
        await run(variant, all, [
          { sizes: [99, 99, 99], crashAt: null, lostCommit: false, warm: true },
        ]),
        variant,
      );
      const ids = clean.flatMap((o) => idsOf(o.text));

      // The clean pass holds every writable record exactly once.
      const writable = all
        .flat()
        .filter(
          (r) =>
            variant['partitioner.class'] !== 'field' || (r.value as Struct).get('region') !== null,
        );
      expect([...ids].sort()).toEqual(writable.map((r) => (r.value as Struct).get('id')).sort());
      if (isContainer(variant)) {
        // Schema changes rotated objects inside buckets: some start past their bucket's start.
        const flushSize = Number(variant['flush.size']);
        const starts = clean
          .filter((o) => o.key.startsWith('topics/'))
          .map((o) => Number(/\+(\d{20})\./.exec(o.key)?.[1]));
        expect(starts.filter((start) => start % flushSize !== 0).length).toBeGreaterThan(3);
      }

      await fc.assert(
        fc.asyncProperty(
          fc.array(invocation, { maxLength: 12 }),
          fc.constantFrom(undefined, 48),
          async (plan, partSize) => {
            // Act
            const s3 = await run(variant, all, plan, partSize);
            const replayed = await snapshot(s3, variant);

            // Assess
            expect(replayed.map((o) => [o.key, o.text, o.metadata])).toEqual(
              clean.map((o) => [o.key, o.text, o.metadata]),
            );
            // Avro blocks follow the batches (staged Parquet records too); final Parquet objects and
            // lines objects are byte for byte the same.
            const exact = (o: { key: string }) =>
              !isContainer(variant) || (o.key.endsWith('.parquet') && !o.key.startsWith('_'));
            expect(replayed.filter(exact).map((o) => o.bytes)).toEqual(
              clean.filter(exact).map((o) => o.bytes),
            );
            if (variant['s3.write.mode'] !== 'progressive') {
              // Every final object was written once, whatever the replays and crashes.
              const finals = [...s3.writes].filter(([k]) => k.startsWith('topics/'));
              expect(finals.filter(([, n]) => n !== 1)).toEqual([]);
            }
          },
        ),
        { numRuns: 60 },
      );
    }, 60_000);
  }
});
