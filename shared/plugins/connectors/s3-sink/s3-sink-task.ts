/**
 * The S3 sink task: encodes each batch's records, groups them by object, and writes every
 * touched object when the batch is committed. See `README.md` beside this file for the
 * exactly-once object layout.
 */
import {
  DataError,
  IllegalStateError,
  parseTopicPartitionKey,
  type SinkRecord,
  SinkTask,
  type SinkTaskContext,
  type TopicPartition,
  type TopicPartitionOffsets,
  topicPartitionKey,
} from 'serverless-connect/connect';
import { completeBelow, needsListing, planCommit } from './commit-plan.js';
import type { ContainerFormat } from './container-formats.js';
import { forEachLimited } from './for-each-limited.js';
import { SCHEMA_FINGERPRINT_METADATA } from './object-layout.js';
import {
  objectDirectory,
  parseStagingKey,
  type StagedKey,
  stagingPrefix,
} from './object-naming.js';
import { sealObject } from './object-sealer.js';
import {
  type BufferedRecord,
  type ObjectPlacement,
  objectsOf,
  SchemaRuns,
} from './object-segments.js';
import {
  KnownObjects,
  type ObjectWriterSettings,
  type WriteOutcome,
  writeObject,
} from './object-writer.js';
import { createPartitioner, type Partitioner, type WallClock } from './partitioners.js';
import { encodeRecord, type RecordFormat } from './record-format.js';
import type { S3SinkClient } from './s3-sink-client.js';
import {
  createS3SinkClient,
  parseS3SinkConfig,
  S3_SINK_VERSION,
  type S3SinkConfig,
} from './s3-sink-config.js';
import { type KeptStaging, SchemaHistory } from './schema-history.js';
import { sinkFormatOf } from './sink-format.js';

/** What the S3 sink connector and task are built from. */
export interface S3SinkDeps {
  /** The time source of the `Wallclock` timestamp extractor. */
  readonly clock: WallClock;
  /**
   * Builds the S3 client of a config (destroyed by the task on `stop`).
   * @default createS3SinkClient (the AWS SDK)
   */
  readonly createClient?: (config: S3SinkConfig) => S3SinkClient;
  /**
   * Internal, for tests: the multipart threshold and part size in bytes, overriding
   * `s3.part.size` (which cannot go below S3's 5 MiB). Not a user config.
   */
  readonly partSize?: number;
  /** Internal: how many objects are written at once. @default 4 */
  readonly writeConcurrency?: number;
}

interface Running {
  readonly config: S3SinkConfig;
  readonly context: SinkTaskContext;
  readonly client: S3SinkClient;
  readonly format: RecordFormat;
  /** The format when it holds one schema per object (Avro, Parquet). */
  readonly container: ContainerFormat | null;
  readonly partitioner: Partitioner;
  readonly extension: string;
  readonly settings: ObjectWriterSettings;
}

/**
 * Writes records to S3 objects named by Kafka coordinates, exactly once under redelivery.
 *
 * - `put` encodes each record (format, then partitioner) and files it under its object key
 *   (see `object-naming.ts`). A record that cannot be encoded (DataError) goes to
 *   `context.errantRecordReporter`, or fails the batch when there is none. Nothing is written
 *   yet, and nothing is kept beyond the batch: records at or below an offset already buffered
 *   for their partition replace the buffered tail (a redelivery into a warm task).
 * - `preCommit` writes every object the batch touched (with conditional writes and no read: a
 *   key this task has not seen exist is created under `If-None-Match: *`, an object it wrote
 *   itself is appended to from the bytes it wrote under `If-Match`; otherwise, or when S3
 *   refuses that write, read its `last-offset`, append the records above it, write it back;
 *   see `object-writer.ts`), then returns `currentOffsets`;
 *   it throws instead when any write failed (RetriableError for throttling, 5xx, network and
 *   lost races; ConnectError for access denied or a missing bucket), so offsets are returned
 *   only for data durably written. The buffered records stay until a preCommit succeeds, so
 *   a retried preCommit rewrites them (idempotently).
 * - Object keys and contents depend only on the records (with the Record and RecordField
 *   timestamp extractors), so any replay with any batch boundaries, after a crash anywhere,
 *   converges to the objects of a single clean pass, each record exactly once.
 *
 * @example
 * const task = new S3SinkTask({ clock: { now: () => Date.now() } });
 * await task.start({ 's3.bucket.name': 'b', 'flush.size': '1000', 'format.class': 'json' }, ctx);
 * await task.put(records);
 * const durable = await task.preCommit(currentOffsets);
 */
