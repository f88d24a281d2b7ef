/**
 * Which object each buffered record of a Kafka partition goes to.
 *
 * Lines formats (JSON, bytes): the object of its directory and bucket, named after the bucket's
 * first offset (`object-naming.ts`).
 *
 * Container formats (Avro, Parquet) hold one schema per object, and rotate the object when the
 * schema changes, as Confluent's S3 sink does with `schema.compatibility=NONE`: within a bucket
 * and a directory (`<topics.dir>/<topic>/<encodedPartition>`), a run of written records with the
 * same schema shares one object, named after the run's first offset; the bucket's first run is
 * named after the bucket's first offset, so that a bucket without a schema change is named as in
 * the lines formats. A record whose schema differs from the previous written record's of its
 * directory and bucket starts a new object at its own offset.
 *
 * The names stay functions of the records: a record's object depends on the records before it
 * in its bucket, and when a batch starts inside a bucket they were written by earlier batches.
 * Their runs are then known from the task's previous batch (a warm task continuing where it left
 * off), or read from the staged objects of the bucket (a ListObjectsV2 of the partition's staging
 * prefix, and the `schema-fingerprint` metadata of the latest staged object of each directory):
 * staged objects of a bucket stay until no batch can start in it again (`commit-plan.ts`,
 * `keepStagingOfOpenBuckets`).
 */
import type { BatchObject } from './commit-plan.js';
import type { ContainerFormat, WriterSchema } from './container-formats.js';
import type { PendingEntry } from './object-layout.js';
import { bucketStart, objectFileName, type StagedKey, stagingKey } from './object-naming.js';

/** One encoded record of the batch, before its object is known. */
export interface BufferedRecord {
  readonly offset: number;
  readonly bytes: Uint8Array;
  /** The object's directory: `<topics.dir>/<topic>/<encodedPartition>` (`''` for none). */
  readonly directory: string;
  /** The record's schema (container formats), null for lines formats. */
  readonly schema: WriterSchema | null;
}

/** The run of the last written record of a directory. */
export interface SchemaRun {
  readonly bucketStart: number;
  /** The first offset of the run's object. */
  readonly start: number;
  /** The run's schema fingerprint (`''`: unknown, matched by none). */
  readonly fingerprint: string;
}

/** The directory of an object key: everything before its file name. */
export function directoryOf(key: string): string {
  return key.slice(0, Math.max(0, key.lastIndexOf('/')));
}

/** The last run of each directory of one Kafka partition. */
export class SchemaRuns {
  readonly #runs: Map<string, SchemaRun>;

  constructor(runs: Iterable<[string, SchemaRun]> = []) {
    this.#runs = new Map(runs);
  }

  /**
   * The first offset of the object of a record at `offset` of bucket `bucket` with schema
   * `fingerprint` in `directory`: its run's, or its own when it starts a run. Remembers it.
   */
  place(directory: string, bucket: number, offset: number, fingerprint: string): number {
    const run = this.#runs.get(directory);
    const start =
      run === undefined || run.bucketStart !== bucket
        ? bucket
        : run.fingerprint === fingerprint
          ? run.start
          : offset;
    this.#runs.set(directory, { bucketStart: bucket, start, fingerprint });
    return start;
  }

  /** A copy without the runs of buckets before `bucket` (they cannot be continued). */
  from(bucket: number): SchemaRuns {
    return new SchemaRuns([...this.#runs].filter(([, run]) => run.bucketStart >= bucket));
  }
}

/**
 * The runs of bucket `bucket` before offset `before`, from the staged objects of a Kafka
 * partition: per directory, the staged object of that bucket with the highest first offset
 * below `before`, and its schema (`fingerprintOf` reads the object's metadata; null when it is
 * gone or has none: no record continues its run).
 */
export async function runsFromStaging(
  listed: readonly StagedKey[],
  bucket: number,
  flushSize: number,
  before: number,
  fingerprintOf: (stagingKey: string) => Promise<string | null>,
): Promise<SchemaRuns> {
  const latest = new Map<string, StagedKey>();
  for (const staged of listed) {
    if (bucketStart(staged.bucketStart, flushSize) !== bucket || staged.bucketStart >= before) {
      continue;
    }
    const directory = directoryOf(staged.finalKey);
    const seen = latest.get(directory);
    if (seen === undefined || seen.bucketStart < staged.bucketStart) latest.set(directory, staged);
  }
  const runs = await Promise.all(
    [...latest].map(
      async ([directory, staged]): Promise<[string, SchemaRun]> => [
        directory,
        {
          bucketStart: bucket,
          start: staged.bucketStart,
          fingerprint: (await fingerprintOf(staged.stagingKey)) ?? '',
        },
      ],
    ),
  );
  return new SchemaRuns(runs);
}

/** What naming the objects of one Kafka partition takes. */
export interface ObjectPlacement {
  readonly topic: string;
  readonly kafkaPartition: number;
  readonly flushSize: number;
  readonly stagingDir: string;
  /** The extension with its dot, compression included. */
  readonly extension: string;
  /** The container format, or null for lines formats. */
  readonly container: ContainerFormat | null;
}

/**
 * The objects of a Kafka partition's buffered `records` (ascending offsets). With a container
 * format, `runs` holds the runs before the first record (see {@link runsFromStaging}; empty when
 * the batch starts at a bucket's first offset) and is advanced past the records.
 */
export function objectsOf(
  records: readonly BufferedRecord[],
  placement: ObjectPlacement,
  runs: SchemaRuns,
): BatchObject[] {
  const { container, flushSize } = placement;
  const objects = new Map<string, BatchObject & { entries: PendingEntry[] }>();
  for (const record of records) {
    const bucket = bucketStart(record.offset, flushSize);
    const schema = record.schema;
    const start =
      container === null || schema === null
        ? bucket
        : runs.place(record.directory, bucket, record.offset, schema.fingerprint);
    const file = objectFileName(
      placement.topic,
      placement.kafkaPartition,
      start,
      placement.extension,
    );
    const key = record.directory === '' ? file : `${record.directory}/${file}`;
    let object = objects.get(key);
    if (object === undefined) {
      object = {
        key,
        stagingKey: stagingKey(
          placement.stagingDir,
          placement.topic,
          placement.kafkaPartition,
          key,
        ),
        bucketStart: start,
        entries: [],
        ...(container !== null &&
          schema !== null && {
            layout: container.finalLayout(schema, key),
            stagingLayout: container.stagingLayout(schema, key),
          }),
      };
      objects.set(key, object);
    }
    object.entries.push({ offset: record.offset, bytes: record.bytes });
  }
  return [...objects.values()];
}