export class S3SinkTask extends SinkTask {
  readonly #deps: S3SinkDeps;
  #running: Running | null = null;
  /** The encoded records of the batch by source partition key, by ascending offset. */
  readonly #buffered = new Map<string, BufferedRecord[]>();
  /** The last offset buffered per source partition key. */
  readonly #lastOffsets = new Map<string, number>();
  /** The first offset buffered per source partition key (since the last successful flush). */
  readonly #firstOffsets = new Map<string, number>();
  /** `s3.write.mode=once`: per source partition key, below which offset this task sealed every bucket. */
  readonly #sealedBelow = new Map<string, number>();
  /** Container formats: the schema runs and kept staging objects of each partition. */
  readonly #history = new SchemaHistory();
  /** Keys this task instance created or read as existing, and the objects it wrote. */
  #known = new KnownObjects();

  constructor(deps: S3SinkDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return S3_SINK_VERSION;
  }

  /** Parses the task config (ConfigError when invalid) and creates the S3 client. */
  async start(props: Readonly<Record<string, string>>, context: SinkTaskContext): Promise<void> {
    const config = parseS3SinkConfig(props);
    const { format, container, compression, contentType, extension } = sinkFormatOf(config);
    const partitioner = createPartitioner(config.partitioner, this.#deps.clock);
    const client = (this.#deps.createClient ?? createS3SinkClient)(config);
    this.#running?.client.destroy();
    this.#clear();
    this.#sealedBelow.clear();
    this.#history.clear();
    this.#known = new KnownObjects();
    this.#running = {
      config,
      context,
      client,
      format,
      container,
      partitioner,
      extension,
      settings: {
        bucket: config.bucket,
        compression,
        contentType,
        partSize: this.#deps.partSize ?? config.partSize,
        conditionalWrites: config.conditionalWrites,
      },
    };
  }

  async put(records: readonly SinkRecord[]): Promise<void> {
    const running = this.#requireRunning();
    const reports: Promise<void>[] = [];
    for (const record of records) {
      const tp = topicPartitionKey({
        topic: record.originalTopic,
        partition: record.originalKafkaPartition,
      });
      const offset = record.originalKafkaOffset;
      const last = this.#lastOffsets.get(tp);
      if (last !== undefined && offset <= last) this.#rewind(tp, offset);
      this.#lastOffsets.set(tp, offset);
      const first = this.#firstOffsets.get(tp);
      if (first === undefined || offset < first) this.#firstOffsets.set(tp, offset);
      let buffered: BufferedRecord;
      try {
        const bytes = encodeRecord(running.format, record, running.config.nullValues);
        if (bytes === null) continue;
        buffered = {
          offset,
          bytes,
          directory: objectDirectory({
            topicsDir: running.config.topicsDir,
            directoryTopic: record.topic,
            encodedPartition: running.partitioner.encodePartition(record),
          }),
          schema: running.container?.schemaOf(record) ?? null,
        };
      } catch (error) {
        const reporter = running.context.errantRecordReporter;
        if (!(error instanceof DataError) || reporter === null) throw error;
        reports.push(reporter.report(record, error));
        continue;
      }
      let records = this.#buffered.get(tp);
      if (records === undefined) {
        records = [];
        this.#buffered.set(tp, records);
      }
      records.push(buffered);
    }
    await Promise.all(reports);
  }

  /**
   * Writes every pending object; the buffer is cleared only when all writes succeeded. With
   * `s3.write.mode=once`, objects of complete buckets are sealed and the others staged (see
   * `commit-plan.ts`); with `progressive` every object is written where it ends up.
   */
  override async flush(currentOffsets: TopicPartitionOffsets): Promise<void> {
    const running = this.#requireRunning();
    const concurrency = this.#deps.writeConcurrency ?? 4;
    if (running.config.writeMode === 'progressive') {
      const objects = [...this.#buffered].flatMap(([tp, records]) =>
        objectsOf(records, this.#placement(running, tp), new SchemaRuns()),
      );
      await forEachLimited(
        objects,
        concurrency,
        (pending): Promise<WriteOutcome> =>
          writeObject(running.client, running.settings, pending, this.#known),
      );
    } else {
      await this.#commitOnce(running, currentOffsets, concurrency);
    }
    this.#clear();
  }

  /** Seals the objects of complete buckets, stages the others (`s3.write.mode=once`). */
  async #commitOnce(
    running: Running,
    currentOffsets: TopicPartitionOffsets,
    concurrency: number,
  ): Promise<void> {
    const { config, client, settings, container } = running;
    const tps = [...new Set([...this.#lastOffsets.keys(), ...currentOffsets.keys()])];
    const plans: {
      tp: string;
      plan: ReturnType<typeof planCommit>;
      first: number;
      next: number;
      runs: SchemaRuns;
      deletes: readonly KeptStaging[];
    }[] = [];
    await forEachLimited(tps, concurrency, async (tp) => {
      const last = this.#lastOffsets.get(tp);
      const next = Math.max(currentOffsets.get(tp) ?? 0, last === undefined ? 0 : last + 1);
      const first = this.#firstOffsets.get(tp) ?? next;
      let listing: Promise<StagedKey[]> | undefined;
      const listed = () => {
        listing ??= this.#listStaged(running, tp);
        return listing;
      };
      const runs =
        container === null
          ? new SchemaRuns()
          : await this.#history.runsBefore(tp, first, config.flushSize, listed, (key) =>
              this.#fingerprintOf(running, key),
            );
      const objects = objectsOf(this.#buffered.get(tp) ?? [], this.#placement(running, tp), runs);
      const below = completeBelow(next, config.flushSize);
      const staged = needsListing(below, this.#sealedBelow.get(tp)) ? await listed() : [];
      const batch = { firstOffset: first, nextOffset: next, objects };
      const plan = planCommit(batch, config.flushSize, staged, {
        ...(container !== null && {
          layoutOfListed: (key: string) => container.finalLayout(null, key),
          keepStagingOfOpenBuckets: true,
        }),
      });
      const deletes = container === null ? [] : this.#history.deletable(tp, first);
      plans.push({ tp, plan, first, next, runs, deletes });
    });
    const writes = plans.flatMap(({ plan, deletes }) => [
      ...plan.seal.map((request) => () => sealObject(client, settings, request, this.#known)),
      ...plan.stage.map((pending) => () => writeObject(client, settings, pending, this.#known)),
      ...deletes.map((kept) => async () => {
        await client.deleteObject(settings.bucket, kept.stagingKey);
        this.#known.delete(kept.stagingKey);
      }),
    ]);
    await forEachLimited(writes, concurrency, (write) => write());
    for (const { tp, plan, first, next, runs, deletes } of plans) {
      this.#sealedBelow.set(tp, Math.max(plan.completeBelow, this.#sealedBelow.get(tp) ?? 0));
      if (container === null) continue;
      this.#history.flushed(tp, config.flushSize, {
        first,
        next,
        runs,
        seal: plan.seal,
        deleted: deletes,
      });
    }
  }

  /** The `schema-fingerprint` of a staged object (null: gone, or none). */
  async #fingerprintOf(running: Running, key: string): Promise<string | null> {
    const got = await running.client.getObject(running.config.bucket, key);
    await got?.body.cancel().catch(() => undefined);
    return got?.metadata[SCHEMA_FINGERPRINT_METADATA] ?? null;
  }

  /** How the objects of source partition `tp` are named. */
  #placement(running: Running, tp: string): ObjectPlacement {
    const { topic, partition } = parseTopicPartitionKey(tp);
    return {
      topic,
      kafkaPartition: partition,
      flushSize: running.config.flushSize,
      stagingDir: running.config.stagingDir,
      extension: running.extension,
      container: running.container,
    };
  }

  /** The staged objects of source partition `tp` (this connector's `topics.dir` and format). */
  async #listStaged(running: Running, tp: string): Promise<StagedKey[]> {
    const { config } = running;
    const { topic, partition } = parseTopicPartitionKey(tp);
    const prefix = stagingPrefix(config.stagingDir, topic, partition);
    const under = config.topicsDir === '' ? prefix : `${prefix}${config.topicsDir}/`;
    const keys = await running.client.listKeys(config.bucket, under);
    const c = { topicsDir: config.topicsDir, topic, kafkaPartition: partition };
    return keys.flatMap((key) => {
      const staged = parseStagingKey(key, prefix, { ...c, extension: running.extension });
      return staged === null ? [] : [staged];
    });
  }

  /** Flushes, then returns `currentOffsets`: everything put so far is durable in S3. */
  override async preCommit(currentOffsets: TopicPartitionOffsets): Promise<TopicPartitionOffsets> {
    await this.flush(currentOffsets);
    return currentOffsets;
  }

  /** Drops what is buffered for `partitions` (the runtime redelivers what it did not commit). */
  override async close(partitions: readonly TopicPartition[]): Promise<void> {
    for (const tp of partitions) {
      const key = topicPartitionKey(tp);
      this.#buffered.delete(key);
      this.#history.forget(key);
      this.#lastOffsets.delete(key);
      this.#firstOffsets.delete(key);
      this.#sealedBelow.delete(key);
    }
  }

  async stop(): Promise<void> {
    this.#clear();
    this.#running?.client.destroy();
    this.#running = null;
  }

  #requireRunning(): Running {
    if (this.#running === null) throw new IllegalStateError('The S3 sink task is not started');
    return this.#running;
  }

  #clear(): void {
    this.#buffered.clear();
    this.#lastOffsets.clear();
    this.#firstOffsets.clear();
  }

  /** Forgets the buffered records of `tp` at or above `offset`. */
  #rewind(tp: string, offset: number): void {
    const records = this.#buffered.get(tp);
    if (records === undefined) return;
    const kept = records.filter((r) => r.offset < offset);
    if (kept.length === 0) this.#buffered.delete(tp);
    else records.splice(0, records.length, ...kept);
  }
}
